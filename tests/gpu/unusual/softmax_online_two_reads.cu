// Unusual but correct: level1/23_Softmax. Expected: CORRECT under every input regime.
// Online softmax (Milakov & Gimelshein 2018): one pass keeps a running maximum m and a sum s
// rescaled whenever the maximum grows (s = s * exp(m_old - m_new) + 1), partial (m, s) pairs are
// merged across the block, and a second pass writes exp(x - m) / s: X is read twice, not three
// times, and every exponent is <= 0, so the "large" regime (logits ~+-500) is as accurate as
// N(0, 1). Empty partials (threads past a short row) carry s = 0 and are skipped in the merge
// (exp(-inf - -inf) would be NaN).
/* kjudge-plan
softmax_online<<<M, 256>>>(X, Y, M, N);
*/

struct MS {
  float m, s;
};

__device__ __forceinline__ MS ms_merge(MS a, MS b) {
  if (b.s == 0.0f) return a;
  if (a.s == 0.0f) return b;
  const float m = fmaxf(a.m, b.m);
  MS r;
  r.m = m;
  r.s = a.s * expf(a.m - m) + b.s * expf(b.m - m);
  return r;
}

extern "C" __global__ void __launch_bounds__(256)
softmax_online(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  __shared__ MS part[8];
  __shared__ MS row;
  if (blockIdx.x >= M) return;
  const float* __restrict__ x = X + (size_t)blockIdx.x * N;
  float* __restrict__ y = Y + (size_t)blockIdx.x * N;
  MS t = {__int_as_float(0xff800000), 0.0f};
  for (int j = threadIdx.x; j < N; j += 256) {
    const float v = x[j];
    if (v > t.m) {
      t.s = t.s * expf(t.m - v) + 1.0f;  // t.s = 0 on the first element: 0 * exp(-inf) = 0
      t.m = v;
    } else {
      t.s += expf(v - t.m);
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    MS other;
    other.m = __shfl_xor_sync(0xffffffffu, t.m, o);
    other.s = __shfl_xor_sync(0xffffffffu, t.s, o);
    t = ms_merge(t, other);
  }
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    MS r = part[0];
    for (int w = 1; w < 8; ++w) r = ms_merge(r, part[w]);
    row = r;
  }
  __syncthreads();
  const float m = row.m, inv = 1.0f / row.s;
  for (int j = threadIdx.x; j < N; j += 256) y[j] = expf(x[j] - m) * inv;
}
