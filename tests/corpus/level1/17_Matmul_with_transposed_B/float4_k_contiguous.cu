// Style: C = A B^T with both operands K-contiguous: float4 loads along K when K % 4 == 0 and pointers are aligned (scalar fallback), transposed stores into shared memory, 64x64 tile with 4x4 per thread.
/* kjudge-plan
matmul_abt<<<dim3(cdiv(N, 64), cdiv(M, 64)), 256>>>(A, B, C, M, N, K);
*/

#define TILE 64
#define BK 16

__device__ __forceinline__ void load_k4(const float* __restrict__ P, int rows, int K, int r, int k, bool vec, float v[4]) {
  if (vec && r < rows && k < K) {
    const float4 t = *reinterpret_cast<const float4*>(P + (size_t)r * K + k);
    v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
    return;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) v[q] = (r < rows && k + q < K) ? P[(size_t)r * K + k + q] : 0.0f;
}

extern "C" __global__ void __launch_bounds__(256)
matmul_abt(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[BK][TILE + 4];
  __shared__ float Bs[BK][TILE + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
  const int ty = tid / 16, tx = tid % 16;
  const bool vec = (K % 4 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
  const int lr = tid / 4;         // tile row this thread loads (0..63)
  const int lk = (tid % 4) * 4;   // first of its four K columns
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    float va[4], vb[4];
    load_k4(A, M, K, m0 + lr, k0 + lk, vec, va);
    load_k4(B, N, K, n0 + lr, k0 + lk, vec, vb);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      As[lk + q][lr] = va[q];
      Bs[lk + q][lr] = vb[q];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float a = As[k][ty + 16 * i];
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a, Bs[k][tx + 16 * j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + ty + 16 * i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int n = n0 + tx + 16 * j;
      if (n < N) C[(size_t)m * N + n] = acc[i][j];
    }
  }
}
