// Style: attention as three kernels over an f32 scratch score matrix: tiled Q K^T with 1/sqrt(D) scaling (3D grid, batch*heads in z), in-place row softmax, tiled P V.
/* kjudge-plan
scratch Pm : f32[B * NH * S * S];
attn_scores<<<dim3(cdiv(S, 16), cdiv(S, 16), B * NH), dim3(16, 16)>>>(Q, K, Pm, S, D);
attn_softmax<<<B * NH * S, 128>>>(Pm, S);
attn_pv<<<dim3(cdiv(D, 16), cdiv(S, 16), B * NH), dim3(16, 16)>>>(Pm, V, O, S, D);
*/

#define T 16

extern "C" __global__ void attn_scores(const float* __restrict__ Q, const float* __restrict__ K, float* __restrict__ P, int S, int D) {
  __shared__ float qs[T][T + 1];
  __shared__ float ks[T][T + 1];
  const size_t bh = blockIdx.z;
  const float* q = Q + bh * S * D;
  const float* k = K + bh * S * D;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * T + ty;   // query row
  const int j = blockIdx.x * T + tx;   // key row of the output element
  const int jl = blockIdx.x * T + ty;  // key row this thread loads
  float acc = 0.0f;
  for (int d0 = 0; d0 < D; d0 += T) {
    qs[ty][tx] = (i < S && d0 + tx < D) ? q[(size_t)i * D + d0 + tx] : 0.0f;
    ks[ty][tx] = (jl < S && d0 + tx < D) ? k[(size_t)jl * D + d0 + tx] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int d = 0; d < T; ++d) acc = fmaf(qs[ty][d], ks[tx][d], acc);
    __syncthreads();
  }
  if (i < S && j < S) P[bh * S * S + (size_t)i * S + j] = acc / sqrtf((float)D);
}

extern "C" __global__ void attn_softmax(float* __restrict__ P, int S) {
  __shared__ float red[4];
  float* p = P + (size_t)blockIdx.x * S;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  float m = p[0];
  for (int j = threadIdx.x; j < S; j += 128) m = fmaxf(m, p[j]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (lane == 0) red[wid] = m;
  __syncthreads();
  m = fmaxf(fmaxf(red[0], red[1]), fmaxf(red[2], red[3]));
  __syncthreads();
  float s = 0.0f;
  for (int j = threadIdx.x; j < S; j += 128) s += expf(p[j] - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) red[wid] = s;
  __syncthreads();
  const float inv = 1.0f / (red[0] + red[1] + red[2] + red[3]);
  for (int j = threadIdx.x; j < S; j += 128) p[j] = expf(p[j] - m) * inv;  // each element read and written by one thread
}

extern "C" __global__ void attn_pv(const float* __restrict__ P, const float* __restrict__ V, float* __restrict__ O, int S, int D) {
  __shared__ float ps[T][T + 1];
  __shared__ float vs[T][T + 1];
  const size_t bh = blockIdx.z;
  const float* p = P + bh * S * S;
  const float* v = V + bh * S * D;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * T + ty;  // query row
  const int d = blockIdx.x * T + tx;  // output column
  float acc = 0.0f;
  for (int j0 = 0; j0 < S; j0 += T) {
    ps[ty][tx] = (i < S && j0 + tx < S) ? p[(size_t)i * S + j0 + tx] : 0.0f;
    vs[ty][tx] = (j0 + ty < S && d < D) ? v[(size_t)(j0 + ty) * D + d] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int jj = 0; jj < T; ++jj) acc = fmaf(ps[ty][jj], vs[jj][tx], acc);
    __syncthreads();
  }
  if (i < S && d < D) O[bh * S * D + (size_t)i * D + d] = acc;
}
