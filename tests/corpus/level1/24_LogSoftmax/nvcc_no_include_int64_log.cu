// Style: as nvcc accepts it: no #include at all; int64_t offsets, -INFINITY, HUGE_VALF and std::log/std::exp from nvcc's implicit prelude, one warp per row with __shfl_xor_sync.
/* kjudge-plan
log_softmax_warp_noinc<<<cdiv(M, 4), 128>>>(X, Y, M, N);
*/

__device__ __forceinline__ float warp_max(float v) {
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void __launch_bounds__(128)
log_softmax_warp_noinc(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  const int64_t row = (int64_t)blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;  // whole warps leave together
  const float* x = X + row * N;
  float* y = Y + row * N;

  float m = -HUGE_VALF;
  for (int64_t j = lane; j < N; j += 32) m = fmaxf(m, x[j]);
  m = warp_max(m);
  float s = 0.0f;
  for (int64_t j = lane; j < N; j += 32) s += std::exp(x[j] - m);
  s = warp_sum(s);
  // (x - m) - log(s), not x - (m + log(s)): m + log(s) would round to the ulp of m (4.9e-4 at
  // |x| ~ 1e4: the x30 test shape in the "large" regime), and x - m is exact near the max.
  const float m0 = (m == -INFINITY ? 0.0f : m);
  const float log_s = std::log(s);
  for (int64_t j = lane; j < N; j += 32) y[j] = (x[j] - m0) - log_s;
}
