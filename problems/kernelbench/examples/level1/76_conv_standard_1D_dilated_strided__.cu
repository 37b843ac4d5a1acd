// kernelbench/level1/76_conv_standard_1D_dilated_strided__
// Example solution (the kernel of the hand-made level1/76 twin): direct convolution. Block =
// 256 consecutive outputs t of one (b, o) pair (blockIdx.y = b * out_channels + o); the
// in_channels * kernel_size weights of filter o are staged in dynamic shared memory, each thread
// accumulates its output in fp32.
// Module constants (reference.py; get_init_inputs bound positionally to __init__): stride 3,
// dilation 4, no padding, no bias. The output length out_d2 = (length - 4 * (kernel_size - 1) - 1)
// / 3 + 1 is a size of the spec, passed as LO.
/* kjudge-plan
conv1d<<<dim3(cdiv(out_d2, 256), batch_size * out_channels), 256, in_channels * kernel_size * 4>>>(x, conv1d_weight, out, batch_size, in_channels, out_channels, length, kernel_size, out_d2);
*/

#define STRIDE 3
#define DIL 4

extern "C" __global__ void __launch_bounds__(256)
conv1d(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, int B,
       int CI, int CO, int L, int K, int LO) {
  extern __shared__ float w_s[];  // CI * K weights of filter o
  const int o = blockIdx.y % CO;
  const int b = blockIdx.y / CO;
  const int n_w = CI * K;
  for (int k = threadIdx.x; k < n_w; k += 256) w_s[k] = Wt[(size_t)o * n_w + k];
  __syncthreads();
  const long long t = (long long)blockIdx.x * 256 + threadIdx.x;
  if (b >= B || t >= LO) return;
  const float* __restrict__ x = X + (size_t)b * CI * (size_t)L + (size_t)t * STRIDE;
  float acc = 0.0f;
  for (int c = 0; c < CI; ++c) {
    const float* __restrict__ xc = x + (size_t)c * L;
    const float* w = w_s + c * K;
    for (int k = 0; k < K; ++k) acc = fmaf(xc[(size_t)k * DIL], w[k], acc);
  }
  Y[((size_t)b * CO + o) * (size_t)LO + t] = acc;
}
