// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER.
// Lower precision than allowed: converts both operands to bf16 (8-bit mantissa) and
// accumulates in fp32, like a bf16 tensor-core GEMM. Relative L2 error ~2e-3 vs 1e-5 allowed.
/* kjudge-plan
gemm_bf16<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
*/
#include <cuda_bf16.h>

extern "C" __global__ void gemm_bf16(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int N) {
  __shared__ __nv_bfloat16 As[16][16];
  __shared__ __nv_bfloat16 Bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y;
  const int col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 16) {
    const int ka = k0 + threadIdx.x;
    const int kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] =
        __float2bfloat16((row < N && ka < N) ? A[(size_t)row * N + ka] : 0.0f);
    Bs[threadIdx.y][threadIdx.x] =
        __float2bfloat16((kb < N && col < N) ? B[(size_t)kb * N + col] : 0.0f);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      acc = fmaf(__bfloat162float(As[threadIdx.y][k]), __bfloat162float(Bs[k][threadIdx.x]), acc);
    }
    __syncthreads();
  }
  if (row < N && col < N) C[(size_t)row * N + col] = acc;
}
