// Style: WMMA (<mma.h>, <cuda_fp16.h>) on fp16 tensor cores: fp32 tiles converted to __half hi/lo pairs in shared memory (x = hi + lo), hi*hi + hi*lo + lo*hi with fp32 accumulate, so the result keeps fp32 accuracy.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

/* kjudge-plan
wmma_split_gemm<<<dim3(cdiv(N, 32), cdiv(N, 32)), 128>>>(A, B, C, N);
*/

#define BM 32
#define BN 32
#define BK 16
#define LDH (BK + 8)   // halves per row of the A tiles (multiple of 8 for wmma)
#define LDBH (BN + 8)  // halves per row of the B tiles
#define LDC (BN + 4)   // floats per row of the C staging tile

extern "C" __global__ void __launch_bounds__(128)
wmma_split_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N) {
  __shared__ __align__(32) __half a_hi[BM * LDH];
  __shared__ __align__(32) __half a_lo[BM * LDH];
  __shared__ __align__(32) __half b_hi[BK * LDBH];
  __shared__ __align__(32) __half b_lo[BK * LDBH];
  __shared__ __align__(32) float c_tile[BM * LDC];

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wm = warp / 2;  // 16-row half of the tile
  const int wn = warp % 2;  // 16-column half of the tile
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> total;
  wmma::fill_fragment(total, 0.0f);

  for (int k0 = 0; k0 < N; k0 += BK) {
    // 32 x 16 elements of A and 16 x 32 of B: 4 each per thread, split on the way into shared memory.
    for (int e = tid; e < BM * BK; e += 128) {
      const int r = e / BK, k = e % BK;
      const int gr = row0 + r, gk = k0 + k;
      const float v = (gr < N && gk < N) ? A[(size_t)gr * N + gk] : 0.0f;
      const __half h = __float2half_rn(v);
      a_hi[r * LDH + k] = h;
      a_lo[r * LDH + k] = __float2half_rn(v - __half2float(h));
    }
    for (int e = tid; e < BK * BN; e += 128) {
      const int k = e / BN, c = e % BN;
      const int gk = k0 + k, gc = col0 + c;
      const float v = (gk < N && gc < N) ? B[(size_t)gk * N + gc] : 0.0f;
      const __half h = __float2half_rn(v);
      b_hi[k * LDBH + c] = h;
      b_lo[k * LDBH + c] = __float2half_rn(v - __half2float(h));
    }
    __syncthreads();

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> ah, al;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bh, bl;
    wmma::load_matrix_sync(ah, a_hi + wm * 16 * LDH, LDH);
    wmma::load_matrix_sync(al, a_lo + wm * 16 * LDH, LDH);
    wmma::load_matrix_sync(bh, b_hi + wn * 16, LDBH);
    wmma::load_matrix_sync(bl, b_lo + wn * 16, LDBH);
    // One K slice into a fresh accumulator (small corrections first), then added with ordinary fp32 adds.
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> slice;
    wmma::fill_fragment(slice, 0.0f);
    wmma::mma_sync(slice, al, bh, slice);
    wmma::mma_sync(slice, ah, bl, slice);
    wmma::mma_sync(slice, ah, bh, slice);
#pragma unroll
    for (int i = 0; i < total.num_elements; ++i) total.x[i] += slice.x[i];
    __syncthreads();
  }

  wmma::store_matrix_sync(c_tile + wm * 16 * LDC + wn * 16, total, LDC, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < BM * BN; e += 128) {
    const int r = e / BN, c = e % BN;
    if (row0 + r < N && col0 + c < N) C[(size_t)(row0 + r) * N + col0 + c] = c_tile[r * LDC + c];
  }
}
