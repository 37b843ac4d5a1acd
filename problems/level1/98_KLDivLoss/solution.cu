// level1/98_KLDivLoss example solution, two kernels:
//   kl_rows: one 512-thread block per row, three passes in fp32: the row maxima of P and Q; the
//            sums of exp(x - max) (so lp, lq are the log-sum-exps); then
//            KL_b = sum_d q_d * (Q_d - P_d) - (lq - lp) with q_d = exp(Q_d - lq), using
//            sum_d q_d = 1 -> rl[b];
//   loss_final: one block sums the B row values and divides by B.
/* kjudge-plan
scratch rl : f32[B];
kl_rows<<<B, 512>>>(P, Q, rl, B, D);
loss_final<<<1, 1024>>>(rl, L, B, B);
*/

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

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float block_max(float v, float* tot) {
  v = warp_max(v);
  if ((threadIdx.x & 31) == 0) tot[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < (blockDim.x >> 5) ? tot[threadIdx.x & 31] : tot[0];
  v = warp_max(v);
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(512)
kl_rows(const float* __restrict__ P, const float* __restrict__ Q, float* __restrict__ rl, int B,
        int D) {
  __shared__ float tot[16];
  const int b = blockIdx.x;
  if (b >= B) return;
  const float* __restrict__ p = P + (size_t)b * (size_t)D;
  const float* __restrict__ q = Q + (size_t)b * (size_t)D;
  const int t = threadIdx.x;
  float mp = p[0], mq = q[0];
  for (int k = t; k < D; k += 512) {
    mp = fmaxf(mp, p[k]);
    mq = fmaxf(mq, q[k]);
  }
  mp = block_max(mp, tot);
  mq = block_max(mq, tot);
  float sp = 0.0f, sq = 0.0f;
  for (int k = t; k < D; k += 512) {
    sp += expf(p[k] - mp);
    sq += expf(q[k] - mq);
  }
  const float lp = mp + logf(block_sum(sp, tot));
  const float lq = mq + logf(block_sum(sq, tot));
  float acc = 0.0f;
  for (int k = t; k < D; k += 512) {
    const float qk = q[k];
    acc += expf(qk - lq) * (qk - p[k]);
  }
  acc = block_sum(acc, tot);
  if (t == 0) rl[b] = acc - (lq - lp);
}
