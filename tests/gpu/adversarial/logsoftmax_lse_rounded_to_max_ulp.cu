// Adversarial: level1/24_LogSoftmax. Expected: WRONG_ANSWER (under the "large" input regime).
// Not hostile, just imprecise where it matters (issue 26): a stable, max-shifted log-softmax
// that forms the row's shift m + log(s) first and then y = x - (m + log(s)). Rounding m + log(s)
// to float loses log(s) below half an ulp of m (1.5e-5 at |x| ~ 500, 4.9e-4 at |x| ~ 1e4), so
// the outputs near 0, the log-probabilities of the likely classes (a confident prediction's
// loss), are off by up to that much: outside atol = 1e-5 under the "large" regime (x100 logits),
// which the bench deck always times (worker/judge/regime_deck.h). The corpus kernel it came from
// (tests/corpus/level1/24_LogSoftmax/cooperative_groups_reduce.cu, GPU corpus run 2026-11-28:
// 532 elements outside at the bench shape, max error 1.2e-4 where |ref| is small) now computes
// (x - m) - log(s), as the problem's example and PyTorch do: x - m is exact near the max
// (Sterbenz), so the outputs near 0 keep full accuracy. CPU emulation (its block-256 order,
// float32 against float64): 18 of 128 bench rows (N = 393,216) in 'large' have an element
// outside under atol 1e-5, rtol 3e-5 (rtol was raised from 1e-5 for the 'zeros' regime; the
// outputs that fail here are near 0, where atol decides), so every bench input set in 'large'
// fails. At the x30 test shape only 27 of 300 sets in 'large' fail: a chance catch there.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

/* kjudge-plan
log_softmax_cg<<<M, 256>>>(X, Y, M, N);
*/

__device__ float block_allreduce_max(cg::thread_block& block, cg::thread_block_tile<32>& warp, float v, float* sh) {
  v = cg::reduce(warp, v, cg::greater<float>());
  if (warp.thread_rank() == 0) sh[warp.meta_group_rank()] = v;
  block.sync();
  float r = sh[0];
  for (unsigned w = 1; w < warp.meta_group_size(); ++w) r = fmaxf(r, sh[w]);
  block.sync();
  return r;
}

__device__ float block_allreduce_sum(cg::thread_block& block, cg::thread_block_tile<32>& warp, float v, float* sh) {
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) sh[warp.meta_group_rank()] = v;
  block.sync();
  float r = 0.0f;
  for (unsigned w = 0; w < warp.meta_group_size(); ++w) r += sh[w];
  block.sync();
  return r;
}

extern "C" __global__ void __launch_bounds__(256)
log_softmax_cg(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  __shared__ float sh[8];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;

  float m = x[0];
  for (int i = block.thread_rank(); i < N; i += block.size()) m = fmaxf(m, x[i]);
  m = block_allreduce_max(block, warp, m, sh);
  float s = 0.0f;
  for (int i = block.thread_rank(); i < N; i += block.size()) s += expf(x[i] - m);
  s = block_allreduce_sum(block, warp, s, sh);
  const float lse = m + logf(s);
  for (int i = block.thread_rank(); i < N; i += block.size()) y[i] = x[i] - lse;
}
