// Style: #include <math.h> with expf, float4 grid-stride loop plus tail.
#include <math.h>

/* kjudge-plan
sigmoid_vec4<<<min(cdiv(M * N, 1024), 65536), 256>>>(X, Y, M * N);
*/

__device__ inline float sigmoidf(float v) { return 1.0f / (1.0f + expf(-v)); }

extern "C" __global__ void sigmoid_vec4(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long stride = gridDim.x * (long long)blockDim.x;
  const long long n4 = ((((unsigned long long)X | (unsigned long long)Y) & 15) == 0) ? n / 4 : 0;
  for (long long i = tid; i < n4; i += stride) {
    const float4 v = ((const float4*)X)[i];
    float4 r;
    r.x = sigmoidf(v.x);
    r.y = sigmoidf(v.y);
    r.z = sigmoidf(v.z);
    r.w = sigmoidf(v.w);
    ((float4*)Y)[i] = r;
  }
  for (long long i = n4 * 4 + tid; i < n; i += stride) Y[i] = sigmoidf(X[i]);
}
