// Trusted reference for level1/89_cumsum: one thread per row, a plain sequential loop
// over the row, the running sum kept in double and each prefix rounded once to fp32.
extern "C" __global__ void ref_cumsum_rows(const float* __restrict__ X, float* __restrict__ Y, int B, int N) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= B) return;
  const float* x = X + (size_t)b * (size_t)N;
  float* y = Y + (size_t)b * (size_t)N;
  double acc = 0.0;
  for (int j = 0; j < N; ++j) {
    acc += (double)x[j];
    y[j] = (float)acc;
  }
}
