// kernelbench/level1/34_InstanceNorm example solution, the kernels of problems/level1/34_InstanceNorm
// (renamed to KernelBench's tensor and size names).
// InstanceNorm2d defaults: affine = False, eps = 1e-5; training mode uses the instance statistics.
// Method: one 1024-thread block per normalised row of
// L = H * W contiguous floats (one (n, c) plane per block), three passes over the row in fp32:
//   pass 1: sum (float4 loads when L % 4 == 0 and the pointers are 16-byte aligned) -> mean;
//   pass 2: sum of (x - mean)^2 -> biased variance (two passes: no cancellation);
//   pass 3: y = (x - mean) * rsqrt(var + 1e-5).
// Block sums: warp shuffles, then one warp over the 32 warp totals.
/* kjudge-plan
row_norm<<<batch_size * features, 1024>>>(x, out, dim1 * dim2);
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
row_norm(const float* __restrict__ X, float* __restrict__ Y, long long L) {
  __shared__ float warp_tot[NT / 32];
  const float* __restrict__ x = X + (size_t)blockIdx.x * (size_t)L;
  float* __restrict__ y = Y + (size_t)blockIdx.x * (size_t)L;
  const int t = threadIdx.x;
  const bool vec = (L % 4 == 0) &&
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
    float4 v = x4[i];
    v.x = (v.x - mean) * inv;
    v.y = (v.y - mean) * inv;
    v.z = (v.z - mean) * inv;
    v.w = (v.w - mean) * inv;
    y4[i] = v;
  }
  for (long long i = 4 * L4 + t; i < L; i += NT) y[i] = (x[i] - mean) * inv;
}
