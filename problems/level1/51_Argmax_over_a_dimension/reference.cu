// Trusted reference for level1/51_Argmax_over_a_dimension:
// one thread per output element Y[b][j], a plain sequential loop over the D1 reduced
// elements X[b][0..D1-1][j] (coalesced across j);
// strict comparison, so the first occurrence wins.
extern "C" __global__ void ref_argmax_dim1(const float* __restrict__ X, long long* __restrict__ Y,
                                   int B, int D1, int D2) {
  const long long n_out = (long long)B * D2;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long b = o / D2;
    const long long j = o % D2;
    const float* x = X + (size_t)b * (size_t)D1 * (size_t)D2 + (size_t)j;
    float m = x[0];
    long long mi = 0;
    for (int i = 1; i < D1; ++i) {
      const float v = x[(size_t)i * (size_t)D2];
      if (v > m) {
        m = v;
        mi = i;
      }
    }
    Y[o] = mi;
  }
}
