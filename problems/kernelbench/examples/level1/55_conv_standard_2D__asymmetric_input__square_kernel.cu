// kernelbench level1/55_conv_standard_2D__asymmetric_input__square_kernel example solution: a
// naive 2-D convolution (Conv2d),
// one thread per output element in a grid-stride loop with 64-bit indices; consecutive threads
// take consecutive outputs along the last axis, so input loads are coalesced and weight loads
// are warp-uniform (broadcast). fp32 accumulation with fmaf.
// Module constants (reference.py; not sizes of the spec): kernel 3 x 3, stride [1, 1], padding [0,
// 0],
// dilation [1, 1], groups 1, bias False.
/* kjudge-plan
conv2d<<<min(cdiv(batch_size * out_channels * out_d2 * out_d3, 256), 1048576), 256>>>(x, conv2d_weight, out, batch_size, in_channels, out_channels, height, width, out_d2, out_d3);
*/

#define KH 3
#define SH 1
#define PH 0
#define DH 1
#define KW 3
#define SW 1
#define PW 0
#define DW 1
#define GROUPS 1

extern "C" __global__ void __launch_bounds__(256)
conv2d(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, int N,
       int CI, int CO, int IH, int IW, int OH, int OW) {
  const int cig = CI / GROUPS;  // input channels per group
  const int cog = CO / GROUPS;  // output channels per group
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
    const int g = oc / cog;
    float acc = 0.0f;
    for (int icg = 0; icg < cig; ++icg) {
      const int ic = g * cig + icg;
      const float* __restrict__ x = X + ((size_t)n * CI + ic) * (size_t)IH * (size_t)IW;
      const float* __restrict__ w = Wt + ((size_t)oc * cig + icg) * (KH * KW);
      #pragma unroll
      for (int kh = 0; kh < KH; ++kh) {
        const int ih = oh * SH - PH + kh * DH;
        if (ih < 0 || ih >= IH) continue;
        #pragma unroll
        for (int kw = 0; kw < KW; ++kw) {
          const int iw = ow * SW - PW + kw * DW;
          if (iw < 0 || iw >= IW) continue;
          acc = fmaf(x[(size_t)ih * IW + iw], w[kh * KW + kw], acc);
        }
      }
    }
    Y[o] = acc;
  }
}
