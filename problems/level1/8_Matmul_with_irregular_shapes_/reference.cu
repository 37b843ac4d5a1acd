// Trusted reference for level1/8_Matmul_with_irregular_shapes_: C = A @ B with irregular sizes.
// One thread per output element (x -> column, y -> row), the dot product accumulated in double
// and rounded once to fp32.
extern "C" __global__ void matmul_ref(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) {
    acc += (double)A[(size_t)row * K + k] * (double)B[(size_t)k * N + col];
  }
  C[(size_t)row * N + col] = (float)acc;
}
