// Style: WMMA with __nv_bfloat16 fragments (<mma.h>, <cuda_bf16.h>): each fp32 operand split into three bf16 terms in shared memory (bf16x3, ~24 bits), six MMAs per K slice with fp32 accumulate; symmetric operands read from their lower triangles.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

/* kjudge-plan
symm_bf16x3<<<dim3(cdiv(N, 32), cdiv(N, 32)), 128>>>(A, B, C, N);
*/

#define BM 32
#define BN 32
#define BK 16
#define LDA_S (BK + 8)
#define LDB_S (BN + 8)
#define LDC_S (BN + 4)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> FragC;

// S(r, c) of a symmetric matrix stored by its lower triangle.
__device__ __forceinline__ float sym(const float* __restrict__ S, int N, int r, int c) {
  return S[(size_t)max(r, c) * N + min(r, c)];
}

__device__ __forceinline__ void split3(float v, __nv_bfloat16* t0, __nv_bfloat16* t1, __nv_bfloat16* t2, int at) {
  const __nv_bfloat16 b0 = __float2bfloat16_rn(v);
  const float r1 = v - __bfloat162float(b0);
  const __nv_bfloat16 b1 = __float2bfloat16_rn(r1);
  const float r2 = r1 - __bfloat162float(b1);
  t0[at] = b0;
  t1[at] = b1;
  t2[at] = __float2bfloat16_rn(r2);
}

extern "C" __global__ void __launch_bounds__(128)
symm_bf16x3(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N) {
  __shared__ __align__(32) __nv_bfloat16 a_s[3][BM * LDA_S];
  __shared__ __align__(32) __nv_bfloat16 b_s[3][BK * LDB_S];
  __shared__ __align__(32) float c_s[BM * LDC_S];
  const int tid = threadIdx.x, warp = tid / 32;
  const int wr = warp / 2, wc = warp % 2;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  FragC total;
  wmma::fill_fragment(total, 0.0f);
  for (int k0 = 0; k0 < N; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 128) {
      const int r = e / BK, k = e % BK;
      const float v = (m0 + r < N && k0 + k < N) ? sym(A, N, m0 + r, k0 + k) : 0.0f;
      split3(v, a_s[0], a_s[1], a_s[2], r * LDA_S + k);
    }
    for (int e = tid; e < BK * BN; e += 128) {
      const int k = e / BN, c = e % BN;
      const float v = (k0 + k < N && n0 + c < N) ? sym(B, N, k0 + k, n0 + c) : 0.0f;
      split3(v, b_s[0], b_s[1], b_s[2], k * LDB_S + c);
    }
    __syncthreads();
    FragA a[3];
    FragB b[3];
#pragma unroll
    for (int t = 0; t < 3; ++t) {
      wmma::load_matrix_sync(a[t], a_s[t] + wr * 16 * LDA_S, LDA_S);
      wmma::load_matrix_sync(b[t], b_s[t] + wc * 16, LDB_S);
    }
    FragC slice;
    wmma::fill_fragment(slice, 0.0f);
    // Terms of order 2^-16 and 2^-8 first, the leading product last; the rest (<= 2^-24) dropped.
    wmma::mma_sync(slice, a[2], b[0], slice);
    wmma::mma_sync(slice, a[1], b[1], slice);
    wmma::mma_sync(slice, a[0], b[2], slice);
    wmma::mma_sync(slice, a[1], b[0], slice);
    wmma::mma_sync(slice, a[0], b[1], slice);
    wmma::mma_sync(slice, a[0], b[0], slice);
#pragma unroll
    for (int i = 0; i < total.num_elements; ++i) total.x[i] += slice.x[i];
    __syncthreads();
  }
  wmma::store_matrix_sync(c_s + wr * 16 * LDC_S + wc * 16, total, LDC_S, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < BM * BN; e += 128) {
    const int r = e / BN, c = e % BN;
    if (m0 + r < N && n0 + c < N) C[(size_t)(m0 + r) * N + n0 + c] = c_s[r * LDC_S + c];
  }
}
