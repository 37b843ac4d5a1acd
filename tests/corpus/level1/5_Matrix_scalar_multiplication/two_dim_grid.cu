// Style: a 2D launch (dim3 grid and block) over rows and columns, one element per thread, int row/col with size_t offsets.
/* kjudge-plan
scale_2d<<<dim3(cdiv(N, 32), min(cdiv(M, 8), 65535)), dim3(32, 8)>>>(A, C, s, M, N);
*/

extern "C" __global__ void scale_2d(const float* A, float* C, float s, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  // Rows: grid-stride in y (gridDim.y is capped at 65535).
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < M; row += gridDim.y * blockDim.y) {
    const size_t idx = (size_t)row * N + col;
    C[idx] = s * A[idx];
  }
}
