// kernelbench/level1/27_SELU_ example solution, the kernels of problems/level1/27_SELU_
// (renamed to KernelBench's tensor and size names).
// Method: SELU with expm1f on the negative branch.
// A grid-stride loop over float4 (16-byte) loads and stores, then a scalar tail for the last
// (n % 4) elements; scalar accesses throughout when a pointer is not 16-byte aligned. Indices
// are 64-bit: the benchmark has 1.6e9 elements.
/* kjudge-plan
selu_vec4<<<min(cdiv(batch_size * dim, 1024), 16384), 256>>>(x, out, batch_size * dim);
*/

__device__ __forceinline__ float act(float x) {
  const float alpha = 1.6732632423543772848170429916717f;
  const float scale = 1.0507009873554804934193349852946f;
  return x > 0.0f ? scale * x : (scale * alpha) * expm1f(x);
}

extern "C" __global__ void __launch_bounds__(256)
selu_vec4(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t total = (size_t)n;
  const bool aligned =
      ((reinterpret_cast<unsigned long long>(X) | reinterpret_cast<unsigned long long>(Y)) & 15ull) == 0;
  size_t done = 0;  // elements handled by the vector loop
  if (aligned) {
    const size_t n4 = total / 4;
    const float4* __restrict__ X4 = reinterpret_cast<const float4*>(X);
    float4* __restrict__ Y4 = reinterpret_cast<float4*>(Y);
    for (size_t i = tid; i < n4; i += stride) {
      float4 v = X4[i];
      v.x = act(v.x);
      v.y = act(v.y);
      v.z = act(v.z);
      v.w = act(v.w);
      Y4[i] = v;
    }
    done = n4 * 4;
  }
  for (size_t i = done + tid; i < total; i += stride) {
    Y[i] = act(X[i]);
  }
}
