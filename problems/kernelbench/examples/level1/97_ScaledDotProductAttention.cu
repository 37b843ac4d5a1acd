// kernelbench/level1/97_ScaledDotProductAttention
// Example solution (the kernels of the hand-made level1/97_ScaledDotProductAttention twin): the
// unfused three-step algorithm in fp32 with the S x S scores in a scratch buffer
// (S = sequence_length, D = embedding_dimension; no mask, no dropout, scale 1 / sqrt(D)).
//   attn_scores:  P = (Q K^T) / sqrt(D), 16 x 16 shared-memory tiles, fp32 FMA;
//   attn_softmax: one warp per score row (8 rows per 256-thread block), in place;
//   attn_pv:      O = P V, 16 x 16 shared-memory tiles, fp32 FMA.
/* kjudge-plan
scratch P : f32[batch_size * num_heads * sequence_length * sequence_length];
attn_scores<<<dim3(cdiv(sequence_length, 16), cdiv(sequence_length, 16), batch_size * num_heads), dim3(16, 16)>>>(Q, K, P, sequence_length, embedding_dimension);
attn_softmax<<<cdiv(batch_size * num_heads * sequence_length, 8), 256>>>(P, batch_size * num_heads * sequence_length, sequence_length);
attn_pv<<<dim3(cdiv(embedding_dimension, 16), cdiv(sequence_length, 16), batch_size * num_heads), dim3(16, 16)>>>(P, V, out, sequence_length, embedding_dimension);
*/

#define TILE 16

extern "C" __global__ void __launch_bounds__(TILE * TILE)
attn_scores(const float* __restrict__ Q, const float* __restrict__ K, float* __restrict__ P,
            int S, int D) {
  __shared__ float qs[TILE][TILE + 1];
  __shared__ float ks[TILE][TILE + 1];
  const size_t bh = blockIdx.z;
  const float* __restrict__ q = Q + bh * (size_t)S * (size_t)D;
  const float* __restrict__ k = K + bh * (size_t)S * (size_t)D;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  const int jl = blockIdx.x * TILE + ty;
  float acc = 0.0f;
  for (int d0 = 0; d0 < D; d0 += TILE) {
    qs[ty][tx] = (i < S && d0 + tx < D) ? q[(size_t)i * D + d0 + tx] : 0.0f;
    ks[ty][tx] = (jl < S && d0 + tx < D) ? k[(size_t)jl * D + d0 + tx] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk) acc = fmaf(qs[ty][kk], ks[tx][kk], acc);
    __syncthreads();
  }
  if (i < S && j < S) P[bh * (size_t)S * (size_t)S + (size_t)i * S + j] = acc * rsqrtf((float)D);
}

extern "C" __global__ void __launch_bounds__(256)
attn_softmax(float* __restrict__ P, long long rows, int S) {
  const long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
  if (row >= rows) return;  // whole warps leave together
  const int lane = threadIdx.x & 31;
  float* __restrict__ p = P + (size_t)row * (size_t)S;
  float m = p[0];
  for (int j = lane; j < S; j += 32) m = fmaxf(m, p[j]);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
  for (int j = lane; j < S; j += 32) s += expf(p[j] - m);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float inv = 1.0f / s;
  for (int j = lane; j < S; j += 32) p[j] = expf(p[j] - m) * inv;
}

extern "C" __global__ void __launch_bounds__(TILE * TILE)
attn_pv(const float* __restrict__ P, const float* __restrict__ V, float* __restrict__ O, int S,
        int D) {
  __shared__ float ps[TILE][TILE + 1];
  __shared__ float vs[TILE][TILE + 1];
  const size_t bh = blockIdx.z;
  const float* __restrict__ p = P + bh * (size_t)S * (size_t)S;
  const float* __restrict__ v = V + bh * (size_t)S * (size_t)D;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * TILE + ty;
  const int d = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int j0 = 0; j0 < S; j0 += TILE) {
    ps[ty][tx] = (i < S && j0 + tx < S) ? p[(size_t)i * S + j0 + tx] : 0.0f;
    vs[ty][tx] = (j0 + ty < S && d < D) ? v[(size_t)(j0 + ty) * D + d] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk) acc = fmaf(ps[ty][kk], vs[kk][tx], acc);
    __syncthreads();
  }
  if (i < S && d < D) O[bh * (size_t)S * (size_t)D + (size_t)i * D + d] = acc;
}
