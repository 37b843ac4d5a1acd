// Style: #define'd constants, #pragma unroll over 8 independent loads per thread (ILP), scalar float argument from the plan.
/* kjudge-plan
leaky_relu_ilp<<<min(cdiv(M * N, 2048), 65536), 256>>>(X, Y, M * N, negative_slope);
*/

#define THREADS 256
#define ILP 8

extern "C" __global__ void leaky_relu_ilp(const float* __restrict__ X, float* __restrict__ Y,
                                          long long n, float negative_slope) {
  const long long chunk = (long long)THREADS * ILP;
  for (long long start = (long long)blockIdx.x * chunk; start < n; start += (long long)gridDim.x * chunk) {
    float vals[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const long long i = start + threadIdx.x + (long long)k * THREADS;
      vals[k] = i < n ? X[i] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const long long i = start + threadIdx.x + (long long)k * THREADS;
      if (i < n) Y[i] = vals[k] >= 0.0f ? vals[k] : vals[k] * negative_slope;
    }
  }
}
