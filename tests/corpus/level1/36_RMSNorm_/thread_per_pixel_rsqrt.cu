// Style: one thread per (n, h, w) position walking the channel dimension with stride H*W (coalesced across threads), grid-stride loop, sqrtf.
/* kjudge-plan
rms_norm_pixels<<<min(cdiv(N * H * W, 256), 65536), 256>>>(X, Y, N, C, H * W);
*/

extern "C" __global__ void rms_norm_pixels(const float* __restrict__ X, float* __restrict__ Y, int N, int C, long long HW) {
  const long long total = (long long)N * HW;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += (long long)gridDim.x * blockDim.x) {
    const long long n = p / HW;
    const long long hw = p - n * HW;
    const float* x = X + n * C * HW + hw;
    float* y = Y + n * C * HW + hw;
    float sum_sq = 0.0f;
    for (int c = 0; c < C; ++c) {
      const float v = x[(long long)c * HW];
      sum_sq = fmaf(v, v, sum_sq);
    }
    const float inv = 1.0f / sqrtf(sum_sq / (float)C + 1e-5f);
    for (int c = 0; c < C; ++c) y[(long long)c * HW] = x[(long long)c * HW] * inv;
  }
}
