// Style: libcu++ cuda::pipeline (<cuda/pipeline>, thread scope) with cuda::memcpy_async into a two-stage shared-memory ring, producer/consumer acquire-commit-wait-release, odd sizes zero-filled.
#include <cuda/pipeline>

/* kjudge-plan
gemm_pipeline<<<dim3(cdiv(N, 32), cdiv(M, 32)), dim3(32, 8)>>>(A, B, C, M, N, K);
*/

#define TS 32
#define STAGES 2

__device__ __forceinline__ void issue_tile(cuda::pipeline<cuda::thread_scope_thread>& pipe, float (*As)[TS + 1], float (*Bs)[TS + 1],
                                           const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                           int m0, int n0, int k0) {
  pipe.producer_acquire();
  for (int r = threadIdx.y; r < TS; r += 8) {
    const int am = m0 + r, ak = k0 + threadIdx.x;
    if (am < M && ak < K) cuda::memcpy_async(&As[r][threadIdx.x], &A[(size_t)am * K + ak], cuda::aligned_size_t<4>(sizeof(float)), pipe);
    else As[r][threadIdx.x] = 0.0f;
    const int bk = k0 + r, bn = n0 + threadIdx.x;
    if (bk < K && bn < N) cuda::memcpy_async(&Bs[r][threadIdx.x], &B[(size_t)bk * N + bn], cuda::aligned_size_t<4>(sizeof(float)), pipe);
    else Bs[r][threadIdx.x] = 0.0f;
  }
  pipe.producer_commit();
}

extern "C" __global__ void __launch_bounds__(256)
gemm_pipeline(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[STAGES][TS][TS + 1];
  __shared__ float Bs[STAGES][TS][TS + 1];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int m0 = blockIdx.y * TS, n0 = blockIdx.x * TS;
  const int tiles = (K + TS - 1) / TS;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};

  issue_tile(pipe, As[0], Bs[0], A, B, M, N, K, m0, n0, 0);
  for (int t = 0; t < tiles; ++t) {
    const int s = t % STAGES;
    if (t + 1 < tiles) issue_tile(pipe, As[(t + 1) % STAGES], Bs[(t + 1) % STAGES], A, B, M, N, K, m0, n0, (t + 1) * TS);
    pipe.consumer_wait();  // the oldest committed stage: tile t
    __syncthreads();       // every thread's copies of tile t are visible
#pragma unroll 4
    for (int k = 0; k < TS; ++k) {
      const float b = Bs[s][k][threadIdx.x];
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] = fmaf(As[s][threadIdx.y + 8 * i][k], b, acc[i]);
    }
    pipe.consumer_release();
    __syncthreads();  // tile t's buffer is refilled two iterations on
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = m0 + threadIdx.y + 8 * i, c = n0 + threadIdx.x;
    if (r < M && c < N) C[(size_t)r * N + c] = acc[i];
  }
}
