// Trusted reference for level1/27_SELU_: Y = scale * (X > 0 ? X : alpha * (exp(X) - 1)), elementwise.
// One element per iteration of a grid-stride loop with 64-bit indices; evaluated in double
// and rounded once to fp32.
extern "C" __global__ void selu_ref(const float* __restrict__ X, float* __restrict__ Y,
    long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = (double)X[i];
    const double alpha = 1.6732632423543772848170429916717;
    const double scale = 1.0507009873554804934193349852946;
    const double y = scale * (x > 0.0 ? x : alpha * expm1(x));
    Y[i] = (float)y;
  }
}
