// Expected: COMPILE_ERROR on level1/19_ReLU; NVRTC's log must name line 14 of this file
// (an undeclared identifier). The plan itself is valid.
/* kjudge-plan
relu_typo<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_typo(const float* __restrict__ X, float* __restrict__ Y,
                                     long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  // The next line is line 14: `undeclared_value` does not exist.
  Y[0] = undeclared_value;
}
