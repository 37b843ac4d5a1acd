// Style: cub::BlockScan (InclusiveSum over 4 items per thread with the block aggregate), block per row, tiles of 1024 chained with a running carry.
#include <cub/block/block_scan.cuh>

/* kjudge-plan
cumsum_rows<<<B, 256>>>(X, Y, N);
*/

#define THREADS 256
#define ITEMS 4

extern "C" __global__ void __launch_bounds__(THREADS) cumsum_rows(const float* __restrict__ X, float* __restrict__ Y, int N) {
  typedef cub::BlockScan<float, THREADS> Scan;
  __shared__ typename Scan::TempStorage temp;
  const float* x = X + (size_t)blockIdx.x * N;
  float* y = Y + (size_t)blockIdx.x * N;
  float carry = 0.0f;
  for (int base = 0; base < N; base += THREADS * ITEMS) {
    float items[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int i = base + threadIdx.x * ITEMS + k;  // blocked arrangement
      items[k] = i < N ? x[i] : 0.0f;
    }
    float tile_total;
    Scan(temp).InclusiveSum(items, items, tile_total);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int i = base + threadIdx.x * ITEMS + k;
      if (i < N) y[i] = items[k] + carry;
    }
    carry += tile_total;
    __syncthreads();  // temp is reused by the next tile
  }
}
