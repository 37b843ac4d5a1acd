// kernelbench level1/40_LayerNorm example solution (kernel from problems/level1/40_LayerNorm,
// plus the affine weight and bias): one 1024-thread block per normalised row of
// L = features * dim1 * dim2 contiguous floats (one sample per block), three passes in fp32:
//   pass 1: sum (float4 loads when L % 4 == 0 and the pointers are 16-byte aligned) -> mean;
//   pass 2: sum of (x - mean)^2 -> biased variance (two passes: no cancellation);
//   pass 3: out = (x - mean) * rsqrt(var + 1e-5) * w + b (eps: nn.LayerNorm's default).
// Block sums: warp shuffles, then one warp over the 32 warp totals.
/* kjudge-plan
row_norm<<<batch_size, 1024>>>(x, ln_weight, ln_bias, out, features * dim1 * dim2);
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
  __syncthreads();  // warp_tot may be reused by the next call
  return v;         // every thread gets the total
}

extern "C" __global__ void __launch_bounds__(NT)
row_norm(const float* __restrict__ X, const float* __restrict__ Wt, const float* __restrict__ Bs,
         float* __restrict__ Y, long long L) {
  __shared__ float warp_tot[NT / 32];
  const float* __restrict__ x = X + (size_t)blockIdx.x * (size_t)L;
  float* __restrict__ y = Y + (size_t)blockIdx.x * (size_t)L;
  const int t = threadIdx.x;
  const bool vec = (L % 4 == 0) &&
      (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) |
         reinterpret_cast<unsigned long long>(Wt) | reinterpret_cast<unsigned long long>(Bs)) &
        15ull) == 0);
  const long long L4 = vec ? L / 4 : 0;
  const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
  float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
  const float4* __restrict__ w4 = reinterpret_cast<const float4*>(Wt);
  const float4* __restrict__ b4 = reinterpret_cast<const float4*>(Bs);

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
    float4 v = x4[i];
    const float4 w = w4[i];
    const float4 b = b4[i];
    v.x = fmaf((v.x - mean) * inv, w.x, b.x);
    v.y = fmaf((v.y - mean) * inv, w.y, b.y);
    v.z = fmaf((v.z - mean) * inv, w.z, b.z);
    v.w = fmaf((v.w - mean) * inv, w.w, b.w);
    y4[i] = v;
  }
  for (long long i = 4 * L4 + t; i < L; i += NT) y[i] = fmaf((x[i] - mean) * inv, Wt[i], Bs[i]);
}
