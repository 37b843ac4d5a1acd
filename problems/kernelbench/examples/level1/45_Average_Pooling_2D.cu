// kernelbench level1/45_Average_Pooling_2D example solution: one thread per output element in a
// grid-stride loop with 64-bit indices. Module constants: kernel_size 11, stride = kernel_size
// (nn.AvgPool2d's default), padding 0, so every window lies inside the input; divisor 121.
/* kjudge-plan
avg_pool2d<<<min(cdiv(batch_size * channels * out_d2 * out_d3, 256), 1048576), 256>>>(x, out, batch_size * channels, height, width, out_d2, out_d3);
*/

#define K 11
#define S 11
#define P 0

extern "C" __global__ void __launch_bounds__(256)
avg_pool2d(const float* __restrict__ X, float* __restrict__ Y, long long planes, int H, int W,
           int HO, int WO) {
  const long long n_out = planes * HO * WO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const int wo = (int)(o % WO);
    const int ho = (int)((o / WO) % HO);
    const long long pl = o / ((long long)WO * HO);
    const float* __restrict__ x = X + (size_t)pl * (size_t)H * (size_t)W;
    float s = 0.0f;
    for (int kh = 0; kh < K; ++kh) {
      const int h = ho * S - P + kh;
      if (h < 0 || h >= H) continue;
      for (int kw = 0; kw < K; ++kw) {
        const int w = wo * S - P + kw;
        if (w < 0 || w >= W) continue;
        s += x[(size_t)h * W + w];
      }
    }
    Y[o] = s * (1.0f / (K * K));
  }
}
