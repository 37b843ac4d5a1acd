// Style: two log-softmaxes and their KL divergence per row with warp shuffles (#pragma unroll), per-row results in scratch, batchmean in a second kernel.
/* kjudge-plan
scratch kl_rows : f32[B];
kl_per_row<<<B, 512>>>(P, Q, kl_rows, D);
kl_batchmean<<<1, 512>>>(kl_rows, L, B);
*/

#define NEG_INF (-__int_as_float(0x7f800000))

template <bool MAX>
__device__ __forceinline__ float allreduce(float v, float* sh) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = MAX ? fmaxf(v, w) : v + w;
  }
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = MAX ? NEG_INF : 0.0f;
  for (int i = 0; i < (int)(blockDim.x >> 5); ++i) r = MAX ? fmaxf(r, sh[i]) : r + sh[i];
  __syncthreads();
  return r;
}

// KL(softmax(Q) || softmax(P)) = sum q_i (log q_i - log p_i), PyTorch's kl_div(log p, q).
extern "C" __global__ void kl_per_row(const float* __restrict__ P, const float* __restrict__ Q, float* __restrict__ kl_rows, int D) {
  __shared__ float sh[32];
  const float* p = P + (size_t)blockIdx.x * D;
  const float* q = Q + (size_t)blockIdx.x * D;
  float mp = NEG_INF, mq = NEG_INF;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    mp = fmaxf(mp, p[i]);
    mq = fmaxf(mq, q[i]);
  }
  mp = allreduce<true>(mp, sh);
  mq = allreduce<true>(mq, sh);
  float sp = 0.0f, sq = 0.0f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    sp += expf(p[i] - mp);
    sq += expf(q[i] - mq);
  }
  const float lse_p = mp + logf(allreduce<false>(sp, sh));
  const float lse_q = mq + logf(allreduce<false>(sq, sh));
  float kl = 0.0f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float log_q = q[i] - lse_q;
    const float log_p = p[i] - lse_p;
    kl += expf(log_q) * (log_q - log_p);
  }
  kl = allreduce<false>(kl, sh);
  if (threadIdx.x == 0) kl_rows[blockIdx.x] = kl;
}

extern "C" __global__ void kl_batchmean(const float* __restrict__ kl_rows, float* __restrict__ L, int B) {
  __shared__ double sh[512];
  double s = 0.0;
  for (int i = threadIdx.x; i < B; i += blockDim.x) s += (double)kl_rows[i];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int k = 256; k > 0; k >>= 1) {
    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) L[0] = (float)(sh[0] / (double)B);
}
