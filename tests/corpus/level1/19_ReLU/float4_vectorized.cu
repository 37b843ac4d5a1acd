// Style: float4 vectorised loads/stores with __restrict__ and __ldg, alignment check, scalar tail.
/* kjudge-plan
relu_float4<<<min(cdiv(M * N, 4 * 256), 32768), 256>>>(X, Y, M * N);
*/

__device__ __forceinline__ float relu(float v) { return v > 0.0f ? v : 0.0f; }

extern "C" __global__ void __launch_bounds__(256)
relu_float4(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const bool aligned = (((size_t)x | (size_t)y) % 16) == 0;
  long long vec_end = 0;
  if (aligned) {
    const long long n4 = n / 4;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
    for (long long i = tid; i < n4; i += nthreads) {
      float4 v = __ldg(&x4[i]);
      v.x = relu(v.x);
      v.y = relu(v.y);
      v.z = relu(v.z);
      v.w = relu(v.w);
      y4[i] = v;
    }
    vec_end = n4 * 4;
  }
  // Tail (or everything, when the pointers are not 16-byte aligned).
  for (long long i = vec_end + tid; i < n; i += nthreads) y[i] = relu(__ldg(&x[i]));
}
