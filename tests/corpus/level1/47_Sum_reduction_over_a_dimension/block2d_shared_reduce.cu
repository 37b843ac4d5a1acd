// Style: 2D thread block (32 columns x 8 row-slices) splitting D1 across threadIdx.y, partial sums reduced through a shared-memory tile; dim3 grid over (column tiles, batch).
/* kjudge-plan
sum_dim1_2d<<<dim3(cdiv(D2, 32), B), dim3(32, 8)>>>(X, Y, D1, D2);
*/

#define TX 32
#define TY 8

extern "C" __global__ void sum_dim1_2d(const float* __restrict__ X, float* __restrict__ Y, int D1, int D2) {
  __shared__ float tile[TY][TX + 1];
  const int j = blockIdx.x * TX + threadIdx.x;
  const int b = blockIdx.y;
  float s = 0.0f;
  if (j < D2) {
    const float* x = X + (size_t)b * D1 * D2 + j;
    for (int i = threadIdx.y; i < D1; i += TY) s += x[(size_t)i * D2];
  }
  tile[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && j < D2) {
    float t = 0.0f;
#pragma unroll
    for (int r = 0; r < TY; ++r) t += tile[r][threadIdx.x];
    Y[(size_t)b * D2 + j] = t;
  }
}
