// Trusted reference for level1/97_ScaledDotProductAttention, three kernels, double accumulation:
//   ref_attn_scores:  Sc[bh][i][j] = (sum_k Q[i][k] K[j][k]) / sqrt(D), 16 x 16 shared-memory
//                     tiles (inputs staged as float, products and sums in double);
//   ref_attn_softmax: one block per score row, max and sum of exp in double, P written in place;
//   ref_attn_pv:      O[bh][i][d] = sum_j P[i][j] V[j][d], 16 x 16 tiles, double, rounded once.
#define TILE 16
#define REF_T 256

extern "C" __global__ void __launch_bounds__(TILE * TILE)
ref_attn_scores(const float* __restrict__ Q, const float* __restrict__ K, double* __restrict__ Sc,
                int S, int D) {
  __shared__ float qs[TILE][TILE + 1];
  __shared__ float ks[TILE][TILE + 1];
  const size_t bh = blockIdx.z;
  const float* q = Q + bh * (size_t)S * (size_t)D;
  const float* k = K + bh * (size_t)S * (size_t)D;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * TILE + ty;      // query row of this thread's output
  const int j = blockIdx.x * TILE + tx;      // key row of this thread's output
  const int jl = blockIdx.x * TILE + ty;     // key row this thread loads
  double acc = 0.0;
  for (int d0 = 0; d0 < D; d0 += TILE) {
    qs[ty][tx] = (i < S && d0 + tx < D) ? q[(size_t)i * D + d0 + tx] : 0.0f;
    ks[ty][tx] = (jl < S && d0 + tx < D) ? k[(size_t)jl * D + d0 + tx] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) acc += (double)qs[ty][kk] * (double)ks[tx][kk];
    __syncthreads();
  }
  if (i < S && j < S) Sc[bh * (size_t)S * (size_t)S + (size_t)i * S + j] = acc / sqrt((double)D);
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_attn_softmax(double* __restrict__ Sc, int S) {
  __shared__ double red[REF_T];
  double* p = Sc + (size_t)blockIdx.x * (size_t)S;
  const int t = threadIdx.x;
  double m = -1.0e308;
  for (int j = t; j < S; j += REF_T) m = fmax(m, p[j]);
  red[t] = m;
  __syncthreads();
  for (int s = REF_T / 2; s > 0; s /= 2) {
    if (t < s) red[t] = fmax(red[t], red[t + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  double sum = 0.0;
  for (int j = t; j < S; j += REF_T) sum += exp(p[j] - m);
  red[t] = sum;
  __syncthreads();
  for (int s = REF_T / 2; s > 0; s /= 2) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  sum = red[0];
  for (int j = t; j < S; j += REF_T) p[j] = exp(p[j] - m) / sum;  // each element read then written by one thread
}

extern "C" __global__ void __launch_bounds__(TILE * TILE)
ref_attn_pv(const double* __restrict__ Sc, const float* __restrict__ V, float* __restrict__ O,
            int S, int D) {
  __shared__ double ps[TILE][TILE + 1];
  __shared__ float vs[TILE][TILE + 1];
  const size_t bh = blockIdx.z;
  const double* p = Sc + bh * (size_t)S * (size_t)S;
  const float* v = V + bh * (size_t)S * (size_t)D;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * TILE + ty;  // query row
  const int d = blockIdx.x * TILE + tx;  // output column
  double acc = 0.0;
  for (int j0 = 0; j0 < S; j0 += TILE) {
    ps[ty][tx] = (i < S && j0 + tx < S) ? p[(size_t)i * S + j0 + tx] : 0.0;
    vs[ty][tx] = (j0 + ty < S && d < D) ? v[(size_t)(j0 + ty) * D + d] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) acc += ps[ty][kk] * (double)vs[kk][tx];
    __syncthreads();
  }
  if (i < S && d < D) O[bh * (size_t)S * (size_t)D + (size_t)i * D + d] = (float)acc;
}
