// kernelbench level1/44_Average_Pooling_1D example solution: one thread per output element in a
// grid-stride loop with 64-bit indices. Module constants: kernel_size 8, stride 1, padding 4;
// nn.AvgPool1d counts padded zeros (count_include_pad=True), so the divisor is always 8.
/* kjudge-plan
avg_pool1d<<<min(cdiv(batch_size * in_channels * out_d2, 256), 1048576), 256>>>(x, out, batch_size * in_channels, input_length, out_d2);
*/

#define K 8
#define S 1
#define P 4

extern "C" __global__ void __launch_bounds__(256)
avg_pool1d(const float* __restrict__ X, float* __restrict__ Y, long long rows, int L, int LO) {
  const long long n_out = rows * LO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long lo = o % LO;
    const long long r = o / LO;
    const float* __restrict__ x = X + (size_t)r * (size_t)L;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long i = lo * S - P + k;
      if (i < 0 || i >= L) continue;
      s += x[i];
    }
    Y[o] = s * (1.0f / K);
  }
}
