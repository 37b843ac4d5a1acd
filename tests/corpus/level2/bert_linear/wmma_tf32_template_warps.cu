// Style: templated WMMA TF32 kernel (warp grid WM x WN as template parameters from the plan) with the 3xTF32 split for fp32 accuracy, bias epilogue.
#include <mma.h>

/* kjudge-plan
linear_wmma<2, 2><<<dim3(cdiv(N, 32), cdiv(M, 32)), 128>>>(X, W, b, Y, M, N, K);
*/

namespace wmma = nvcuda::wmma;

template <int WM, int WN>
__global__ void __launch_bounds__(WM * WN * 32)
linear_wmma(const float* __restrict__ X, const float* __restrict__ W, const float* __restrict__ bias, float* __restrict__ Y,
            int M, int N, int K) {
  constexpr int TM = 16 * WM, TN = 16 * WN, TK = 8, LD = TK + 4, LDC = TN + 4, THREADS = WM * WN * 32;
  __shared__ __align__(32) float xs[TM * LD];
  __shared__ __align__(32) float ws[TN * LD];
  __shared__ __align__(32) float cs[TM * LDC];
  const int warp = threadIdx.x / 32;
  const int wr = warp / WN, wc = warp % WN;
  const int m0 = blockIdx.y * TM, n0 = blockIdx.x * TN;

  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < K; k0 += TK) {
    for (int e = threadIdx.x; e < TM * TK; e += THREADS) {
      const int r = e / TK, k = e % TK;
      xs[r * LD + k] = (m0 + r < M && k0 + k < K) ? X[(size_t)(m0 + r) * K + k0 + k] : 0.0f;
    }
    for (int e = threadIdx.x; e < TN * TK; e += THREADS) {
      const int n = e / TK, k = e % TK;
      ws[n * LD + k] = (n0 + n < N && k0 + k < K) ? W[(size_t)(n0 + n) * K + k0 + k] : 0.0f;
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a_hi, a_lo;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b_hi, b_lo;
    wmma::load_matrix_sync(a_hi, xs + wr * 16 * LD, LD);
    wmma::load_matrix_sync(b_hi, ws + wc * 16 * LD, LD);
#pragma unroll
    for (int i = 0; i < a_hi.num_elements; ++i) {
      const float v = a_hi.x[i];
      a_hi.x[i] = wmma::__float_to_tf32(v);
      a_lo.x[i] = wmma::__float_to_tf32(v - a_hi.x[i]);
    }
#pragma unroll
    for (int i = 0; i < b_hi.num_elements; ++i) {
      const float v = b_hi.x[i];
      b_hi.x[i] = wmma::__float_to_tf32(v);
      b_lo.x[i] = wmma::__float_to_tf32(v - b_hi.x[i]);
    }
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> step;
    wmma::fill_fragment(step, 0.0f);
    wmma::mma_sync(step, a_lo, b_hi, step);
    wmma::mma_sync(step, a_hi, b_lo, step);
    wmma::mma_sync(step, a_hi, b_hi, step);
#pragma unroll
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] += step.x[i];
    __syncthreads();
  }
  wmma::store_matrix_sync(cs + wr * 16 * LDC + wc * 16, acc, LDC, wmma::mem_row_major);
  __syncthreads();
  for (int e = threadIdx.x; e < TM * TN; e += THREADS) {
    const int r = e / TN, c = e % TN;
    if (m0 + r < M && n0 + c < N) Y[(size_t)(m0 + r) * N + n0 + c] = cs[r * LDC + c] + bias[n0 + c];
  }
}
