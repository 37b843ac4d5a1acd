// Style: small-K GEMM: a 64-row panel of A (all of K, in 64-wide chunks) in shared memory, B streamed with __ldg (it stays in L2), each thread 4 rows x 1 column, 2D grid.
/* kjudge-plan
small_k_gemm<<<dim3(cdiv(N, 64), cdiv(M, 64)), dim3(64, 16)>>>(A, B, C, M, N, K);
*/

#define KC 64

extern "C" __global__ void __launch_bounds__(1024)
small_k_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float a_panel[64][KC + 1];
  const int col = blockIdx.x * 64 + threadIdx.x;
  const int row0 = blockIdx.y * 64;
  const int tid = threadIdx.y * 64 + threadIdx.x;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += KC) {
    const int kc = min(KC, K - k0);
    for (int e = tid; e < 64 * KC; e += 1024) {
      const int r = e / KC, k = e % KC;
      a_panel[r][k] = (row0 + r < M && k < kc) ? A[(size_t)(row0 + r) * K + k0 + k] : 0.0f;
    }
    __syncthreads();
    if (col < N) {
      for (int k = 0; k < kc; ++k) {
        const float b = __ldg(&B[(size_t)(k0 + k) * N + col]);
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i] = fmaf(a_panel[threadIdx.y + 16 * i][k], b, acc[i]);
      }
    }
    __syncthreads();
  }
  if (col < N) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = row0 + threadIdx.y + 16 * i;
      if (r < M) C[(size_t)r * N + col] = acc[i];
    }
  }
}
