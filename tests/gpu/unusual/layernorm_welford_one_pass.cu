// Unusual but correct: level1/40_LayerNorm. Expected: CORRECT under every input regime.
// One pass over X for the statistics with Welford's update per thread (count, mean, M2:
// delta = x - mean; mean += delta / count; M2 += delta * (x - mean)), merged across the warp
// and then across the 32 warps with Chan's parallel formula. No E[x^2] - E[x]^2 cancellation:
// under the "offset" regime (mean ~9.7 against a spread of ~0.29, where the textbook one-pass
// variance is off by ~5e-5, see adversarial/layernorm_one_pass_variance.cu) M2 only ever adds
// squared deviations. A second pass writes y = (x - mean) * rsqrt(var + 1e-5).
/* kjudge-plan
layer_norm_welford<<<N, 1024>>>(X, Y, C * H * W);
*/

#define NT 1024

struct Stats {
  float n, mean, m2;
};

__device__ __forceinline__ Stats merge(Stats a, Stats b) {
  if (b.n == 0.0f) return a;
  if (a.n == 0.0f) return b;
  const float n = a.n + b.n;
  const float delta = b.mean - a.mean;
  const float wb = b.n / n;
  Stats r;
  r.n = n;
  r.mean = fmaf(delta, wb, a.mean);
  r.m2 = a.m2 + b.m2 + delta * delta * a.n * wb;
  return r;
}

__device__ __forceinline__ Stats warp_merge(Stats s) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    Stats other;
    other.n = __shfl_xor_sync(0xffffffffu, s.n, o);
    other.mean = __shfl_xor_sync(0xffffffffu, s.mean, o);
    other.m2 = __shfl_xor_sync(0xffffffffu, s.m2, o);
    s = merge(s, other);
  }
  return s;
}

extern "C" __global__ void __launch_bounds__(NT)
layer_norm_welford(const float* __restrict__ X, float* __restrict__ Y, long long L) {
  __shared__ Stats warp_stats[NT / 32];
  __shared__ float row_mean, row_inv;
  const float* __restrict__ x = X + (size_t)blockIdx.x * (size_t)L;
  float* __restrict__ y = Y + (size_t)blockIdx.x * (size_t)L;
  Stats s = {0.0f, 0.0f, 0.0f};
  for (long long i = threadIdx.x; i < L; i += NT) {
    const float v = x[i];
    s.n += 1.0f;
    const float delta = v - s.mean;
    s.mean += delta / s.n;
    s.m2 = fmaf(delta, v - s.mean, s.m2);
  }
  s = warp_merge(s);
  if ((threadIdx.x & 31) == 0) warp_stats[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = warp_merge(warp_stats[threadIdx.x]);
    if (threadIdx.x == 0) {
      row_mean = s.mean;
      row_inv = rsqrtf(fmaxf(s.m2 / (float)L, 0.0f) + 1e-5f);
    }
  }
  __syncthreads();
  const float mean = row_mean, inv = row_inv;
  for (long long i = threadIdx.x; i < L; i += NT) y[i] = (x[i] - mean) * inv;
}
