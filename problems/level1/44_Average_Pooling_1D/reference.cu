// Trusted reference for level1/44_Average_Pooling_1D: one output element per iteration of a grid-stride loop
// (64-bit indices), a plain loop over its window of K elements skipping padded positions;
// the sum accumulated in double and divided by K (count_include_pad).
extern "C" __global__ void ref_avg_pool1d(const float* __restrict__ X, float* __restrict__ Y, int B, int C, int L, int K, int S, int P) {
  const long long LO = ((long long)L + 2 * P - 1 * (K - 1) - 1) / S + 1;
  const long long n_out = (long long)B * C * LO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long lo = o % LO;
    const long long r = o / LO;  // r = b * C + c
    const float* x = X + (size_t)r * (size_t)L;
    double s = 0.0;
    for (int k = 0; k < K; ++k) {
      const long long i = lo * S - P + (long long)k * 1;
      if (i < 0 || i >= L) continue;
      const float v = x[i];
      s += (double)v;
    }
    Y[o] = (float)(s / ((double)K));
  }
}
