// Style: #include <math.h> with the M_SQRT1_2 constant and erfcf (exact GELU), grid-stride loop.
#include <math.h>

/* kjudge-plan
gelu_erf<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void gelu_erf(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const float inv_sqrt2 = (float)M_SQRT1_2;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float x = X[i];
    // 0.5 * x * (1 + erf(x / sqrt 2)) == 0.5 * x * erfc(-x / sqrt 2), without the cancellation for x << 0.
    Y[i] = 0.5f * x * erfcf(-x * inv_sqrt2);
  }
}
