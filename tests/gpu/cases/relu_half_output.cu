// Expected: UNWRITTEN_OUTPUT on level1/19_ReLU.
// Computes the right values but writes only the first half of Y (none at all for 1 x 1):
// the rest keeps the judge's poison pattern.
/* kjudge-plan
relu_half<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_half(const float* __restrict__ X, float* __restrict__ Y,
                                     long long n) {
  const long long half = n / 2;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < half; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
