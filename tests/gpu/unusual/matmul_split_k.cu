// Unusual but correct: level1/1_Square_matrix_multiplication_. Expected: CORRECT.
// Split-K: the K dimension is cut into 4 contiguous chunks (blockIdx.z); each chunk's
// 64 x 64 tile partial product goes to a scratch buffer [4][N][N], and a second kernel adds
// the 4 partials of every element in a fixed order. Every (z, row, col) partial is written,
// even when its chunk is empty (N < 4), so the reduction never reads undefined scratch.
// 256 threads per tile, a 4 x 4 register block per thread (rows ty + 16 i, columns
// tx + 16 j), K in slices of 16 through shared memory with zero fill; fp32 FMA throughout.
/* kjudge-plan
scratch partial : f32[4 * N * N];
gemm_split_k<<<dim3(cdiv(N, 64), cdiv(N, 64), 4), 256>>>(A, B, partial, N);
split_k_reduce<<<min(cdiv(N * N, 256), 65536), 256>>>(partial, C, N * N, 4);
*/

#define BM 64
#define BN 64
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
gemm_split_k(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ partial,
             int N) {
  __shared__ float As[BK][BM + 1];  // As[k][r]
  __shared__ float Bs[BK][BN];      // Bs[k][c]
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int splits = gridDim.z;
  const int chunk = (N + splits - 1) / splits;
  const int kbeg = blockIdx.z * chunk;
  const int kend = min(N, kbeg + chunk);  // may be <= kbeg: empty chunk, partial = 0
  const size_t ld = (size_t)N;

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

  for (int k0 = kbeg; k0 < kend; k0 += BK) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int idx = tid + 256 * q;  // 0 .. 1023
      const int ar = idx / BK, ak = idx % BK;  // A tile: 64 rows x 16 k
      const int grow = m0 + ar, gk = k0 + ak;
      As[ak][ar] = (grow < N && gk < kend) ? A[(size_t)grow * ld + gk] : 0.0f;
      const int bk = idx / BN, bc = idx % BN;  // B tile: 16 k x 64 columns
      const int gbk = k0 + bk, gcol = n0 + bc;
      Bs[bk][bc] = (gbk < kend && gcol < N) ? B[(size_t)gbk * ld + gcol] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

  float* __restrict__ out = partial + (size_t)blockIdx.z * ld * ld;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + ty + 16 * i;
    if (row >= N) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int col = n0 + tx + 16 * j;
      if (col < N) out[(size_t)row * ld + col] = acc[i][j];
    }
  }
}

extern "C" __global__ void split_k_reduce(const float* __restrict__ partial, float* __restrict__ C,
                                          long long nn, int splits) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += stride) {
    float s = 0.0f;
    for (int z = 0; z < splits; ++z) s += partial[(size_t)z * (size_t)nn + (size_t)i];
    C[i] = s;
  }
}
