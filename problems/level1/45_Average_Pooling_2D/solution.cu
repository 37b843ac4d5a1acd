// level1/45_Average_Pooling_2D example solution: one thread per output element in a grid-stride loop with 64-bit
// indices; consecutive threads take consecutive outputs along the last dimension, so the
// window loads of a warp are (nearly) consecutive floats and mostly hit L1 (windows overlap
// when S < K). fp32 sum times 1 / (K * K) (padding counts as zeros).
/* kjudge-plan
avg_pool2d<<<min(cdiv(B * C * ((H - K) / S + 1) * ((W - K) / S + 1), 256), 1048576), 256>>>(X, Y, B, C, H, W, K, S);
*/

extern "C" __global__ void __launch_bounds__(256)
avg_pool2d(const float* __restrict__ X, float* __restrict__ Y, int B, int C, int H, int W, int K, int S) {
  const int P = 0;  // no padding
  const long long HO = ((long long)H + 2 * P - 1 * (K - 1) - 1) / S + 1;
  const long long WO = ((long long)W + 2 * P - 1 * (K - 1) - 1) / S + 1;
  const long long n_out = (long long)B * C * HO * WO;
  const float inv_count = 1.0f / (float)(K * K);
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long wo = o % WO;
    long long r = o / WO;
    const long long ho = r % HO;
    r /= HO;  // r = b * C + c
    const float* x = X + (size_t)r * (size_t)H * (size_t)W;
    float s = 0.0f;
    for (int kh = 0; kh < K; ++kh) {
      const long long h = ho * S - P + (long long)kh * 1;
      if (h < 0 || h >= H) continue;
      for (int kw = 0; kw < K; ++kw) {
        const long long w = wo * S - P + (long long)kw * 1;
        if (w < 0 || w >= W) continue;
        const float v = x[h * W + w];
        s += v;
      }
    }
    Y[o] = s * inv_count;
  }
}
