// Trusted reference for level1/45_Average_Pooling_2D: one output element per iteration of a
// grid-stride loop (64-bit indices), a plain loop over its K x K window (no padding);
// the sum accumulated in double and divided by K * K.
extern "C" __global__ void ref_avg_pool2d(const float* __restrict__ X, float* __restrict__ Y, int B, int C, int H, int W, int K, int S) {
  const int P = 0;  // no padding
  const long long HO = ((long long)H + 2 * P - 1 * (K - 1) - 1) / S + 1;
  const long long WO = ((long long)W + 2 * P - 1 * (K - 1) - 1) / S + 1;
  const long long n_out = (long long)B * C * HO * WO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long wo = o % WO;
    long long r = o / WO;
    const long long ho = r % HO;
    r /= HO;  // r = b * C + c
    const float* x = X + (size_t)r * (size_t)H * (size_t)W;
    double s = 0.0;
    for (int kh = 0; kh < K; ++kh) {
      const long long h = ho * S - P + (long long)kh * 1;
      if (h < 0 || h >= H) continue;
      for (int kw = 0; kw < K; ++kw) {
        const long long w = wo * S - P + (long long)kw * 1;
        if (w < 0 || w >= W) continue;
        const float v = x[h * W + w];
        s += (double)v;
      }
    }
    Y[o] = (float)(s / ((double)K * (double)K));
  }
}
