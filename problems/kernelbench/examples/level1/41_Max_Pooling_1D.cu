// kernelbench level1/41_Max_Pooling_1D example solution (after problems/level1/41_Max_Pooling_1D):
// one thread per output element in a grid-stride loop with 64-bit indices; consecutive threads
// take consecutive outputs along the last dimension, so a warp's window loads are nearly
// consecutive floats. Module constants: kernel_size 8, stride 1, padding 4, dilation 3
// (padding never wins a max: out-of-range taps are skipped). Max in fp32 is exact.
/* kjudge-plan
max_pool1d<<<min(cdiv(batch_size * features * out_d2, 256), 1048576), 256>>>(x, out, batch_size * features, sequence_length, out_d2);
*/

#define K 8
#define S 1
#define P 4
#define DIL 3

extern "C" __global__ void __launch_bounds__(256)
max_pool1d(const float* __restrict__ X, float* __restrict__ Y, long long rows, int L, int LO) {
  const long long n_out = rows * LO;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const long long lo = o % LO;
    const long long r = o / LO;  // r = b * C + c
    const float* __restrict__ x = X + (size_t)r * (size_t)L;
    float m = __int_as_float(0xff800000);  // -inf
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long i = lo * S - P + (long long)k * DIL;
      if (i < 0 || i >= L) continue;
      m = fmaxf(m, x[i]);
    }
    Y[o] = m;
  }
}
