// kernelbench level1/42_Max_Pooling_2D example solution: one thread per output element in a
// grid-stride loop with 64-bit indices (consecutive threads take consecutive output columns).
// Module constants: kernel_size 4, stride 1, padding 1, dilation 1; out-of-range taps are
// skipped (padding is -inf for max pooling). Max in fp32 is exact.
/* kjudge-plan
max_pool2d<<<min(cdiv(batch_size * channels * out_d2 * out_d3, 256), 1048576), 256>>>(x, out, batch_size * channels, height, width, out_d2, out_d3);
*/

#define K 4
#define S 1
#define P 1
#define DIL 1

extern "C" __global__ void __launch_bounds__(256)
max_pool2d(const float* __restrict__ X, float* __restrict__ Y, long long planes, int H, int W,
           int HO, int WO) {
  const long long n_out = planes * HO * WO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const int wo = (int)(o % WO);
    const int ho = (int)((o / WO) % HO);
    const long long pl = o / ((long long)WO * HO);
    const float* __restrict__ x = X + (size_t)pl * (size_t)H * (size_t)W;
    float m = __int_as_float(0xff800000);  // -inf
#pragma unroll
    for (int kh = 0; kh < K; ++kh) {
      const int h = ho * S - P + kh * DIL;
      if (h < 0 || h >= H) continue;
#pragma unroll
      for (int kw = 0; kw < K; ++kw) {
        const int w = wo * S - P + kw * DIL;
        if (w < 0 || w >= W) continue;
        m = fmaxf(m, x[(size_t)h * W + w]);
      }
    }
    Y[o] = m;
  }
}
