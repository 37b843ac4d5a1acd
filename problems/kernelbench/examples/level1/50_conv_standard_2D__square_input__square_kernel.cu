// kernelbench level1/50_conv_standard_2D__square_input__square_kernel example solution: a naive
// 2-D convolution with bias (AlexNet's first layer), one thread per output element in a
// grid-stride loop with 64-bit indices; consecutive threads take consecutive outputs along the
// last axis, so weight loads are warp-uniform (broadcast). fp32 accumulation with fmaf.
// Module constants (reference.py; not sizes of the spec): kernel 11 x 11, stride 4, padding 2,
// dilation 1, groups 1, bias True. Channel counts come from the spec's sizes (x_d1 in, out_d1
// out), so the kernel stays right if a shape varies them.
/* kjudge-plan
conv2d<<<min(cdiv(batch_size * out_d1 * out_d2 * out_d3, 256), 1048576), 256>>>(x, conv1_weight, conv1_bias, out, batch_size, x_d1, out_d1, x_d2, x_d3, out_d2, out_d3);
*/

#define KH 11
#define KW 11
#define SH 4
#define SW 4
#define PH 2
#define PW 2

extern "C" __global__ void __launch_bounds__(256)
conv2d(const float* __restrict__ X, const float* __restrict__ Wt, const float* __restrict__ B,
       float* __restrict__ Y, int N, int CI, int CO, int IH, int IW, int OH, int OW) {
  const long long total = (long long)N * CO * OH * OW;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += stride) {
    long long r = o;
    const int ow = (int)(r % OW);
    r /= OW;
    const int oh = (int)(r % OH);
    r /= OH;
    const int oc = (int)(r % CO);
    const long long n = r / CO;
    float acc = B[oc];
    for (int ic = 0; ic < CI; ++ic) {
      const float* __restrict__ x = X + ((size_t)n * CI + ic) * (size_t)IH * (size_t)IW;
      const float* __restrict__ w = Wt + ((size_t)oc * CI + ic) * (KH * KW);
      for (int kh = 0; kh < KH; ++kh) {
        const int ih = oh * SH - PH + kh;
        if (ih < 0 || ih >= IH) continue;
        #pragma unroll
        for (int kw = 0; kw < KW; ++kw) {
          const int iw = ow * SW - PW + kw;
          if (iw < 0 || iw >= IW) continue;
          acc = fmaf(x[(size_t)ih * IW + iw], w[kh * KW + kw], acc);
        }
      }
    }
    Y[o] = acc;
  }
}
