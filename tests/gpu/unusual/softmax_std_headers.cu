// Unusual but correct: level1/23_Softmax. Expected: CORRECT.
// Written the way KernelBench-style LLM kernels are: standard headers (<cfloat>, <cstdint>,
// <cmath>, <algorithm>), a row max seeded with -INFINITY, std::max / std::exp, int64_t sizes,
// and CUB 2.x's cub::Max() / cub::Sum(), which CCCL 3 removed and kjudge's std_headers restore
// (worker/compiler/std_headers/README.md). One 256-thread block per row: max, sum, write.
/* kjudge-plan
softmax_std<<<M, 256>>>(X, Y, M, N);
*/

#include <cfloat>
#include <cstdint>
#include <cmath>
#include <algorithm>
#include <cub/block/block_reduce.cuh>

constexpr int kThreads = 256;

extern "C" __global__ void __launch_bounds__(kThreads)
softmax_std(const float* __restrict__ X, float* __restrict__ Y, int64_t M, int64_t N) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float row_max;
  __shared__ float row_inv;
  const int64_t row = blockIdx.x;
  if (row >= M) return;
  const float* __restrict__ x = X + row * N;
  float* __restrict__ y = Y + row * N;

  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < N; j += kThreads) m = std::max(m, x[j]);
  const float bm = BlockReduce(temp).Reduce(m, cub::Max());  // valid in thread 0 only
  if (threadIdx.x == 0) row_max = bm;
  __syncthreads();  // also makes `temp` reusable
  const float mx = row_max;

  float s = 0.0f;
  for (int64_t j = threadIdx.x; j < N; j += kThreads) s += std::exp(x[j] - mx);
  const float bs = BlockReduce(temp).Reduce(s, cub::Sum());
  if (threadIdx.x == 0) row_inv = 1.0f / std::max(bs, FLT_MIN);
  __syncthreads();
  const float inv = row_inv;

  for (int64_t j = threadIdx.x; j < N; j += kThreads) y[j] = std::exp(x[j] - mx) * inv;
}
