// level1/9_Tall_skinny_matrix_multiplication_ starter: C = A @ B for row-major A [M, N], B [N, M],
// C [M, M] (N is small). One thread per output element is launched below; replace the TODO
// with your kernel and adjust the plan (tiles, shared memory, ...) to match.
/* kjudge-plan
matmul<<<dim3(cdiv(M, 16), cdiv(M, 16)), dim3(16, 16)>>>(A, B, C, M, N);
*/

extern "C" __global__ void matmul(const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  // TODO: C[(size_t)row * M + col] = sum over k < N of A[(size_t)row * N + k] * B[(size_t)k * M + col].
  (void)A;
  (void)B;
  (void)C;
}
