// Unusual but correct: level2/14_Gemm_Divide_Sum_Scaling. Expected: CORRECT.
// An exact algebraic rewrite with ~N times fewer flops:
//   Y[m] = s * sum_n (sum_k X[m][k] W[n][k]) / 2 = (s / 2) * sum_k X[m][k] w[k],
//   w[k] = sum_n W[n][k]  (the column sums of W).
// Kernel 1: 64 row-chunks of W (rows n = c, c + 64, ...) summed per column into part[c][k]
// (coalesced along k); kernel 2: w[k] = sum_c part[c][k] in a fixed order; kernel 3: one block
// per row of X, the dot product X[m] . w, then Y[m] = (s / 2) * dot. It still reads all of X
// and W once, so it never beats the memory floor (not SUSPICIOUS).
/* kjudge-plan
scratch part : f32[64 * K];
scratch w : f32[K];
colsum_part<<<dim3(cdiv(K, 256), 64), 256>>>(W, part, N, K);
colsum_finish<<<cdiv(K, 256), 256>>>(part, w, K);
rowdot_scale<<<M, 256>>>(X, w, Y, M, K, scaling_factor);
*/

#define CHUNKS 64

extern "C" __global__ void colsum_part(const float* __restrict__ W, float* __restrict__ part, int N,
                                       int K) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int c = blockIdx.y;  // 0 .. CHUNKS - 1; chunks with c >= N sum nothing and write 0
  if (k >= K) return;
  float s = 0.0f;
  for (int n = c; n < N; n += CHUNKS) s += W[(size_t)n * (size_t)K + k];
  part[(size_t)c * (size_t)K + k] = s;
}

extern "C" __global__ void colsum_finish(const float* __restrict__ part, float* __restrict__ w, int K) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= K) return;
  float s = 0.0f;
  for (int c = 0; c < CHUNKS; ++c) s += part[(size_t)c * (size_t)K + k];
  w[k] = s;
}

extern "C" __global__ void __launch_bounds__(256)
rowdot_scale(const float* __restrict__ X, const float* __restrict__ w, float* __restrict__ Y, int M,
             int K, float scaling_factor) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* __restrict__ x = X + (size_t)row * (size_t)K;
  float s = 0.0f;
  for (int k = threadIdx.x; k < K; k += 256) s = fmaf(x[k], w[k], s);
  red[threadIdx.x] = s;
  __syncthreads();
  for (int h = 128; h > 0; h /= 2) {
    if ((int)threadIdx.x < h) red[threadIdx.x] += red[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) Y[row] = (red[0] * 0.5f) * scaling_factor;
}
