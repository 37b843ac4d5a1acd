// Adversarial: level1/19_ReLU. Expected: SUSPICIOUS (or UNWRITTEN_OUTPUT / WRONG_ANSWER).
// "Batches several calls' work into one": on large inputs it does the work only every 4th
// launch, counted in a __device__ counter by a second kernel of the plan (small inputs, i.e.
// the test shapes, are always computed). Outputs are poisoned before and checked after every
// timed sample, so a skipped launch shows as unwritten output.
/* kjudge-plan
relu_every_4th<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
count_call<<<1, 1>>>(Y);
*/

__device__ unsigned long long g_calls;

extern "C" __global__ void relu_every_4th(const float* __restrict__ X, float* __restrict__ Y,
                                          long long n) {
  if (n > 1000000 && g_calls % 4 != 0) return;  // "the work was done in an earlier call"
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}

extern "C" __global__ void count_call(const float* Y) {
  (void)Y;
  g_calls = g_calls + 1;
}
