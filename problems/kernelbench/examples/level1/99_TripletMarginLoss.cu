// kernelbench/level1/99_TripletMarginLoss
// Example solution, two kernels:
//   triplet_rows: one 256-thread block per row b; fp64 sums (so the difference of two nearly
//            equal distances keeps its digits) of (a - p + eps)^2 and (a - n + eps)^2 over the
//            row, then rl[b] = max(d(a, p) - d(a, n) + margin, 0);
//   loss_final: one block sums the batch_size row losses and divides by batch_size.
// nn.TripletMarginLoss(margin=1.0) defaults: p = 2, eps = 1e-6 added to the difference (as
// F.pairwise_distance does), swap = False, reduction 'mean'.
/* kjudge-plan
scratch rl : f32[batch_size];
triplet_rows<<<batch_size, 256>>>(anchor, positive, negative, rl, batch_size, anchor_d1);
loss_final<<<1, 1024>>>(rl, out, batch_size, batch_size);
*/

#define MARGIN 1.0
#define EPS 1e-6

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block sum (blockDim.x a multiple of 32, at most 1024); every thread gets the total.
__device__ __forceinline__ float block_sum(float v, float* tot) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) tot[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < (blockDim.x >> 5) ? tot[threadIdx.x & 31] : 0.0f;
  v = warp_sum(v);
  __syncthreads();  // tot may be reused
  return v;
}

// One block of 1024 threads: L[0] = (sum of part[0 .. n_part-1]) / count.
extern "C" __global__ void __launch_bounds__(1024)
loss_final(const float* __restrict__ part, float* __restrict__ L, int n_part, long long count) {
  __shared__ float tot[32];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n_part; i += 1024) s += part[i];
  s = block_sum(s, tot);
  if (threadIdx.x == 0) L[0] = s / (float)count;
}

__device__ __forceinline__ double warp_sum_d(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block sum in fp64 for 256 threads; every thread gets the total.
__device__ __forceinline__ double block_sum_d(double v, double* tot) {
  v = warp_sum_d(v);
  if ((threadIdx.x & 31) == 0) tot[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < 8 ? tot[threadIdx.x & 31] : 0.0;
  v = warp_sum_d(v);
  __syncthreads();  // tot may be reused
  return v;
}

extern "C" __global__ void __launch_bounds__(256)
triplet_rows(const float* __restrict__ A, const float* __restrict__ Pos,
             const float* __restrict__ Neg, float* __restrict__ rl, int B, int D) {
  __shared__ double tot[8];
  const int b = blockIdx.x;
  if (b >= B) return;
  const size_t row = (size_t)b * (size_t)D;
  double sp = 0.0, sn = 0.0;
  for (int k = threadIdx.x; k < D; k += 256) {
    const double a = A[row + k];
    const double dp = a - (double)Pos[row + k] + EPS;
    const double dn = a - (double)Neg[row + k] + EPS;
    sp = fma(dp, dp, sp);
    sn = fma(dn, dn, sn);
  }
  sp = block_sum_d(sp, tot);
  sn = block_sum_d(sn, tot);
  if (threadIdx.x == 0) rl[b] = (float)fmax(sqrt(sp) - sqrt(sn) + MARGIN, 0.0);
}
