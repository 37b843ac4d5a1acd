// Adversarial: level1/94_MSELoss. Expected: WRONG_ANSWER (under the "large" input regime).
// Distribution blind spot at the bench shape (issue 26 point 2): fp32 throughout at the test
// shapes (the x1000 stress shape included), but at the bench shape (B * D = 2^30) the
// difference is rounded to half and squared in half precision (__hmul: "the squares of two
// N(0, 1) differences are < 50, half is plenty"), accumulated in fp32. On the declared inputs
// the half rounding errors average out over 2^30 terms and the loss is within 2e-5. Under the
// "large" regime (x100: |P - T| reaches ~600) a square passes half's 65504 at |d| > 256: inf,
// and the loss is inf. Every timed sample is checked and the deck times every regime, so the
// bench-shape-only shortcut must end WRONG_ANSWER.
/* kjudge-plan
scratch part : f32[1024];
mse_partial<<<1024, 256>>>(P, T, part, B, D);
mse_final<<<1, 1024>>>(part, L, 1024, B * D);
*/

#include <cuda_fp16.h>

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float block_sum(float v, float* tot) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) tot[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < (blockDim.x >> 5) ? tot[threadIdx.x & 31] : 0.0f;
  v = warp_sum(v);
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(1024)
mse_final(const float* __restrict__ part, float* __restrict__ L, int n_part, long long count) {
  __shared__ float tot[32];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n_part; i += 1024) s += part[i];
  s = block_sum(s, tot);
  if (threadIdx.x == 0) L[0] = s / (float)count;
}

extern "C" __global__ void __launch_bounds__(256)
mse_partial(const float* __restrict__ P, const float* __restrict__ T, float* __restrict__ part,
            int B, int D) {
  __shared__ float tot[8];
  const long long n = (long long)B * D;
  const bool half_squares = n >= (1LL << 28);  // the shortcut, at the bench shape only
  const long long stride = (long long)gridDim.x * blockDim.x;
  float s = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float d = P[i] - T[i];
    if (half_squares) {
      const __half h = __float2half_rn(d);
      s += __half2float(__hmul(h, h));
    } else {
      s = fmaf(d, d, s);
    }
  }
  s = block_sum(s, tot);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}
