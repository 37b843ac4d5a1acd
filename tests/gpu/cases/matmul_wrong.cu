// Expected: WRONG_ANSWER on level1/1_Square_matrix_multiplication_.
// Computes A @ B^T instead of A @ B (B indexed as B[col][k]): right only for N = 1.
/* kjudge-plan
matmul_bt<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
*/

extern "C" __global__ void matmul_bt(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= N || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) {
    acc = fmaf(A[(size_t)row * N + k], B[(size_t)col * N + k], acc);  // should be B[k * N + col]
  }
  C[(size_t)row * N + col] = acc;
}
