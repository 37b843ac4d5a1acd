// kernelbench/level1/73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped
// Example solution: a direct transposed convolution in fp32, one thread per output element (grid-
// stride loop, 64-bit flat index over batch x out-channel x depth x height x width), looping over
// the input channels of the output channel's group and the kernel window.
// Module constants (reference.py; get_init_inputs bound positionally to __init__): kernel 3x3x3,
// stride 2, padding 1, groups 1 and output_padding 0: get_init_inputs' 6th value (4) binds to
// __init__'s output_padding, which the module never passes to ConvTranspose3d, so the layer is NOT
// grouped (its weight is [CI, CO, 3, 3, 3]).
/* kjudge-plan
conv_transpose_direct<<<min(cdiv(batch_size * out_channels * out_d2 * out_d3 * out_d4, 256), 1048576), 256>>>(x, conv_transpose3d_weight, out, batch_size, in_channels, out_channels, depth, height, width, out_d2, out_d3, out_d4, in_channels, out_channels);
*/

#define KD 3
#define KH 3
#define KW 3
#define SD 2
#define SH 2
#define SW 2
#define PD 1
#define PH 1
#define PW 1
#define DLD 1
#define DLH 1
#define DLW 1

// X: [B, CI, D, H, W]; Wt: [CI, COG, KD, KH, KW] (ConvTranspose layout); Y: [B, CO, OD, OH, OW].
// CIG / COG: input / output channels per group.
extern "C" __global__ void __launch_bounds__(256)
conv_transpose_direct(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
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
    // Output position o receives input position p through kernel tap k when
    // o = p * S - P + k * DL, i.e. p = (o + P - k * DL) / S where that division is exact.
    float acc = 0.0f;
    const int g = co / COG;
    const int cl_out = co - g * COG;
    for (int cl = 0; cl < CIG; ++cl) {
      const int ci = g * CIG + cl;
      const float* __restrict__ xc = X + ((size_t)b * CI + ci) * (size_t)D * H * W;
      const float* __restrict__ wc = Wt + ((size_t)ci * COG + cl_out) * (KD * KH * KW);
      for (int kd = 0; kd < KD; ++kd) {
        const int td = od + PD - kd * DLD;
        if (td < 0 || td % SD != 0) continue;
        const int id = td / SD;
        if (id >= D) continue;
        for (int kh = 0; kh < KH; ++kh) {
          const int th = oh + PH - kh * DLH;
          if (th < 0 || th % SH != 0) continue;
          const int ih = th / SH;
          if (ih >= H) continue;
          for (int kw = 0; kw < KW; ++kw) {
            const int tw = ow + PW - kw * DLW;
            if (tw < 0 || tw % SW != 0) continue;
            const int iw = tw / SW;
            if (iw >= W) continue;
            acc = fmaf(xc[((size_t)id * H + ih) * W + iw], wc[(kd * KH + kh) * KW + kw], acc);
          }
        }
      }
    }
    Y[i] = acc;
  }
}
