// level1/63_conv_standard_2D__square_input__square_kernel example solution: direct convolution.
// Block (32 x 8 threads) = a 8 x 32 tile of output pixels of one (b, o) pair (blockIdx.z =
// b * CO + o); the CI * K * K weights of filter o are staged in dynamic shared memory and every
// thread accumulates its pixel in fp32 (FMA). Neighbouring threads read neighbouring input
// columns, so loads are coalesced and the K x K window overlap is served by L1.
/* kjudge-plan
conv2d<<<dim3(cdiv(W - K + 1, 32), cdiv(H - K + 1, 8), B * CO), dim3(32, 8), CI * K * K * 4>>>(X, Wt, Y, B, CI, CO, H, W, K);
*/

extern "C" __global__ void __launch_bounds__(256)
conv2d(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, int B,
       int CI, int CO, int H, int W, int K) {
  extern __shared__ float w_s[];  // CI * K * K weights of filter o
  const int o = blockIdx.z % CO;
  const int b = blockIdx.z / CO;
  const int n_w = CI * K * K;
  const int tid = threadIdx.y * 32 + threadIdx.x;
  for (int k = tid; k < n_w; k += 256) w_s[k] = Wt[(size_t)o * n_w + k];
  __syncthreads();
  const int HO = H - K + 1, WO = W - K + 1;
  const int j = blockIdx.x * 32 + threadIdx.x;
  const int i = blockIdx.y * 8 + threadIdx.y;
  if (b >= B || i >= HO || j >= WO) return;
  float acc = 0.0f;
  for (int c = 0; c < CI; ++c) {
    const float* __restrict__ x = X + ((size_t)b * CI + c) * (size_t)H * (size_t)W + (size_t)i * W + j;
    const float* w = w_s + c * K * K;
    for (int p = 0; p < K; ++p) {
      const float* __restrict__ xr = x + (size_t)p * W;
      for (int q = 0; q < K; ++q) acc = fmaf(xr[q], w[p * K + q], acc);
    }
  }
  Y[(((size_t)b * CO + o) * HO + i) * (size_t)WO + j] = acc;
}
