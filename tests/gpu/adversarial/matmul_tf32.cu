// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER.
// Lower precision than allowed: rounds both operands to TF32 (10-bit mantissa) with the
// `cvt.rna.tf32.f32` PTX instruction before a plain FP32 FMA loop, i.e. what a TF32 tensor-core
// GEMM computes. The relative L2 error (~3e-4) is far above the problem's 1e-5.
/* kjudge-plan
gemm_tf32<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
*/

__device__ __forceinline__ float to_tf32(float x) {
  unsigned int r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

extern "C" __global__ void gemm_tf32(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int N) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y;
  const int col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 16) {
    const int ka = k0 + threadIdx.x;
    const int kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < N && ka < N) ? to_tf32(A[(size_t)row * N + ka]) : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < N && col < N) ? to_tf32(B[(size_t)kb * N + col]) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < N && col < N) C[(size_t)row * N + col] = acc;
}
