// Style: float4 vectorised grid-stride loop, x * sigmoid(x) written as x / (1 + expf(-x)), explicit tail loop.
/* kjudge-plan
swish_f4<<<min(cdiv(M * N, 1024), 65536), 256>>>(X, Y, M * N);
*/

__device__ __forceinline__ float swish(float x) { return x / (1.0f + expf(-x)); }

extern "C" __global__ void __launch_bounds__(256) swish_f4(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool ok = (reinterpret_cast<size_t>(X) % alignof(float4) == 0) && (reinterpret_cast<size_t>(Y) % alignof(float4) == 0);
  const long long nv = ok ? n / 4 : 0;
  const float4* X4 = reinterpret_cast<const float4*>(X);
  float4* Y4 = reinterpret_cast<float4*>(Y);
  for (long long i = t; i < nv; i += stride) {
    float4 a = X4[i];
    a.x = swish(a.x); a.y = swish(a.y); a.z = swish(a.z); a.w = swish(a.w);
    Y4[i] = a;
  }
  for (long long i = nv * 4 + t; i < n; i += stride) Y[i] = swish(X[i]);
}
