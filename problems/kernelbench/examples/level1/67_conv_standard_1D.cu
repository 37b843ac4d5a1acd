// kernelbench level1/67_conv_standard_1D example solution: a naive 1-D convolution (Conv1d),
// one thread per output element in a grid-stride loop with 64-bit indices; consecutive threads
// take consecutive outputs along the last axis, so input loads are coalesced and weight loads
// are warp-uniform (broadcast). fp32 accumulation with fmaf.
// Module constants (reference.py; not sizes of the spec): kernel 3, stride [1], padding [0],
// dilation [1], groups 1, bias False.
/* kjudge-plan
conv1d<<<min(cdiv(batch_size * out_channels * out_d2, 256), 1048576), 256>>>(x, conv1d_weight, out, batch_size, in_channels, out_channels, length, out_d2);
*/

#define KW 3
#define SW 1
#define PW 0
#define DW 1
#define GROUPS 1

extern "C" __global__ void __launch_bounds__(256)
conv1d(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, int N,
       int CI, int CO, int IW, int OW) {
  const int cig = CI / GROUPS;  // input channels per group
  const int cog = CO / GROUPS;  // output channels per group
  const long long total = (long long)N * CO * OW;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += stride) {
    long long r = o;
    const int ow = (int)(r % OW);
    r /= OW;
    const int oc = (int)(r % CO);
    const long long n = r / CO;
    const int g = oc / cog;
    float acc = 0.0f;
    for (int icg = 0; icg < cig; ++icg) {
      const int ic = g * cig + icg;
      const float* __restrict__ x = X + ((size_t)n * CI + ic) * (size_t)IW;
      const float* __restrict__ w = Wt + ((size_t)oc * cig + icg) * (KW);
      #pragma unroll
      for (int kw = 0; kw < KW; ++kw) {
        const int iw = ow * SW - PW + kw * DW;
        if (iw < 0 || iw >= IW) continue;
        acc = fmaf(x[iw], w[kw], acc);
      }
    }
    Y[o] = acc;
  }
}
