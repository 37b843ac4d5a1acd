// level1/12_Matmul_with_diagonal_matrices_ starter: C[i][j] = A[i] * B[i][j] for A [N], row-major B and
// C [N, M]. Replace the TODO with your kernel; adjust the launch plan below to match.
/* kjudge-plan
diag_matmul<<<min(cdiv(N * M, 256), 65536), 256>>>(A, B, C, N, M);
*/

extern "C" __global__ void diag_matmul(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int N, int M) {
  const long long total = (long long)N * M;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    // TODO: C[idx] = A[row] * B[idx] with row = idx / M.
    (void)A;
    (void)B;
    (void)C;
  }
}
