// Trusted reference for level1/48_Mean_reduction_over_a_dimension:
// one thread per output element Y[b][j], a plain sequential loop over the D1 reduced
// elements X[b][0..D1-1][j] (coalesced across j),
// accumulated in double and rounded once to fp32.
extern "C" __global__ void ref_mean_dim1(const float* __restrict__ X, float* __restrict__ Y,
                                   int B, int D1, int D2) {
  const long long n_out = (long long)B * D2;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long b = o / D2;
    const long long j = o % D2;
    const float* x = X + (size_t)b * (size_t)D1 * (size_t)D2 + (size_t)j;
    double acc = 0.0;
    for (int i = 0; i < D1; ++i) acc += (double)x[(size_t)i * (size_t)D2];
    Y[o] = (float)(acc / (double)D1);
  }
}
