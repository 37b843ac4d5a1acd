// Adversarial: level1/40_LayerNorm. Expected: WRONG_ANSWER (under the "offset" input regime).
// Textbook one-pass variance, var = E[x^2] - E[x]^2, accumulated in fp32 (one read of X for the
// statistics instead of two). On the declared U(0, 1) inputs E[x^2] / var is only 4, so the
// cancellation costs ~2 bits and the kernel passes, the x1000 stress shape included (scaling
// keeps the mean/std ratio). Under the "offset" regime (x + 32 sigma: mean ~9.7, std ~0.29)
// E[x^2] ~ 95 is 1,150 x the variance: its fp32 rounding alone moves var by ~5e-5 relative,
// and y by ~2e-5..6e-5 relative L2 (a float32 simulation in PyTorch: 3.3e-5 and 4.8e-5 on two
// shapes) against the 1e-5 tolerance. Issue 26 point 2: "a one-pass LayerNorm variance is
// CORRECT because U(0,1) and its stress shape have the same mean/std ratio".
/* kjudge-plan
layer_norm_one_pass<<<N, 1024>>>(X, Y, C * H * W);
*/

#define NT 1024

__device__ __forceinline__ float block_sum(float v, float* warp_tot) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (lane == 0) warp_tot[warp] = v;
  __syncthreads();
  v = lane < (NT / 32) ? warp_tot[lane] : 0.0f;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(NT)
layer_norm_one_pass(const float* __restrict__ X, float* __restrict__ Y, long long L) {
  __shared__ float warp_tot[NT / 32];
  const float* __restrict__ x = X + (size_t)blockIdx.x * (size_t)L;
  float* __restrict__ y = Y + (size_t)blockIdx.x * (size_t)L;
  float s = 0.0f, q = 0.0f;
  for (long long i = threadIdx.x; i < L; i += NT) {
    const float v = x[i];
    s += v;
    q = fmaf(v, v, q);
  }
  const float mean = block_sum(s, warp_tot) / (float)L;
  const float mean_sq = block_sum(q, warp_tot) / (float)L;
  const float var = fmaxf(mean_sq - mean * mean, 0.0f);  // the cancellation
  const float inv = rsqrtf(var + 1e-5f);
  for (long long i = threadIdx.x; i < L; i += NT) y[i] = (x[i] - mean) * inv;
}
