// Trusted reference for level1/76_conv_standard_1D_dilated_strided__: one output element per
// iteration of a grid-stride loop (64-bit indices, t fastest), a plain double loop over (c, k)
// accumulating X * Wt in double, rounded once to fp32.
extern "C" __global__ void ref_conv1d(const float* __restrict__ X, const float* __restrict__ Wt,
                                      float* __restrict__ Y, int B, int CI, int CO, int L, int K,
                                      int S, int DIL) {
  const long long LO = ((long long)L - (long long)DIL * (K - 1) - 1) / S + 1;
  const long long n_out = (long long)B * CO * LO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < n_out; idx += stride) {
    const long long t = idx % LO;
    const long long r = idx / LO;
    const long long o = r % CO;
    const long long b = r / CO;
    double acc = 0.0;
    for (int c = 0; c < CI; ++c) {
      const float* x = X + ((size_t)b * CI + c) * (size_t)L;
      const float* w = Wt + ((size_t)o * CI + c) * (size_t)K;
      for (int k = 0; k < K; ++k) acc += (double)x[t * S + (long long)k * DIL] * (double)w[k];
    }
    Y[idx] = (float)acc;
  }
}
