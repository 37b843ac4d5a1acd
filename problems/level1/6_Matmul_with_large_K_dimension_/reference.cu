// Trusted reference for level1/6_Matmul_with_large_K_dimension_: C = A @ B with a very large K.
// To give the GPU enough threads, K is cut into chunks of REF_CHUNK: one thread per (output
// element, chunk) accumulates its chunk's dot product in double into a double scratch buffer
// (partial[chunk][row][col]); a second kernel adds the chunks in order, in double, and rounds
// once to fp32.
#define REF_CHUNK 4096

extern "C" __global__ void matmul_partial_ref(const float* __restrict__ A,
                                              const float* __restrict__ B,
                                              double* __restrict__ partial, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int chunk = blockIdx.z;
  if (row >= M || col >= N) return;
  const int k_begin = chunk * REF_CHUNK;
  const int k_end = min(K, k_begin + REF_CHUNK);
  double acc = 0.0;
  for (int k = k_begin; k < k_end; ++k) {
    acc += (double)A[(size_t)row * K + k] * (double)B[(size_t)k * N + col];
  }
  partial[((size_t)chunk * M + row) * N + col] = acc;
}

extern "C" __global__ void matmul_finish_ref(const double* __restrict__ partial,
                                             float* __restrict__ C, long long MN, int chunks) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < MN; i += stride) {
    double acc = 0.0;
    for (int c = 0; c < chunks; ++c) acc += partial[(size_t)c * MN + i];
    C[i] = (float)acc;
  }
}
