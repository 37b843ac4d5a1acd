// kernelbench level1/39_L2Norm_ example solution (kernel from problems/level1/39_L2Norm_):
// one 1024-thread block per row. Each thread accumulates x^2 over its strided elements in
// fp32, the block sums the 1024 partials (warp shuffles, then one warp over the 32 warp
// totals), and the row is read a second time to write out = x * (1 / norm).
/* kjudge-plan
l2_norm_rows<<<batch_size, 1024>>>(x, out, batch_size, dim);
*/
#define NT 1024

extern "C" __global__ void __launch_bounds__(NT)
l2_norm_rows(const float* __restrict__ X, float* __restrict__ Y, int B, int D) {
  __shared__ float tot[NT / 32];
  __shared__ float inv_norm;
  const int row = blockIdx.x;
  if (row >= B) return;
  const float* __restrict__ x = X + (size_t)row * (size_t)D;
  float* __restrict__ y = Y + (size_t)row * (size_t)D;
  const int t = threadIdx.x;
  float s = 0.0f;
  for (int j = t; j < D; j += NT) {
    const float v = x[j];
    s += v * v;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((t & 31) == 0) tot[t >> 5] = s;
  __syncthreads();
  if (t < 32) {
    s = tot[t];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (t == 0) inv_norm = 1.0f / sqrtf(s);
  }
  __syncthreads();
  const float inv = inv_norm;
  for (int j = t; j < D; j += NT) y[j] = x[j] * inv;
}
