// Trusted reference for level1/1_Square_matrix_multiplication_: C = A @ B, row-major N x N.
// One thread per output element (x -> column, y -> row), the dot product accumulated in
// double and rounded once to fp32.
extern "C" __global__ void matmul_ref(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= N || col >= N) return;
  const size_t n = (size_t)N;
  double acc = 0.0;
  for (int k = 0; k < N; ++k) {
    acc += (double)A[(size_t)row * n + k] * (double)B[(size_t)k * n + col];
  }
  C[(size_t)row * n + col] = (float)acc;
}
