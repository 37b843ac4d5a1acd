// Style: #include <math.h> (INFINITY, logf, expf), warp per row with __shfl_down_sync + __shfl_sync broadcast, two passes.
#include <math.h>

/* kjudge-plan
log_softmax_warp<<<cdiv(M, 4), 128>>>(X, Y, M, N);
*/

__device__ __forceinline__ float warp_max(float v) {
  for (int d = 16; d >= 1; d /= 2) v = fmaxf(v, __shfl_down_sync(0xFFFFFFFF, v, d));
  return __shfl_sync(0xFFFFFFFF, v, 0);
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d >= 1; d /= 2) v += __shfl_down_sync(0xFFFFFFFF, v, d);
  return __shfl_sync(0xFFFFFFFF, v, 0);
}

extern "C" __global__ void log_softmax_warp(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float mx = -INFINITY;
  for (int j = lane; j < N; j += 32) mx = fmaxf(mx, x[j]);
  mx = warp_max(mx);
  float sum = 0.f;
  for (int j = lane; j < N; j += 32) sum += expf(x[j] - mx);
  sum = warp_sum(sum);
  // (x - max) - log(sum), not x - (max + log(sum)): at |x| ~ 400 the sum max + log(sum) rounds
  // to 3e-5, which lands in every output near 0 (the stress shape's tolerance is 1e-5 there).
  const float log_sum = logf(sum);
  float* y = Y + (size_t)row * N;
  for (int j = lane; j < N; j += 32) y[j] = (x[j] - mx) - log_sum;
}
