// Style: cub::BlockScan::InclusiveScan with a custom multiply functor and block aggregate, running product carried across 512-element tiles.
#include <cub/block/block_scan.cuh>

/* kjudge-plan
cumprod_rows<<<B, 128>>>(X, Y, N);
*/

struct Mul {
  __device__ __forceinline__ float operator()(const float& a, const float& b) const { return a * b; }
};

extern "C" __global__ void __launch_bounds__(128) cumprod_rows(const float* __restrict__ X, float* __restrict__ Y, int N) {
  using BlockScan = cub::BlockScan<float, 128>;
  __shared__ typename BlockScan::TempStorage storage;
  const float* x = X + (size_t)blockIdx.x * N;
  float* y = Y + (size_t)blockIdx.x * N;
  float running = 1.0f;
  for (int base = 0; base < N; base += 128 * 4) {
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int i = base + threadIdx.x * 4 + k;
      v[k] = i < N ? x[i] : 1.0f;  // identity of * in the tail
    }
    float tile_product;
    BlockScan(storage).InclusiveScan(v, v, Mul(), tile_product);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int i = base + threadIdx.x * 4 + k;
      if (i < N) y[i] = running * v[k];
    }
    running *= tile_product;
    __syncthreads();
  }
}
