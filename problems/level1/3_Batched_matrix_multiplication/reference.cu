// Trusted reference for level1/3_Batched_matrix_multiplication: C[b] = A[b] @ B[b]. One thread per
// output element (x -> column, y -> row, z -> batch), the dot product accumulated in double and
// rounded once to fp32.
extern "C" __global__ void bmm_ref(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int BATCH, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int b = blockIdx.z;
  if (b >= BATCH || row >= M || col >= N) return;
  const float* a = A + (size_t)b * M * K;
  const float* bm = B + (size_t)b * K * N;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) {
    acc += (double)a[(size_t)row * K + k] * (double)bm[(size_t)k * N + col];
  }
  C[(size_t)b * M * N + (size_t)row * N + col] = (float)acc;
}
