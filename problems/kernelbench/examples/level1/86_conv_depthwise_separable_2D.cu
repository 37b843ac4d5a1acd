// kernelbench/level1/86_conv_depthwise_separable_2D
// Example solution, two direct kernels in fp32 with the depthwise result in a scratch buffer:
//   depthwise3x3: one thread per element of dw = depthwise(x) (grid-stride, 64-bit index),
//                 3x3 window, stride 1, padding 1, dilation 1 (so dw is height x width);
//   pointwise:    one thread per output element, out[b, o, p] = sum_c pw[o, c] * dw[b, c, p].
// Module constants (reference.py; get_init_inputs bound positionally to __init__): kernel 3,
// stride 1, padding 1, dilation 1, groups = in_channels, no bias (both layers). The spec names
// the weights' size-1 dimensions `stride`; the kernels do not use that size.
/* kjudge-plan
scratch dw : f32[batch_size * in_channels * height * width];
depthwise3x3<<<min(cdiv(batch_size * in_channels * height * width, 256), 1048576), 256>>>(x, depthwise_weight, dw, batch_size, in_channels, height, width);
pointwise<<<min(cdiv(batch_size * out_channels * height * width, 256), 1048576), 256>>>(dw, pointwise_weight, out, batch_size, in_channels, out_channels, height * width);
*/

#define K 3
#define PAD 1

// X, Y: [B, C, H, W]; Wd: [C, 1, K, K].
extern "C" __global__ void __launch_bounds__(256)
depthwise3x3(const float* __restrict__ X, const float* __restrict__ Wd, float* __restrict__ Y,
             int B, int C, int H, int W) {
  const long long n = (long long)B * C * H * W;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int w = (int)(i % W);
    const int h = (int)((i / W) % H);
    const long long bc = i / ((long long)W * H);  // b * C + c
    const int c = (int)(bc % C);
    const float* __restrict__ xc = X + (size_t)bc * H * W;
    const float* __restrict__ wc = Wd + (size_t)c * K * K;
    float acc = 0.0f;
    for (int kh = 0; kh < K; ++kh) {
      const int ih = h - PAD + kh;
      if (ih < 0 || ih >= H) continue;
      for (int kw = 0; kw < K; ++kw) {
        const int iw = w - PAD + kw;
        if (iw < 0 || iw >= W) continue;
        acc = fmaf(xc[(size_t)ih * W + iw], wc[kh * K + kw], acc);
      }
    }
    Y[i] = acc;
  }
}

// D: [B, CI, P]; Wp: [CO, CI, 1, 1]; Y: [B, CO, P] (P = height * width pixels).
extern "C" __global__ void __launch_bounds__(256)
pointwise(const float* __restrict__ D, const float* __restrict__ Wp, float* __restrict__ Y, int B,
          int CI, int CO, int P) {
  const long long n = (long long)B * CO * P;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int p = (int)(i % P);
    const long long bo = i / P;  // b * CO + o
    const int o = (int)(bo % CO);
    const int b = (int)(bo / CO);
    const float* __restrict__ d = D + (size_t)b * CI * P + p;
    const float* __restrict__ w = Wp + (size_t)o * CI;
    float acc = 0.0f;
    for (int c = 0; c < CI; ++c) acc = fmaf(d[(size_t)c * P], w[c], acc);
    Y[i] = acc;
  }
}
