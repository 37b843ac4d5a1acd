// Style: #include <cstdint>, template channel-cache size with #pragma unroll register caching (falls back to re-reading when C is larger).
#include <cstdint>

/* kjudge-plan
rms_norm_cached<64><<<min(cdiv(N * H * W, 128), 131072), 128>>>(X, Y, N, C, H * W);
*/

template <int CACHE>
__global__ void __launch_bounds__(128)
rms_norm_cached(const float* __restrict__ X, float* __restrict__ Y, int32_t N, int32_t C, int64_t HW) {
  const int64_t positions = (int64_t)N * HW;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += (int64_t)gridDim.x * blockDim.x) {
    const int64_t n = p / HW;
    const int64_t base = n * (int64_t)C * HW + (p % HW);
    float cache[CACHE];
    float ss = 0.0f;
    if (C <= CACHE) {
#pragma unroll
      for (int c = 0; c < CACHE; ++c) {
        cache[c] = c < C ? X[base + c * HW] : 0.0f;
        ss += cache[c] * cache[c];
      }
      const float inv = rsqrtf(ss / (float)C + 1e-5f);
#pragma unroll
      for (int c = 0; c < CACHE; ++c) {
        if (c < C) Y[base + c * HW] = cache[c] * inv;
      }
    } else {
      for (int32_t c = 0; c < C; ++c) {
        const float v = X[base + c * HW];
        ss += v * v;
      }
      const float inv = rsqrtf(ss / (float)C + 1e-5f);
      for (int32_t c = 0; c < C; ++c) Y[base + c * HW] = X[base + c * HW] * inv;
    }
  }
}
