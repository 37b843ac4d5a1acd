// Style: generic elementwise template (element type and block size as template parameters, instantiated by the plan) applying a functor, #pragma unroll.
/* kjudge-plan
elementwise_tanh<float, 128><<<min(cdiv(M * N, 512), 65536), 128>>>(X, Y, M * N);
*/

template <typename T>
struct TanhOp {
  __device__ __forceinline__ T operator()(T v) const { return tanh(v); }
};
template <>
struct TanhOp<float> {
  __device__ __forceinline__ float operator()(float v) const { return tanhf(v); }
};

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) elementwise_tanh(const T* __restrict__ in, T* __restrict__ out, long long n) {
  TanhOp<T> op;
  const long long per_block = 4LL * BLOCK;
  for (long long base = blockIdx.x * per_block; base < n; base += per_block * gridDim.x) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const long long i = base + j * BLOCK + threadIdx.x;
      if (i < n) out[i] = op(in[i]);
    }
  }
}
