// Adversarial: level1/34_InstanceNorm. Expected: WRONG_ANSWER (under the "offset" input regime).
// Distribution blind spot at the bench shape: a two-pass (stable) instance norm at every test
// shape, the x1000 stress shape included, and a one-pass var = E[x^2] - E[x]^2 in fp32 only at
// the bench shape (H * W = 262,144: "one read of X fewer where it pays"). On the declared
// U(0, 1) inputs E[x^2] / var = 4 and the shortcut passes. Under the "offset" regime (mean ~9.7,
// std ~0.29) E[x^2] / var ~ 1,150: the fp32 rounding of E[x^2] alone moves each plane's
// variance by ~5e-5 relative, and y by ~2e-5..6e-5 relative L2 across the 7,168 planes, against
// the 1e-5 tolerance. The timed samples draw every regime (a secret deck) and are all checked.
/* kjudge-plan
instance_norm<<<N * C, 1024>>>(X, Y, H * W);
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
instance_norm(const float* __restrict__ X, float* __restrict__ Y, long long L) {
  __shared__ float warp_tot[NT / 32];
  const float* __restrict__ x = X + (size_t)blockIdx.x * (size_t)L;
  float* __restrict__ y = Y + (size_t)blockIdx.x * (size_t)L;
  const bool one_pass = L >= 65536;  // the shortcut, at the bench shape only
  float s = 0.0f, q = 0.0f;
  for (long long i = threadIdx.x; i < L; i += NT) {
    const float v = x[i];
    s += v;
    if (one_pass) q = fmaf(v, v, q);
  }
  const float mean = block_sum(s, warp_tot) / (float)L;
  float var;
  if (one_pass) {
    var = fmaxf(block_sum(q, warp_tot) / (float)L - mean * mean, 0.0f);
  } else {
    for (long long i = threadIdx.x; i < L; i += NT) {
      const float d = x[i] - mean;
      q = fmaf(d, d, q);
    }
    var = block_sum(q, warp_tot) / (float)L;
  }
  const float inv = rsqrtf(var + 1e-5f);
  for (long long i = threadIdx.x; i < L; i += NT) y[i] = (x[i] - mean) * inv;
}
