// Trusted reference for level1/63_conv_standard_2D__square_input__square_kernel: one output
// element per iteration of a grid-stride loop (64-bit indices, j fastest), a plain triple loop
// over (c, p, q) accumulating X * Wt in double, rounded once to fp32.
extern "C" __global__ void ref_conv2d(const float* __restrict__ X, const float* __restrict__ Wt,
                                      float* __restrict__ Y, int B, int CI, int CO, int H, int W,
                                      int K) {
  const long long HO = H - K + 1, WO = W - K + 1;
  const long long n_out = (long long)B * CO * HO * WO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < n_out; idx += stride) {
    const long long j = idx % WO;
    long long r = idx / WO;
    const long long i = r % HO;
    r /= HO;
    const long long o = r % CO;
    const long long b = r / CO;
    double acc = 0.0;
    for (int c = 0; c < CI; ++c) {
      const float* x = X + ((size_t)b * CI + c) * (size_t)H * (size_t)W;
      const float* w = Wt + ((size_t)o * CI + c) * (size_t)K * (size_t)K;
      for (int p = 0; p < K; ++p)
        for (int q = 0; q < K; ++q)
          acc += (double)x[(i + p) * W + (j + q)] * (double)w[p * K + q];
    }
    Y[idx] = (float)acc;
  }
}
