// Style: #include <cstdint> with int64_t/uintptr_t, float4 path with an alignment check and scalar tail.
#include <cstdint>

/* kjudge-plan
leaky_relu_vec<<<min(cdiv(M * N, 1024), 16384), 256>>>(X, Y, M * N, negative_slope);
*/

__device__ __forceinline__ float leaky(float v, float slope) { return v >= 0.0f ? v : v * slope; }

extern "C" __global__ void leaky_relu_vec(const float* __restrict__ X, float* __restrict__ Y,
                                          int64_t n, float slope) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  int64_t done = 0;
  if ((reinterpret_cast<uintptr_t>(X) % 16 == 0) && (reinterpret_cast<uintptr_t>(Y) % 16 == 0)) {
    const int64_t nvec = n >> 2;
    for (int64_t i = tid; i < nvec; i += stride) {
      float4 v = reinterpret_cast<const float4*>(X)[i];
      v.x = leaky(v.x, slope);
      v.y = leaky(v.y, slope);
      v.z = leaky(v.z, slope);
      v.w = leaky(v.w, slope);
      reinterpret_cast<float4*>(Y)[i] = v;
    }
    done = nvec << 2;
  }
  for (int64_t i = done + tid; i < n; i += stride) Y[i] = leaky(X[i], slope);
}
