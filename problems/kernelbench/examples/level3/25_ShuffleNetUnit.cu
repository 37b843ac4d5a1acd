// kernelbench level3/25_ShuffleNetUnit example solution (module constants: groups 3 for conv1,
// conv3 and the shuffle; depthwise 3x3 conv2, stride 1, pad 1; no conv biases; BatchNorm in
// training mode: batch statistics, biased variance, eps 1e-5):
//   t1  = ReLU(bn1(conv1x1_g3(x)))                    [mid = conv1_weight_d0 channels]
//   t2  = shuffle(bn2(depthwise3x3(t1)))              channel j of t2 = channel
//         (j % 3) * (mid / 3) + j / 3 of bn2's output (view(B, 3, mid/3, H, W).transpose(1, 2))
//   out = ReLU(bn3(conv1x1_g3(t2))) + bn_sc(conv1x1(x))   (the ReLU is before the add)
// Direct convolutions (one thread per output element), per-channel statistics with a block per
// channel (double sums), then fused elementwise passes.
/* kjudge-plan
scratch c1 : f32[batch_size * conv1_weight_d0 * height * width];
scratch c2 : f32[batch_size * conv1_weight_d0 * height * width];
scratch c3 : f32[batch_size * out_channels * height * width];
scratch cs : f32[batch_size * out_channels * height * width];
scratch s1 : f32[2 * conv1_weight_d0];
scratch s2 : f32[2 * conv1_weight_d0];
scratch s3 : f32[2 * out_channels];
scratch ss : f32[2 * out_channels];
conv1x1<<<min(cdiv(batch_size * conv1_weight_d0 * height * width, 256), 65535), 256>>>(x, conv1_weight, c1, batch_size, input_channels, conv1_weight_d0, height * width, 3);
bn_stats<<<conv1_weight_d0, 256>>>(c1, s1, batch_size, conv1_weight_d0, height * width);
bn_apply<<<min(cdiv(batch_size * conv1_weight_d0 * height * width, 256), 65535), 256>>>(c1, s1, bn1_weight, bn1_bias, c1, batch_size, conv1_weight_d0, height * width, 1);
dwconv3x3<<<min(cdiv(batch_size * conv1_weight_d0 * height * width, 256), 65535), 256>>>(c1, conv2_weight, c2, batch_size, conv1_weight_d0, height, width);
bn_stats<<<conv1_weight_d0, 256>>>(c2, s2, batch_size, conv1_weight_d0, height * width);
bn_shuffle<<<min(cdiv(batch_size * conv1_weight_d0 * height * width, 256), 65535), 256>>>(c2, s2, bn2_weight, bn2_bias, c1, batch_size, conv1_weight_d0, height * width);
conv1x1<<<min(cdiv(batch_size * out_channels * height * width, 256), 65535), 256>>>(c1, conv3_weight, c3, batch_size, conv1_weight_d0, out_channels, height * width, 3);
bn_stats<<<out_channels, 256>>>(c3, s3, batch_size, out_channels, height * width);
conv1x1<<<min(cdiv(batch_size * out_channels * height * width, 256), 65535), 256>>>(x, shortcut_0_weight, cs, batch_size, input_channels, out_channels, height * width, 1);
bn_stats<<<out_channels, 256>>>(cs, ss, batch_size, out_channels, height * width);
bn_relu_add_bn<<<min(cdiv(batch_size * out_channels * height * width, 256), 65535), 256>>>(c3, s3, bn3_weight, bn3_bias, cs, ss, shortcut_1_weight, shortcut_1_bias, out, batch_size, out_channels, height * width);
*/

#define BN_EPS 1e-5f
#define SHUFFLE_GROUPS 3

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

// Depthwise 3x3 convolution, stride 1, zero padding 1, no bias: Y[n, c, h, w] =
// sum_{a, b < 3} X[n, c, h - 1 + a, w - 1 + b] * Wt[c, 0, a, b].
extern "C" __global__ void dwconv3x3(const float* __restrict__ X, const float* __restrict__ Wt,
                                     float* __restrict__ Y, long long N, int C, int H, int W) {
  const long long total = N * C * H * W;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int w = (int)(i % W);
    const int h = (int)((i / W) % H);
    const long long nc = i / ((long long)W * H);
    const int c = (int)(nc % C);
    const float* x = X + nc * H * W;
    const float* k = Wt + (long long)c * 9;
    float acc = 0.0f;
    for (int a = 0; a < 3; ++a) {
      const int hh = h - 1 + a;
      if (hh < 0 || hh >= H) continue;
      for (int b = 0; b < 3; ++b) {
        const int ww = w - 1 + b;
        if (ww < 0 || ww >= W) continue;
        acc = fmaf(x[(long long)hh * W + ww], k[a * 3 + b], acc);
      }
    }
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

__device__ __forceinline__ float bn(float v, const float* st, const float* gamma,
                                    const float* beta, int c) {
  return (v - st[2 * c]) * rsqrtf(st[2 * c + 1] + BN_EPS) * gamma[c] + beta[c];
}

// Y = bn(X) per channel, then ReLU when `relu`; X may equal Y (in place on scratch).
extern "C" __global__ void bn_apply(const float* X, const float* __restrict__ st,
                                    const float* __restrict__ gamma,
                                    const float* __restrict__ beta, float* Y, long long N, int C,
                                    long long HW, int relu) {
  const long long total = N * C * HW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int c = (int)((i / HW) % C);
    const float v = bn(X[i], st, gamma, beta, c);
    Y[i] = (relu && v < 0.0f) ? 0.0f : v;
  }
}

// Y[n, j, p] = bn(X[n, src, p]) with src = (j % G) * (C / G) + j / G: BatchNorm (of channel src)
// followed by the channel shuffle, view(N, G, C/G, H, W).transpose(1, 2).
extern "C" __global__ void bn_shuffle(const float* __restrict__ X, const float* __restrict__ st,
                                      const float* __restrict__ gamma,
                                      const float* __restrict__ beta, float* __restrict__ Y,
                                      long long N, int C, long long HW) {
  const int cpg = C / SHUFFLE_GROUPS;
  const long long total = N * C * HW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long p = i % HW;
    const int j = (int)((i / HW) % C);
    const long long n = i / (HW * C);
    const int src = (j % SHUFFLE_GROUPS) * cpg + j / SHUFFLE_GROUPS;
    Y[i] = bn(X[(n * C + src) * HW + p], st, gamma, beta, src);
  }
}

// Y = ReLU(bnA(A)) + bnB(B), each a training-mode BatchNorm given its statistics.
extern "C" __global__ void bn_relu_add_bn(const float* __restrict__ A, const float* __restrict__ sa,
                                          const float* __restrict__ ga,
                                          const float* __restrict__ ba,
                                          const float* __restrict__ B, const float* __restrict__ sb,
                                          const float* __restrict__ gb,
                                          const float* __restrict__ bb, float* __restrict__ Y,
                                          long long N, int C, long long HW) {
  const long long total = N * C * HW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int c = (int)((i / HW) % C);
    const float u = bn(A[i], sa, ga, ba, c);
    Y[i] = (u < 0.0f ? 0.0f : u) + bn(B[i], sb, gb, bb, c);
  }
}
