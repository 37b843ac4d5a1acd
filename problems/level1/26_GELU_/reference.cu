// Trusted reference for level1/26_GELU_: Y = 0.5 X (1 + erf(X / sqrt(2))), elementwise (exact GELU).
// One element per iteration of a grid-stride loop with 64-bit indices; evaluated in double
// and rounded once to fp32.
extern "C" __global__ void gelu_ref(const float* __restrict__ X, float* __restrict__ Y,
    long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = (double)X[i];
    const double y = 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    Y[i] = (float)y;
  }
}
