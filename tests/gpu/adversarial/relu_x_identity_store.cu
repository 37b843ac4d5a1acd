// Adversarial: level1/19_ReLU. Expected: RUNTIME_ERROR (or INPUT_MODIFIED).
// Correct Y, plus one store to the input of the value it already holds (X[n / 2] = X[n / 2],
// through a volatile pointer so it is not optimised away). No byte of X changes, so only the
// read-only mapping of the inputs can see it: the store must fault.
/* kjudge-plan
relu_touch_x<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_touch_x(float* X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    volatile float* v = X + n / 2;
    *v = *v;
  }
}
