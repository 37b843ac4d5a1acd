// kernelbench/level1/31_ELU example solution, the kernels of problems/level1/31_ELU
// (renamed to KernelBench's tensor and size names).
// alpha = 1.0 is the module constant (get_init_inputs, hard-coded).
// Method: ELU with expm1f on the negative branch.
// A grid-stride loop over float4 (16-byte) loads and stores, then a scalar tail for the last
// (n % 4) elements; scalar accesses throughout when a pointer is not 16-byte aligned. Indices
// are 64-bit: the benchmark has 1.6e9 elements.
/* kjudge-plan
elu_vec4<<<min(cdiv(batch_size * dim, 1024), 16384), 256>>>(x, out, batch_size * dim);
*/

__device__ __forceinline__ float act(float x, float alpha) {
  return x > 0.0f ? x : alpha * expm1f(x);
}

extern "C" __global__ void __launch_bounds__(256)
elu_vec4(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const float alpha = 1.0f;  // the module constant
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
      v.x = act(v.x, alpha);
      v.y = act(v.y, alpha);
      v.z = act(v.z, alpha);
      v.w = act(v.w, alpha);
      Y4[i] = v;
    }
    done = n4 * 4;
  }
  for (size_t i = done + tid; i < total; i += stride) {
    Y[i] = act(X[i], alpha);
  }
}
