// Trusted reference for level1/13_Matmul_for_symmetric_matrices: C = S_A @ S_B where the symmetric
// matrices are given by the lower triangles of A and B (S[i][k] = X[max(i, k)][min(i, k)]).
// One thread per output element (x -> column, y -> row), the dot product accumulated in double
// and rounded once to fp32.
extern "C" __global__ void matmul_sym_ref(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ C, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= N || col >= N) return;
  const size_t n = (size_t)N;
  double acc = 0.0;
  for (int k = 0; k < N; ++k) {
    const float a = A[(size_t)max(row, k) * n + min(row, k)];
    const float b = B[(size_t)max(k, col) * n + min(k, col)];
    acc += (double)a * (double)b;
  }
  C[(size_t)row * n + col] = (float)acc;
}
