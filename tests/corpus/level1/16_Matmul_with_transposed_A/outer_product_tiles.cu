// Style: C = A^T B with A stored [K, M]: both tiles load coalesced straight into k-major shared memory, 64x64 tile, 4x4 outer products per thread (#pragma unroll).
/* kjudge-plan
matmul_at_b<<<dim3(cdiv(N, 64), cdiv(M, 64)), 256>>>(A, B, C, M, N, K);
*/

#define BM 64
#define BN 64
#define BK 8

extern "C" __global__ void __launch_bounds__(256)
matmul_at_b(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tr = tid / 16, tc = tid % 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const int e = tid + q * 256;
      const int k = e / BM, i = e % BM;  // consecutive threads: consecutive m (or n)
      const int gk = k0 + k;
      As[k][i] = (gk < K && m0 + i < M) ? A[(size_t)gk * M + m0 + i] : 0.0f;
      Bs[k][i] = (gk < K && n0 + i < N) ? B[(size_t)gk * N + n0 + i] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[k][tr + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tc + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + tr + 16 * i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int n = n0 + tc + 16 * j;
      if (m < M && n < N) C[(size_t)m * N + n] = acc[i][j];
    }
  }
}
