// kernelbench level1/36_RMSNorm_ example solution (kernel from problems/level1/36_RMSNorm_):
// one thread per (n, h, w) position; adjacent threads take adjacent positions, so every load
// and store of a warp is 32 consecutive floats. The thread sums the squares of its channel
// values in fp32, then rescales them by 1 / sqrt(mean + eps), eps = 1e-5 (the module default).
/* kjudge-plan
rms_norm<<<cdiv(batch_size * dim1 * dim2, 256), 256>>>(x, out, batch_size, features, dim1 * dim2);
*/
extern "C" __global__ void __launch_bounds__(256)
rms_norm(const float* __restrict__ X, float* __restrict__ Y, int N, int C, long long HW) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (long long)N * HW) return;
  const long long n = p / HW;
  const long long hw = p - n * HW;
  const float* __restrict__ x = X + (size_t)n * (size_t)C * (size_t)HW + (size_t)hw;
  float* __restrict__ y = Y + (size_t)n * (size_t)C * (size_t)HW + (size_t)hw;
  float s = 0.0f;
  for (int c = 0; c < C; ++c) {
    const float v = x[(size_t)c * HW];
    s = fmaf(v, v, s);
  }
  const float inv = rsqrtf(s / (float)C + 1e-5f);
  for (int c = 0; c < C; ++c) y[(size_t)c * HW] = x[(size_t)c * HW] * inv;
}
