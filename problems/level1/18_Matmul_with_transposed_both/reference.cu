// Trusted reference for level1/18_Matmul_with_transposed_both: C = A^T @ B^T, where A is stored
// as a K x M matrix and B as an N x K matrix.
// One thread per output element (x -> column, y -> row), the dot product accumulated in double
// and rounded once to fp32.
extern "C" __global__ void matmul_ref(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) {
    acc += (double)A[(size_t)k * M + row] * (double)B[(size_t)col * K + k];
  }
  C[(size_t)row * N + col] = (float)acc;
}
