// Style: cooperative groups cg::memcpy_async (<cooperative_groups/memcpy_async.h>) staging the input span of 256 outputs into dynamic shared memory, cg::wait, padding filled with -INFINITY (<cmath>); dilated, strided windows.
#include <cmath>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

/* kjudge-plan
maxpool1d_span<<<dim3(cdiv((L + 2 * P - DIL * (K - 1) - 1) / S + 1, 256), B * C), 256, (255 * S + (K - 1) * DIL + 1) * 4>>>(X, Y, L, K, S, P, DIL);
*/

extern "C" __global__ void __launch_bounds__(256)
maxpool1d_span(const float* __restrict__ X, float* __restrict__ Y, int L, int K, int S, int P, int DIL) {
  extern __shared__ float span[];
  cg::thread_block block = cg::this_thread_block();
  const int LO = (L + 2 * P - DIL * (K - 1) - 1) / S + 1;
  const long long row = blockIdx.y;  // b * C + c
  const int o0 = blockIdx.x * 256;
  const int start = o0 * S - P;                    // input index of span[0]
  const int len = 255 * S + (K - 1) * DIL + 1;     // inputs the block's 256 windows can touch
  const int lo = max(start, 0);
  const int hi = min(start + len, L);              // in-bounds part [lo, hi)
  const float* x = X + row * L;
  if (hi > lo) cg::memcpy_async(block, span + (lo - start), x + lo, sizeof(float) * (size_t)(hi - lo));
  for (int i = block.thread_rank(); i < len; i += 256) {
    const int g = start + i;
    if (g < 0 || g >= L) span[i] = -INFINITY;  // padding never wins a max
  }
  cg::wait(block);
  block.sync();
  const int o = o0 + (int)block.thread_rank();
  if (o >= LO) return;
  const float* w = span + (o - o0) * S;
  float m = -INFINITY;
  for (int k = 0; k < K; ++k) m = fmaxf(m, w[k * DIL]);
  Y[row * LO + o] = m;
}
