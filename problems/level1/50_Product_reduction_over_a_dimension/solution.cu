// level1/50_Product_reduction_over_a_dimension example solution:
// a block of 32 x 8 threads owns 32 adjacent output columns j of one batch b. Thread (tx, ty)
// multiplies its column in fp32
// over the rows i = ty, ty + 8, ty + 16, ... of column j (each warp reads 32 consecutive
// floats of one row: coalesced), then the 8 partial results of a column are combined
// through shared memory by the ty == 0 thread.
/* kjudge-plan
product_dim1<<<dim3(cdiv(D2, 32), B), dim3(32, 8)>>>(X, Y, B, D1, D2);
*/

#define RX 32
#define RY 8

extern "C" __global__ void __launch_bounds__(RX * RY)
product_dim1(const float* __restrict__ X, float* __restrict__ Y, int B, int D1, int D2) {
  __shared__ float part[RY][RX + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int j = blockIdx.x * RX + tx;
  const int b = blockIdx.y;
  if (b >= B) return;  // uniform per block
  float acc = 1.0f;
  if (j < D2) {
    const float* __restrict__ x = X + (size_t)b * (size_t)D1 * (size_t)D2 + (size_t)j;
    for (int i = ty; i < D1; i += RY) {
      const float v = x[(size_t)i * (size_t)D2];
      acc *= v;
    }
  }
  part[ty][tx] = acc;
  __syncthreads();
  if (ty == 0 && j < D2) {
    float p = part[0][tx];
    #pragma unroll
    for (int r = 1; r < RY; ++r) p *= part[r][tx];
    Y[(size_t)b * D2 + j] = p;
  }
}
