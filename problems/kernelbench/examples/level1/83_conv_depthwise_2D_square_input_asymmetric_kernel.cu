// kernelbench/level1/83_conv_depthwise_2D_square_input_asymmetric_kernel
// Example solution: a direct convolution in fp32, one thread per output element (grid-stride loop,
// 64-bit flat index over batch x out-channel x depth x height x width), looping over the input
// channels of the output channel's group and the kernel window. The 2D problem runs as 3D with
// depth = 1.
// Module constants (reference.py; get_init_inputs bound positionally to __init__): kernel (3, 1),
// stride 1, padding 0, dilation 1, groups = in_channels (depthwise), no bias.
/* kjudge-plan
conv_direct<<<min(cdiv(batch_size * in_channels * out_d2 * width, 256), 1048576), 256>>>(x, conv2d_weight, out, batch_size, in_channels, in_channels, 1, height, width, 1, out_d2, width, 1, 1);
*/

#define KD 1
#define KH 3
#define KW 1
#define SD 1
#define SH 1
#define SW 1
#define PD 0
#define PH 0
#define PW 0
#define DLD 1
#define DLH 1
#define DLW 1

// X: [B, CI, D, H, W]; Wt: [CO, CIG, KD, KH, KW]; Y: [B, CO, OD, OH, OW].
// CIG / COG: input / output channels per group.
extern "C" __global__ void __launch_bounds__(256)
conv_direct(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
            int B, int CI, int CO, int D, int H, int W, int OD, int OH, int OW, int CIG, int COG) {
  const long long n = (long long)B * CO * OD * OH * OW;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    long long r = i;
    const int ow = (int)(r % OW);
    r /= OW;
    const int oh = (int)(r % OH);
    r /= OH;
    const int od = (int)(r % OD);
    r /= OD;
    const int co = (int)(r % CO);
    const int b = (int)(r / CO);
    float acc = 0.0f;
    const int g = co / COG;
    for (int cl = 0; cl < CIG; ++cl) {
      const int ci = g * CIG + cl;
      const float* __restrict__ xc = X + ((size_t)b * CI + ci) * (size_t)D * H * W;
      const float* __restrict__ wc = Wt + ((size_t)co * CIG + cl) * (KD * KH * KW);
      for (int kd = 0; kd < KD; ++kd) {
        const int id = od * SD - PD + kd * DLD;
        if (id < 0 || id >= D) continue;
        for (int kh = 0; kh < KH; ++kh) {
          const int ih = oh * SH - PH + kh * DLH;
          if (ih < 0 || ih >= H) continue;
          for (int kw = 0; kw < KW; ++kw) {
            const int iw = ow * SW - PW + kw * DLW;
            if (iw < 0 || iw >= W) continue;
            acc = fmaf(xc[((size_t)id * H + ih) * W + iw], wc[(kd * KH + kh) * KW + kw], acc);
          }
        }
      }
    }
    Y[i] = acc;
  }
}
