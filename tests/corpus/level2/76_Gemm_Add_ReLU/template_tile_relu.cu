// Style: templated tile sizes (BM, BN, BK as template parameters from the plan) with a 2D thread block, fmaxf ReLU epilogue, bias add.
/* kjudge-plan
gemm_bias_relu<32, 32, 32><<<dim3(cdiv(N, 32), cdiv(M, 32)), dim3(32, 8)>>>(X, W, B, Y, M, N, K);
*/

template <int BM, int BN, int BK>
__global__ void gemm_bias_relu(const float* __restrict__ X, const float* __restrict__ W, const float* __restrict__ bias,
                               float* __restrict__ Y, int M, int N, int K) {
  constexpr int ROWS_PER_THREAD = BM / 8;  // blockDim = (BN, 8)
  __shared__ float xs[BM][BK + 1];
  __shared__ float ws[BN][BK + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[ROWS_PER_THREAD];
#pragma unroll
  for (int i = 0; i < ROWS_PER_THREAD; ++i) acc[i] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int r = ty; r < BM; r += 8) {
      for (int k = tx; k < BK; k += BN) {
        xs[r][k] = (m0 + r < M && k0 + k < K) ? X[(size_t)(m0 + r) * K + k0 + k] : 0.0f;
      }
    }
    for (int r = ty; r < BN; r += 8) {
      for (int k = tx; k < BK; k += BN) {
        ws[r][k] = (n0 + r < N && k0 + k < K) ? W[(size_t)(n0 + r) * K + k0 + k] : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < BK; ++k) {
      const float w = ws[tx][k];
#pragma unroll
      for (int i = 0; i < ROWS_PER_THREAD; ++i) acc[i] = fmaf(xs[ty + 8 * i][k], w, acc[i]);
    }
    __syncthreads();
  }
  const int n = n0 + tx;
  if (n >= N) return;
  const float b = bias[n];
#pragma unroll
  for (int i = 0; i < ROWS_PER_THREAD; ++i) {
    const int m = m0 + ty + 8 * i;
    if (m < M) Y[(size_t)m * N + n] = fmaxf(acc[i] + b, 0.0f);
  }
}
