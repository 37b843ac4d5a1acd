// Style: <cuda_bf16.h> __nv_bfloat16 operands staged in shared memory as hi/lo split pairs (x = hi + lo keeps ~16 bits), fp32 accumulation of hi*hi + hi*lo + lo*hi; block per row.
#include <cuda_bf16.h>

/* kjudge-plan
matvec_bf16x2<<<M, 256>>>(A, B, C, K);
*/

#define THREADS 256
#define CHUNK 2048

__device__ __forceinline__ void split_bf16(float v, __nv_bfloat16& hi, __nv_bfloat16& lo) {
  hi = __float2bfloat16_rn(v);
  lo = __float2bfloat16_rn(v - __bfloat162float(hi));
}

extern "C" __global__ void __launch_bounds__(THREADS)
matvec_bf16x2(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int K) {
  __shared__ __nv_bfloat16 b_hi[CHUNK];
  __shared__ __nv_bfloat16 b_lo[CHUNK];
  __shared__ float warp_sum[THREADS / 32];
  const float* a = A + (size_t)blockIdx.x * K;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += CHUNK) {
    const int len = min(CHUNK, K - k0);
    for (int i = threadIdx.x; i < len; i += THREADS) split_bf16(B[k0 + i], b_hi[i], b_lo[i]);
    __syncthreads();
    for (int i = threadIdx.x; i < len; i += THREADS) {
      __nv_bfloat16 ah, al;
      split_bf16(a[k0 + i], ah, al);
      const float fah = __bfloat162float(ah), fal = __bfloat162float(al);
      const float fbh = __bfloat162float(b_hi[i]), fbl = __bfloat162float(b_lo[i]);
      acc = fmaf(fah, fbh, acc);
      acc = fmaf(fah, fbl, acc);
      acc = fmaf(fal, fbh, acc);
    }
    __syncthreads();  // before the next chunk overwrites b_hi / b_lo
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < THREADS / 32; ++w) s += warp_sum[w];
    C[blockIdx.x] = s;
  }
}
