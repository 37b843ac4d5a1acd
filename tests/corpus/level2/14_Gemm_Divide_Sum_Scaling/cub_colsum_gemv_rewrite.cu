// Style: algebraic rewrite sum_n (x . w_n) = x . (sum_n w_n): kernel 1 column-sums W into scratch (coalesced, 2D block), kernel 2 is a GEMV with cub::BlockReduce; divide and scale fused.
#include <cub/block/block_reduce.cuh>

/* kjudge-plan
scratch wsum : f32[K];
column_sums<<<cdiv(K, 32), dim3(32, 8)>>>(W, wsum, N, K);
gemv_scale<<<M, 256>>>(X, wsum, Y, K, scaling_factor);
*/

extern "C" __global__ void column_sums(const float* __restrict__ W, float* __restrict__ wsum, int N, int K) {
  __shared__ double part[8][32];
  const int k = blockIdx.x * 32 + threadIdx.x;
  double s = 0.0;
  if (k < K) {
    for (int n = threadIdx.y; n < N; n += 8) s += W[(size_t)n * K + k];
  }
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && k < K) {
    double t = 0.0;
    for (int r = 0; r < 8; ++r) t += part[r][threadIdx.x];
    wsum[k] = (float)t;
  }
}

extern "C" __global__ void __launch_bounds__(256)
gemv_scale(const float* __restrict__ X, const float* __restrict__ wsum, float* __restrict__ Y, int K, float scaling_factor) {
  using Reduce = cub::BlockReduce<float, 256>;
  __shared__ typename Reduce::TempStorage temp;
  const float* x = X + (size_t)blockIdx.x * K;
  float s = 0.0f;
  for (int k = threadIdx.x; k < K; k += 256) s = fmaf(x[k], wsum[k], s);
  const float total = Reduce(temp).Sum(s);
  if (threadIdx.x == 0) Y[blockIdx.x] = total / 2.0f * scaling_factor;
}
