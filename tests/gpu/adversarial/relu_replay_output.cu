// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER.
// Replays the previous output: reads Y first and skips the element when it already holds a
// value (anything but NaN). Poisoned outputs (NaN) make it compute, so it is right on every
// poisoned run; the re-check after timing gives it new inputs at the same addresses with the
// previous outputs left in place, and it returns those stale values.
/* kjudge-plan
relu_replay<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_replay(const float* __restrict__ X, float* Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float old = Y[i];
    if (old == old) continue;  // already written by an earlier call: keep it
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
