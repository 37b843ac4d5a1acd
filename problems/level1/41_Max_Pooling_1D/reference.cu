// Trusted reference for level1/41_Max_Pooling_1D: one output element per iteration of a grid-stride loop
// (64-bit indices), a plain loop over its window of K elements skipping padded positions.
extern "C" __global__ void ref_max_pool1d(const float* __restrict__ X, float* __restrict__ Y, int B, int C, int L, int K, int S, int P, int DIL) {
  const long long LO = ((long long)L + 2 * P - DIL * (K - 1) - 1) / S + 1;
  const long long n_out = (long long)B * C * LO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long lo = o % LO;
    const long long r = o / LO;  // r = b * C + c
    const float* x = X + (size_t)r * (size_t)L;
    float m = __int_as_float(0xff800000);  // -inf
    for (int k = 0; k < K; ++k) {
      const long long i = lo * S - P + (long long)k * DIL;
      if (i < 0 || i >= L) continue;
      const float v = x[i];
      if (v > m) m = v;
    }
    Y[o] = m;
  }
}
