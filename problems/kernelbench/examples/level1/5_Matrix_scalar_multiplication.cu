// kernelbench/level1/5_Matrix_scalar_multiplication example solution, the kernels of problems/level1/5_Matrix_scalar_multiplication
// (renamed to KernelBench's tensor and size names).
// s is a 0-d input tensor here (KernelBench passes a Python number), so the kernel reads it through a pointer.
// Method: a grid-stride loop over float4 (16-byte)
// loads and stores, then a scalar tail for the last (n % 4) elements; scalar accesses throughout
// when a pointer is not 16-byte aligned. Indices are 64-bit: the benchmark has 1.07e9 elements.
/* kjudge-plan
scale_vec4<<<min(cdiv(M * N, 1024), 16384), 256>>>(A, out, M * N, s);
*/

extern "C" __global__ void __launch_bounds__(256)
scale_vec4(const float* __restrict__ A, float* __restrict__ C, long long n,
           const float* __restrict__ s_ptr) {
  const float s = *s_ptr;  // a 0-d input tensor
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t total = (size_t)n;
  const bool aligned =
      ((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(C)) & 15ull) == 0;
  size_t done = 0;  // elements handled by the vector loop
  if (aligned) {
    const size_t n4 = total / 4;
    const float4* __restrict__ A4 = reinterpret_cast<const float4*>(A);
    float4* __restrict__ C4 = reinterpret_cast<float4*>(C);
    for (size_t i = tid; i < n4; i += stride) {
      float4 v = A4[i];
      v.x *= s;
      v.y *= s;
      v.z *= s;
      v.w *= s;
      C4[i] = v;
    }
    done = n4 * 4;
  }
  for (size_t i = done + tid; i < total; i += stride) C[i] = A[i] * s;
}
