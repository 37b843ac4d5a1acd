// Trusted reference for level1/20_LeakyReLU: Y = X > 0 ? X : negative_slope * X, elementwise.
// One element per iteration of a grid-stride loop with 64-bit indices; evaluated in double
// and rounded once to fp32.
extern "C" __global__ void leaky_relu_ref(const float* __restrict__ X, float* __restrict__ Y,
    long long n, float negative_slope) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = (double)X[i];
    const double y = x > 0.0 ? x : (double)negative_slope * x;
    Y[i] = (float)y;
  }
}
