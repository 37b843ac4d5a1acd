// Style: #include <cuda_runtime.h>, nn.Linear as a 64x64-tile fp32 GEMM over K-contiguous X and W with the bias, multiplier and LeakyReLU fused into the store; scalars from the plan.
#include <cuda_runtime.h>

/* kjudge-plan
linear_mul_leaky<<<dim3(cdiv(N, 64), cdiv(M, 64)), 256>>>(X, W, B, multiplier, negative_slope, Y, M, N, K);
*/

#define TILE 64
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
linear_mul_leaky(const float* __restrict__ X, const float* __restrict__ W, const float* __restrict__ bias,
                 float multiplier, float negative_slope, float* __restrict__ Y, int M, int N, int K) {
  __shared__ float Xs[BK][TILE + 1];
  __shared__ float Ws[BK][TILE + 1];
  const int tid = threadIdx.x;
  const int ty = tid / 16, tx = tid % 16;
  const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
  float acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    // 64 rows x 16 k of each operand: 4 elements per thread, consecutive threads read consecutive k.
    for (int q = 0; q < 4; ++q) {
      const int e = tid + 256 * q;
      const int r = e / BK, k = e % BK;
      const int gk = k0 + k;
      Xs[k][r] = (m0 + r < M && gk < K) ? X[(size_t)(m0 + r) * K + gk] : 0.0f;
      Ws[k][r] = (n0 + r < N && gk < K) ? W[(size_t)(n0 + r) * K + gk] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = Xs[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Ws[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + ty + 16 * i;
    for (int j = 0; j < 4; ++j) {
      const int n = n0 + tx + 16 * j;
      if (m < M && n < N) {
        float v = (acc[i][j] + bias[n]) * multiplier;
        v = v >= 0.0f ? v : v * negative_slope;
        Y[(size_t)m * N + n] = v;
      }
    }
  }
}
