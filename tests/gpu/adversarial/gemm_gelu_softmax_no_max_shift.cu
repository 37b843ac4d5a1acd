// Adversarial: level2/99_Matmul_GELU_Softmax. Expected: WRONG_ANSWER.
// The catalog's example with one change: the row softmax skips the max shift (exp(y) / sum
// exp(y)). Exact algebra and fine on the usual O(1) logits, but on the stress shape (inputs x35,
// logits 100-200) exp overflows fp32: inf / inf = NaN.
/* kjudge-plan
gemm_fused<<<dim3(cdiv(N, 64), cdiv(M, 64)), 256>>>(X, W, B, Y, M, N, K);
softmax_rows_inplace<<<M, 256>>>(Y, M, N);
*/

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256

// Four consecutive K-elements of row r of a K-contiguous [rows, K] matrix, starting at column c
// (c a multiple of 4); zero outside the matrix. float4 only when `vec` (K % 4 == 0 and the base
// pointer 16-byte aligned, so c + 3 < K whenever c < K).
__device__ __forceinline__ void load4(const float* __restrict__ P, int rows, int K, int r, int c,
                                      bool vec, float (&v)[4]) {
  if (vec && r < rows && c < K) {
    const float4 t = *reinterpret_cast<const float4*>(P + (size_t)r * (size_t)K + c);
    v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      v[q] = (r < rows && c + q < K) ? P[(size_t)r * (size_t)K + c + q] : 0.0f;
    }
  }
}

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_fused(const float* __restrict__ A, const float* __restrict__ Bt,
    const float* __restrict__ B,
    float* __restrict__ Y, int M, int N, int K) {

  __shared__ float As[BK][BM + 4];  // As[k][m]: the A tile, transposed
  __shared__ float Bs[BK][BN + 4];  // Bs[k][n]: the Bt tile, transposed
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const bool vec = (K % 4 == 0) &&
      (((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(Bt)) & 15ull) == 0);
  const int lr = tid / 4;        // 0..63: tile row this thread loads
  const int lc = (tid % 4) * 4;  // 0, 4, 8, 12: first of its 4 k columns

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  }

  for (int k0 = 0; k0 < K; k0 += BK) {
    float av[4], bv[4];
    load4(A, M, K, m0 + lr, k0 + lc, vec, av);
    load4(Bt, N, K, n0 + lr, k0 + lc, vec, bv);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      As[lc + q][lr] = av[q];
      Bs[lc + q][lr] = bv[q];
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
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();
  }

  // Fused epilogue, straight from the accumulators (16 consecutive columns per half-warp).
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + ty + 16 * i;
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int col = n0 + tx + 16 * j;
      if (col >= N) continue;
      float v = acc[i][j];
      v += B[col];
      v = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
      Y[(size_t)row * (size_t)N + col] = v;
    }
  }
}

// Sum of `v` over the 256-thread block (every thread gets the result). `sh` holds 8 floats and
// may be reused right after the call returns (the trailing barrier protects it).
__device__ __forceinline__ float block_sum256(float v, float* sh) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = 0.0f;
#pragma unroll
  for (int w = 0; w < 8; ++w) t += sh[w];
  __syncthreads();
  return t;
}

__device__ __forceinline__ float block_max256(float v, float* sh) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = sh[0];
#pragma unroll
  for (int w = 1; w < 8; ++w) t = fmaxf(t, sh[w]);
  __syncthreads();
  return t;
}

// In-place softmax of each row of Y [M, N]: one 256-thread block per row, three passes.
extern "C" __global__ void __launch_bounds__(256)
softmax_rows_inplace(float* __restrict__ Y, int M, int N) {
  __shared__ float sh[8];
  const int row = blockIdx.x;
  if (row >= M) return;
  float* y = Y + (size_t)row * (size_t)N;
  const float m = 0.0f;  // no max shift: exp(y) overflows once y > 88.7
  float s = 0.0f;
  for (int j = threadIdx.x; j < N; j += 256) s += __expf(y[j] - m);
  s = block_sum256(s, sh);
  const float inv = 1.0f / s;
  for (int j = threadIdx.x; j < N; j += 256) y[j] = __expf(y[j] - m) * inv;
}
