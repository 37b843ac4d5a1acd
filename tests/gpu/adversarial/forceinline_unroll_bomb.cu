// Adversarial: level1/19_ReLU. Expected: COMPILE_ERROR.
// A code-size bomb: a chain of 24 __forceinline__ functions, each calling the next twice,
// bottoming out in a fully unrolled 4096-iteration loop: 2^24 x 4096 inlined FMAs (~7e10
// instructions) for the front end, NVVM and ptxas to chew through. The compiler's CPU/memory
// limits must stop it and report COMPILE_ERROR.
/* kjudge-plan
relu_inline_bomb<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ __forceinline__ float leaf(float x, const float* X) {
  float acc = x;
#pragma unroll
  for (int k = 0; k < 4096; ++k) acc = fmaf(acc, X[k & 255], (float)k);
  return acc;
}

#define LEVEL(n, m) \
  __device__ __forceinline__ float f##n(float x, const float* X) { return f##m(x, X) * f##m(x + 1.0f, X); }
__device__ __forceinline__ float f0(float x, const float* X) { return leaf(x, X); }
LEVEL(1, 0) LEVEL(2, 1) LEVEL(3, 2) LEVEL(4, 3) LEVEL(5, 4) LEVEL(6, 5) LEVEL(7, 6) LEVEL(8, 7)
LEVEL(9, 8) LEVEL(10, 9) LEVEL(11, 10) LEVEL(12, 11) LEVEL(13, 12) LEVEL(14, 13) LEVEL(15, 14)
LEVEL(16, 15) LEVEL(17, 16) LEVEL(18, 17) LEVEL(19, 18) LEVEL(20, 19) LEVEL(21, 20)
LEVEL(22, 21) LEVEL(23, 22) LEVEL(24, 23)

extern "C" __global__ void relu_inline_bomb(const float* __restrict__ X, float* __restrict__ Y,
                                            long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.0f) + 0.0f * f24(X[i], X);
}
