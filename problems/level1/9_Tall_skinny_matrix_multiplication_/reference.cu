// Trusted reference for level1/9_Tall_skinny_matrix_multiplication_: C = A @ B with A [M, N], B [N, M],
// C [M, M]. One thread per output element (x -> column, y -> row), the dot product over the
// N-long inner dimension accumulated in double and rounded once to fp32.
extern "C" __global__ void matmul_ref(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  double acc = 0.0;
  for (int k = 0; k < N; ++k) {
    acc += (double)A[(size_t)row * N + k] * (double)B[(size_t)k * M + col];
  }
  C[(size_t)row * M + col] = (float)acc;
}
