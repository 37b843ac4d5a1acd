// Style: register-tiled SGEMM with every tile size as a template parameter (BM, BN, BK, TM, TN) instantiated from the plan, #pragma unroll inner products, bounds-checked loads.
/* kjudge-plan
sgemm_tiled<64, 64, 8, 4, 4><<<dim3(cdiv(N, 64), cdiv(M, 64)), 256>>>(A, B, C, M, N, K);
*/

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  constexpr int COLS = BN / TN;  // threads across a tile row
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tr = tid / COLS;  // owns rows tr + i * (BM / TM)
  const int tc = tid % COLS;  // owns columns tc + j * COLS
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += THREADS) {
      const int r = e / BK, k = e % BK;
      const int gm = m0 + r, gk = k0 + k;
      As[k][r] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += THREADS) {
      const int k = e / BN, c = e % BN;
      const int gk = k0 + k, gn = n0 + c;
      Bs[k][c] = (gk < K && gn < N) ? B[(size_t)gk * N + gn] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][tr + i * (BM / TM)];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc + j * COLS];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int gm = m0 + tr + i * (BM / TM);
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int gn = n0 + tc + j * COLS;
      if (gm < M && gn < N) C[(size_t)gm * N + gn] = acc[i][j];
    }
  }
}
