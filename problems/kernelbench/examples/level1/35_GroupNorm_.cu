// kernelbench/level1/35_GroupNorm_ example solution, the kernel of problems/level1/35_GroupNorm_
// (renamed to KernelBench's tensor and size names) plus nn.GroupNorm's affine step
// y = x_hat * gn_weight[c] + gn_bias[c]. num_groups = 8 and eps = 1e-5 are module constants
// (hard-coded: G below); features must be a multiple of 8, as nn.GroupNorm requires.
// Method: one 1024-thread block per normalised row of L = features / G * dim1 * dim2
// contiguous floats (one (n, group) per block), three passes over the row in fp32:
//   pass 1: sum (float4 loads when dim1 * dim2 % 4 == 0 and the pointers are 16-byte aligned) -> mean;
//   pass 2: sum of (x - mean)^2 -> biased variance (two passes: no cancellation);
//   pass 3: y = (x - mean) * rsqrt(var + 1e-5) * w[c] + b[c], c = the element's channel.
// Block sums: warp shuffles, then one warp over the 32 warp totals.
/* kjudge-plan
group_norm<<<batch_size * 8, 1024>>>(x, gn_weight, gn_bias, out, features, dim1 * dim2);
*/

#define NT 1024
#define G 8  // num_groups of the module

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
  __syncthreads();  // warp_tot may be reused by the next call
  return v;         // every thread gets the total
}

extern "C" __global__ void __launch_bounds__(NT)
group_norm(const float* __restrict__ X, const float* __restrict__ weight,
           const float* __restrict__ bias, float* __restrict__ Y, int C, long long HW) {
  __shared__ float warp_tot[NT / 32];
  const int cpg = C / G;                           // channels per group
  const int c0 = (int)(blockIdx.x % G) * cpg;      // first channel of this block's group
  const long long L = (long long)cpg * HW;
  const float* __restrict__ x = X + (size_t)blockIdx.x * (size_t)L;
  float* __restrict__ y = Y + (size_t)blockIdx.x * (size_t)L;
  const int t = threadIdx.x;
  // HW % 4 == 0 too, so that a float4 never straddles two channels.
  const bool vec = (HW % 4 == 0) &&
      (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0);
  const long long L4 = vec ? L / 4 : 0;
  const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
  float4* __restrict__ y4 = reinterpret_cast<float4*>(y);

  float s = 0.0f;
  for (long long i = t; i < L4; i += NT) {
    const float4 v = x4[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (long long i = 4 * L4 + t; i < L; i += NT) s += x[i];
  const float mean = block_sum(s, warp_tot) / (float)L;

  float q = 0.0f;
  for (long long i = t; i < L4; i += NT) {
    const float4 v = x4[i];
    const float a = v.x - mean, b = v.y - mean, c = v.z - mean, d = v.w - mean;
    q += (a * a + b * b) + (c * c + d * d);
  }
  for (long long i = 4 * L4 + t; i < L; i += NT) {
    const float a = x[i] - mean;
    q += a * a;
  }
  const float var = block_sum(q, warp_tot) / (float)L;
  const float inv = rsqrtf(var + 1e-5f);

  for (long long i = t; i < L4; i += NT) {
    const int c = c0 + (int)((4 * i) / HW);
    const float sc = inv * weight[c], b = bias[c];
    float4 v = x4[i];
    v.x = fmaf(v.x - mean, sc, b);
    v.y = fmaf(v.y - mean, sc, b);
    v.z = fmaf(v.z - mean, sc, b);
    v.w = fmaf(v.w - mean, sc, b);
    y4[i] = v;
  }
  for (long long i = 4 * L4 + t; i < L; i += NT) {
    const int c = c0 + (int)(i / HW);
    y[i] = fmaf(x[i] - mean, inv * weight[c], bias[c]);
  }
}
