// Unusual but correct: level1/4_Matrix_vector_multiplication_. Expected: CORRECT.
// Cooperative groups: one 256-thread block per row of A; each thread accumulates a strided
// part of the dot product A[row] . B, then cg::tiled_partition<32>(block) tiles reduce with
// cg::reduce(tile, v, cg::plus<float>()), and the first tile reduces the 8 tile sums.
/* kjudge-plan
matvec_cg<<<M, 256>>>(A, B, C, M, K);
*/

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __launch_bounds__(256)
matvec_cg(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
          int K) {
  __shared__ float tile_sums[8];
  const int row = blockIdx.x;
  if (row >= M) return;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const float* __restrict__ a = A + (size_t)row * (size_t)K;
  float s = 0.0f;
  for (int k = threadIdx.x; k < K; k += 256) s = fmaf(a[k], B[k], s);
  s = cg::reduce(tile, s, cg::plus<float>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = s;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    float t = tile.thread_rank() < 8 ? tile_sums[tile.thread_rank()] : 0.0f;
    t = cg::reduce(tile, t, cg::plus<float>());
    if (tile.thread_rank() == 0) C[row] = t;
  }
}
