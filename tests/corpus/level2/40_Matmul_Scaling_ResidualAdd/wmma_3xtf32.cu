// Style: WMMA TF32 tensor cores (m16n16k8, wmma::__float_to_tf32) with the 3xTF32 split for fp32 accuracy, per-slice accumulators added in fp32, epilogue (bias, scale, residual) from a shared-memory staging tile.
#include <mma.h>

using namespace nvcuda;

/* kjudge-plan
linear_scale_residual_tf32<<<dim3(cdiv(N, 64), cdiv(M, 32)), 256>>>(X, W, B, scaling_factor, Y, M, N, K);
*/

#define BM 32
#define BN 64
#define BK 16
#define LDS (BK + 4)   // 20 floats: a multiple of 4 for tf32 wmma
#define LDC (BN + 4)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

__device__ __forceinline__ void split_frag(FragA& big, FragA& small) {
#pragma unroll
  for (int e = 0; e < big.num_elements; ++e) {
    const float v = big.x[e];
    big.x[e] = wmma::__float_to_tf32(v);
    small.x[e] = wmma::__float_to_tf32(v - big.x[e]);
  }
}
__device__ __forceinline__ void split_frag(FragB& big, FragB& small) {
#pragma unroll
  for (int e = 0; e < big.num_elements; ++e) {
    const float v = big.x[e];
    big.x[e] = wmma::__float_to_tf32(v);
    small.x[e] = wmma::__float_to_tf32(v - big.x[e]);
  }
}

extern "C" __global__ void __launch_bounds__(256)
linear_scale_residual_tf32(const float* __restrict__ X, const float* __restrict__ W, const float* __restrict__ bias,
                           float scaling_factor, float* __restrict__ Y, int M, int N, int K) {
  __shared__ __align__(32) float Xs[BM * LDS];  // Xs[r][k]
  __shared__ __align__(32) float Ws[BN * LDS];  // Ws[n][k]: W^T tile read as col_major B
  __shared__ __align__(32) float Cs[BM * LDC];
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wr = warp / 4;  // 2 x 4 warps, 16 x 16 each
  const int wc = warp % 4;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  FragC sum;
  wmma::fill_fragment(sum, 0.0f);
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 256) {
      const int r = e / BK, k = e % BK;
      Xs[r * LDS + k] = (m0 + r < M && k0 + k < K) ? X[(size_t)(m0 + r) * K + k0 + k] : 0.0f;
    }
    for (int e = tid; e < BN * BK; e += 256) {
      const int n = e / BK, k = e % BK;
      Ws[n * LDS + k] = (n0 + n < N && k0 + k < K) ? W[(size_t)(n0 + n) * K + k0 + k] : 0.0f;
    }
    __syncthreads();
    FragC part;
    wmma::fill_fragment(part, 0.0f);
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      FragA a_big, a_small;
      FragB b_big, b_small;
      wmma::load_matrix_sync(a_big, Xs + wr * 16 * LDS + kk, LDS);
      wmma::load_matrix_sync(b_big, Ws + wc * 16 * LDS + kk, LDS);
      split_frag(a_big, a_small);
      split_frag(b_big, b_small);
      wmma::mma_sync(part, a_small, b_big, part);
      wmma::mma_sync(part, a_big, b_small, part);
      wmma::mma_sync(part, a_big, b_big, part);
    }
#pragma unroll
    for (int e = 0; e < sum.num_elements; ++e) sum.x[e] += part.x[e];
    __syncthreads();
  }
  wmma::store_matrix_sync(Cs + wr * 16 * LDC + wc * 16, sum, LDC, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < BM * BN; e += 256) {
    const int r = e / BN, c = e % BN;
    const int m = m0 + r, n = n0 + c;
    if (m < M && n < N) {
      const float v = Cs[r * LDC + c] + bias[n];
      Y[(size_t)m * N + n] = v * scaling_factor + v;
    }
  }
}
