// Trusted reference for level1/32_HardTanh: Y = min(max(X, min_val), max_val), elementwise.
// One element per iteration of a grid-stride loop with 64-bit indices; evaluated in double
// and rounded once to fp32.
extern "C" __global__ void hardtanh_ref(const float* __restrict__ X, float* __restrict__ Y,
    long long n, float min_val, float max_val) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = (double)X[i];
    const double y = fmin(fmax(x, (double)min_val), (double)max_val);
    Y[i] = (float)y;
  }
}
