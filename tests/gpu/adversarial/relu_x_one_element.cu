// Adversarial: level1/19_ReLU. Expected: INPUT_MODIFIED (or RUNTIME_ERROR).
// Correct Y, then changes exactly one element of the input: the last one, by one ulp
// (X[n - 1] = nextafter(X[n - 1], +inf)). The smallest possible input modification: the
// read-only mapping faults on it, or the byte-for-byte comparison of the inputs sees it.
/* kjudge-plan
relu_bump_x<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_bump_x(float* X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
    volatile float* v = X + (n - 1);
    *v = __int_as_float(__float_as_int(*v) + (*v >= 0.0f ? 1 : -1));  // one ulp away from 0
  }
}
