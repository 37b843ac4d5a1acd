// kernelbench level3/21_EfficientNetMBConv example solution (module constants: kernel_size 5,
// stride 2, padding 2, expand_ratio 6, so expand_conv exists and there is no residual: stride 2;
// BatchNorm in training mode: batch statistics, biased variance, eps 1e-5):
//   e   = ReLU6(bn(conv1x1(x)))                 [hid = expand_conv_0_weight_d0 channels, H x W]
//   d   = ReLU6(bn(depthwise5x5_s2_p2(e)))      [hid channels, out_d2 x out_d3]
//   out = bn(conv1x1(d))                        [out_channels]
// The 1x1 convolution and the statistics kernels of 25_ShuffleNetUnit; a depthwise kernel with
// the module's kernel/stride/padding. The projection is written to `out` and normalised in place.
/* kjudge-plan
scratch e : f32[batch_size * expand_conv_0_weight_d0 * x_d2 * x_d3];
scratch d : f32[batch_size * expand_conv_0_weight_d0 * out_d2 * out_d3];
scratch s1 : f32[2 * expand_conv_0_weight_d0];
scratch s2 : f32[2 * expand_conv_0_weight_d0];
scratch s3 : f32[2 * out_channels];
conv1x1<<<min(cdiv(batch_size * expand_conv_0_weight_d0 * x_d2 * x_d3, 256), 65535), 256>>>(x, expand_conv_0_weight, e, batch_size, in_channels, expand_conv_0_weight_d0, x_d2 * x_d3, 1);
bn_stats<<<expand_conv_0_weight_d0, 256>>>(e, s1, batch_size, expand_conv_0_weight_d0, x_d2 * x_d3);
bn_act<<<min(cdiv(batch_size * expand_conv_0_weight_d0 * x_d2 * x_d3, 256), 65535), 256>>>(e, s1, expand_conv_1_weight, expand_conv_1_bias, e, batch_size, expand_conv_0_weight_d0, x_d2 * x_d3, 2);
dwconv<<<min(cdiv(batch_size * expand_conv_0_weight_d0 * out_d2 * out_d3, 256), 65535), 256>>>(e, depthwise_conv_0_weight, d, batch_size, expand_conv_0_weight_d0, x_d2, x_d3, out_d2, out_d3);
bn_stats<<<expand_conv_0_weight_d0, 256>>>(d, s2, batch_size, expand_conv_0_weight_d0, out_d2 * out_d3);
bn_act<<<min(cdiv(batch_size * expand_conv_0_weight_d0 * out_d2 * out_d3, 256), 65535), 256>>>(d, s2, depthwise_conv_1_weight, depthwise_conv_1_bias, d, batch_size, expand_conv_0_weight_d0, out_d2 * out_d3, 2);
conv1x1<<<min(cdiv(batch_size * out_channels * out_d2 * out_d3, 256), 65535), 256>>>(d, project_conv_0_weight, out, batch_size, expand_conv_0_weight_d0, out_channels, out_d2 * out_d3, 1);
bn_stats<<<out_channels, 256>>>(out, s3, batch_size, out_channels, out_d2 * out_d3);
bn_act<<<min(cdiv(batch_size * out_channels * out_d2 * out_d3, 256), 65535), 256>>>(out, s3, project_conv_1_weight, project_conv_1_bias, out, batch_size, out_channels, out_d2 * out_d3, 0);
*/

#define BN_EPS 1e-5f
#define DW_K 5
#define DW_STRIDE 2
#define DW_PAD 2

// Grouped 1x1 convolution, NCHW, no bias: Y[n, o, p] = sum_{i < CI/G} X[n, g*(CI/G) + i, p] *
// Wt[o, i] with g = o / (CO/G). One thread per output element, p (pixel) fastest.
extern "C" __global__ void conv1x1(const float* __restrict__ X, const float* __restrict__ Wt,
                                   float* __restrict__ Y, long long N, int CI, int CO,
                                   long long HW, int G) {
  const int cig = CI / G, cog = CO / G;
  const long long total = N * CO * HW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long p = i % HW;
    const int o = (int)((i / HW) % CO);
    const long long n = i / (HW * CO);
    const int g = o / cog;
    const float* x = X + (n * CI + (long long)g * cig) * HW + p;
    const float* w = Wt + (long long)o * cig;
    float acc = 0.0f;
    for (int c = 0; c < cig; ++c) acc = fmaf(x[(long long)c * HW], w[c], acc);
    Y[i] = acc;
  }
}

// Training-mode BatchNorm statistics of channel c = blockIdx.x of X[N, C, HW]: mean to st[2c],
// biased variance to st[2c + 1]; threads stride over the channel's N*HW values (double sums),
// then a shared-memory tree reduction (blockDim.x = 256).
extern "C" __global__ void bn_stats(const float* __restrict__ X, float* __restrict__ st,
                                    long long N, int C, long long HW) {
  __shared__ double s_sum[256];
  __shared__ double s_sq[256];
  const int c = blockIdx.x;
  const long long cnt = N * HW;
  double s = 0.0, q = 0.0;
  for (long long j = threadIdx.x; j < cnt; j += blockDim.x) {
    const long long n = j / HW, p = j % HW;
    const double v = X[(n * C + c) * HW + p];
    s += v;
    q += v * v;
  }
  s_sum[threadIdx.x] = s;
  s_sq[threadIdx.x] = q;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if ((int)threadIdx.x < half) {
      s_sum[threadIdx.x] += s_sum[threadIdx.x + half];
      s_sq[threadIdx.x] += s_sq[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double mean = s_sum[0] / (double)cnt;
    double var = s_sq[0] / (double)cnt - mean * mean;
    if (var < 0.0) var = 0.0;
    st[2 * c] = (float)mean;
    st[2 * c + 1] = (float)var;
  }
}


// Y = act(gamma * (X - mean) * rsqrt(var + eps) + beta) per channel; act 0: none, 1: ReLU,
// 2: ReLU6 (min(max(v, 0), 6)). X may equal Y (in place).
extern "C" __global__ void bn_act(const float* X, const float* __restrict__ st,
                                  const float* __restrict__ gamma, const float* __restrict__ beta,
                                  float* Y, long long N, int C, long long HW, int act) {
  const long long total = N * C * HW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int c = (int)((i / HW) % C);
    float v = (X[i] - st[2 * c]) * rsqrtf(st[2 * c + 1] + BN_EPS) * gamma[c] + beta[c];
    if (act >= 1) v = fmaxf(v, 0.0f);
    if (act == 2) v = fminf(v, 6.0f);
    Y[i] = v;
  }
}

// Depthwise convolution (groups = channels), DW_K x DW_K, stride DW_STRIDE, zero padding DW_PAD,
// no bias: Y[n, c, oh, ow] = sum_{a, b} X[n, c, oh*s - p + a, ow*s - p + b] * Wt[c, 0, a, b].
extern "C" __global__ void dwconv(const float* __restrict__ X, const float* __restrict__ Wt,
                                  float* __restrict__ Y, long long N, int C, int H, int W,
                                  int OH, int OW) {
  const long long total = N * C * OH * OW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int ow = (int)(i % OW);
    const int oh = (int)((i / OW) % OH);
    const long long nc = i / ((long long)OW * OH);
    const int c = (int)(nc % C);
    const float* x = X + nc * H * W;
    const float* k = Wt + (long long)c * DW_K * DW_K;
    float acc = 0.0f;
    for (int a = 0; a < DW_K; ++a) {
      const int h = oh * DW_STRIDE - DW_PAD + a;
      if (h < 0 || h >= H) continue;
      for (int b = 0; b < DW_K; ++b) {
        const int w = ow * DW_STRIDE - DW_PAD + b;
        if (w < 0 || w >= W) continue;
        acc = fmaf(x[(long long)h * W + w], k[a * DW_K + b], acc);
      }
    }
    Y[i] = acc;
  }
}
