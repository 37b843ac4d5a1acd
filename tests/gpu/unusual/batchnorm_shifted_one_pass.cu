// Unusual but correct: level1/33_BatchNorm. Expected: CORRECT under every input regime.
// One pass over X for the statistics, made stable by the shifted-data formula: every value is
// taken relative to a shift K = the channel's first element X[0, c, 0, 0], so the sums are of
// d = x - K (magnitude ~ the spread, not the mean) and var = E[d^2] - E[d]^2 cancels nothing
// (E[d^2] / var <= ~4 for any K inside the data). Under the "offset" regime (mean ~9.7, spread
// ~0.29), where the unshifted E[x^2] - E[x]^2 loses ~5e-5 (adversarial/instancenorm_one_pass_
// bench_shape.cu), this stays as accurate as two passes. Per-(n, c) plane partial sums in fp32,
// combined per channel in double, then y = (x - mean) * rsqrt(var + 1e-5).
/* kjudge-plan
scratch ps : f32[N * C];
scratch pq : f32[N * C];
scratch st : f32[2 * C];
bn_plane_shifted<<<dim3(N, C), 512>>>(X, ps, pq, N, C, H * W);
bn_channel<<<C, 32>>>(X, ps, pq, st, N, C, H * W);
bn_apply<<<dim3(N, C), 256>>>(X, st, Y, C, H * W);
*/

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sums of d = x - K and d^2 over one (n, c) plane of HW values; one 512-thread block per plane.
extern "C" __global__ void __launch_bounds__(512)
bn_plane_shifted(const float* __restrict__ X, float* __restrict__ ps, float* __restrict__ pq, int N,
                 int C, long long HW) {
  __shared__ float ts[16], tq[16];
  const int n = blockIdx.x, c = blockIdx.y;
  const float K = X[(size_t)c * HW];  // X[0, c, 0, 0]
  const float* __restrict__ x = X + ((size_t)n * C + c) * (size_t)HW;
  float s = 0.0f, q = 0.0f;
  for (long long i = threadIdx.x; i < HW; i += 512) {
    const float d = x[i] - K;
    s += d;
    q = fmaf(d, d, q);
  }
  s = warp_sum(s);
  q = warp_sum(q);
  if ((threadIdx.x & 31) == 0) {
    ts[threadIdx.x >> 5] = s;
    tq[threadIdx.x >> 5] = q;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    s = warp_sum(threadIdx.x < 16 ? ts[threadIdx.x] : 0.0f);
    q = warp_sum(threadIdx.x < 16 ? tq[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) {
      ps[(size_t)n * C + c] = s;
      pq[(size_t)n * C + c] = q;
    }
  }
}

// One warp per channel: st[2c] = mean, st[2c + 1] = rsqrt(var + eps).
extern "C" __global__ void bn_channel(const float* __restrict__ X, const float* __restrict__ ps,
                                      const float* __restrict__ pq, float* __restrict__ st, int N, int C,
                                      long long HW) {
  const int c = blockIdx.x;
  double s = 0.0, q = 0.0;
  for (int n = threadIdx.x; n < N; n += 32) {
    s += ps[(size_t)n * C + c];
    q += pq[(size_t)n * C + c];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, o);
    q += __shfl_xor_sync(0xffffffffu, q, o);
  }
  if (threadIdx.x == 0) {
    const double count = (double)N * (double)HW;
    const double md = s / count;                 // E[d]
    const double var = fmax(q / count - md * md, 0.0);
    st[2 * c] = (float)((double)X[(size_t)c * HW] + md);  // K + E[d]
    st[2 * c + 1] = (float)(1.0 / sqrt(var + 1e-5));
  }
}

extern "C" __global__ void bn_apply(const float* __restrict__ X, const float* __restrict__ st,
                                    float* __restrict__ Y, int C, long long HW) {
  const int n = blockIdx.x, c = blockIdx.y;
  const float mean = st[2 * c], inv = st[2 * c + 1];
  const size_t base = ((size_t)n * C + c) * (size_t)HW;
  for (long long i = threadIdx.x; i < HW; i += blockDim.x) Y[base + i] = (X[base + i] - mean) * inv;
}
