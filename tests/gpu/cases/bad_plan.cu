// Expected: REJECTED on level1/19_ReLU: the launch plan has a syntax error at line 5,
// column 41 (the stray '@' in the argument list). The device code itself is fine.
/* kjudge-plan
scratch unused : f32[16];
relu_plain<<<cdiv(M * N, 256), 256>>>(X @ Y, M * N);
*/

extern "C" __global__ void relu_plain(const float* __restrict__ X, float* __restrict__ Y,
                                      long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
