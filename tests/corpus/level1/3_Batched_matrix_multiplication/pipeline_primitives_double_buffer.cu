// Style: <cuda_pipeline.h> __pipeline_memcpy_async (cp.async) into double-buffered shared-memory tiles, __pipeline_commit/__pipeline_wait_prior, batch index from blockIdx.z.
#include <cuda_pipeline.h>

/* kjudge-plan
bmm_cp_async<<<dim3(cdiv(N, 32), cdiv(M, 32), BATCH), dim3(32, 8)>>>(A, B, C, M, N, K);
*/

#define TS 32  // output tile 32 x 32; each thread (32 x 8 threads) computes 4 rows of one column

// Stage a 32 x 32 tile of A (rows m0.., cols k0..) and of B (rows k0.., cols n0..); elements
// outside the matrices are zero-filled with plain stores, the rest copied asynchronously.
__device__ __forceinline__ void stage(float (*As)[TS], float (*Bs)[TS + 1], const float* __restrict__ A,
                                      const float* __restrict__ B, int M, int N, int K, int m0, int n0, int k0) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int r = ty; r < TS; r += 8) {
    const int gm = m0 + r, gk = k0 + tx;
    if (gm < M && gk < K) __pipeline_memcpy_async(&As[r][tx], &A[(size_t)gm * K + gk], sizeof(float));
    else As[r][tx] = 0.0f;
    const int bk = k0 + r, bn = n0 + tx;
    if (bk < K && bn < N) __pipeline_memcpy_async(&Bs[r][tx], &B[(size_t)bk * N + bn], sizeof(float));
    else Bs[r][tx] = 0.0f;
  }
  __pipeline_commit();
}

extern "C" __global__ void __launch_bounds__(256)
bmm_cp_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[2][TS][TS];
  __shared__ float Bs[2][TS][TS + 1];
  const size_t batch = blockIdx.z;
  A += batch * (size_t)M * K;
  B += batch * (size_t)K * N;
  C += batch * (size_t)M * N;
  const int m0 = blockIdx.y * TS, n0 = blockIdx.x * TS;
  const int tx = threadIdx.x, ty = threadIdx.y;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};

  const int tiles = (K + TS - 1) / TS;
  stage(As[0], Bs[0], A, B, M, N, K, m0, n0, 0);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < tiles) {
      stage(As[cur ^ 1], Bs[cur ^ 1], A, B, M, N, K, m0, n0, (t + 1) * TS);
      __pipeline_wait_prior(1);  // everything but the newest batch has landed
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TS; ++k) {
      const float b = Bs[cur][k][tx];
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] = fmaf(As[cur][ty + 8 * i][k], b, acc[i]);
    }
    __syncthreads();  // the next iteration's stage() overwrites this buffer
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int gm = m0 + ty + 8 * i, gn = n0 + tx;
    if (gm < M && gn < N) C[(size_t)gm * N + gn] = acc[i];
  }
}
