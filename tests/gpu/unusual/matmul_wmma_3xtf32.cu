// Unusual but correct: level1/1_Square_matrix_multiplication_. Expected: CORRECT.
// Tensor cores at fp32 accuracy: WMMA m16n16k8 TF32 with the 3xTF32 split. Each operand x is
// split into big = tf32(x) and small = tf32(x - big); per k-step the warp issues
// small*big + big*small + big*big (small*small, ~2^-22 relative, is dropped).
// The tensor cores' own fp32 accumulation is not round-to-nearest, so the fragment
// accumulates one 16-deep K slice only (6 MMAs from zero, small partial sums) and is then
// added into a separate fp32 running sum with ordinary (round-to-nearest) adds: the chain of
// K / 16 software adds behaves like an fp32 FMA chain.
// Block: 4 warps, a 32 x 32 tile of C (each warp 16 x 16); the A and B slices go through
// shared memory with zero fill, so any N >= 1 works; the C tile goes back through shared
// memory with bounds checks.
/* kjudge-plan
matmul_3xtf32<<<dim3(cdiv(N, 32), cdiv(N, 32)), 128>>>(A, B, C, N);
*/

#include <mma.h>
using namespace nvcuda;

#define TM 32
#define TN 32
#define TK 16
#define LDA (TK + 4)  // 20 floats: rows of 80 bytes (wmma: ldm a multiple of 4 floats)
#define LDB (TN + 4)  // 36 floats
#define LDC (TN + 4)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

extern "C" __global__ void __launch_bounds__(128)
matmul_3xtf32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int N) {
  __shared__ __align__(128) float As[TM * LDA];  // As[r][k]
  __shared__ __align__(128) float Bs[TK * LDB];  // Bs[k][c]
  __shared__ __align__(128) float Cs[TM * LDC];

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wr = warp / 2;  // warp's 16-row block in the tile
  const int wc = warp % 2;  // warp's 16-column block
  const int m0 = blockIdx.y * TM;
  const int n0 = blockIdx.x * TN;
  const size_t ld = (size_t)N;

  FragC sum;  // running fp32 sum, added to with round-to-nearest adds
  wmma::fill_fragment(sum, 0.0f);

  for (int k0 = 0; k0 < N; k0 += TK) {
    // A slice: 32 rows x 16 k; B slice: 16 k x 32 columns; 512 elements each, 4 per thread.
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int idx = tid + 128 * q;
      const int ar = idx / TK, ak = idx % TK;
      const int grow = m0 + ar, gk = k0 + ak;
      As[ar * LDA + ak] = (grow < N && gk < N) ? A[(size_t)grow * ld + gk] : 0.0f;
      const int bk = idx / TN, bc = idx % TN;
      const int gbk = k0 + bk, gcol = n0 + bc;
      Bs[bk * LDB + bc] = (gbk < N && gcol < N) ? B[(size_t)gbk * ld + gcol] : 0.0f;
    }
    __syncthreads();

    FragC part;
    wmma::fill_fragment(part, 0.0f);
#pragma unroll
    for (int kk = 0; kk < TK; kk += 8) {
      FragA a_big, a_small;
      FragB b_big, b_small;
      wmma::load_matrix_sync(a_big, As + (wr * 16) * LDA + kk, LDA);
      wmma::load_matrix_sync(b_big, Bs + kk * LDB + wc * 16, LDB);
#pragma unroll
      for (int e = 0; e < a_big.num_elements; ++e) {
        const float v = a_big.x[e];
        const float hi = wmma::__float_to_tf32(v);
        a_big.x[e] = hi;
        a_small.x[e] = wmma::__float_to_tf32(v - hi);
      }
#pragma unroll
      for (int e = 0; e < b_big.num_elements; ++e) {
        const float v = b_big.x[e];
        const float hi = wmma::__float_to_tf32(v);
        b_big.x[e] = hi;
        b_small.x[e] = wmma::__float_to_tf32(v - hi);
      }
      wmma::mma_sync(part, a_small, b_big, part);
      wmma::mma_sync(part, a_big, b_small, part);
      wmma::mma_sync(part, a_big, b_big, part);
    }
    // Same fragment type, so element e of `part` and of `sum` are the same C entry.
#pragma unroll
    for (int e = 0; e < sum.num_elements; ++e) sum.x[e] += part.x[e];
    __syncthreads();  // before the next slice overwrites As / Bs
  }

  wmma::store_matrix_sync(Cs + (wr * 16) * LDC + wc * 16, sum, LDC, wmma::mem_row_major);
  __syncthreads();
#pragma unroll
  for (int q = 0; q < (TM * TN) / 128; ++q) {
    const int idx = tid + 128 * q;
    const int r = idx / TN, c = idx % TN;
    const int grow = m0 + r, gcol = n0 + c;
    if (grow < N && gcol < N) C[(size_t)grow * ld + gcol] = Cs[r * LDC + c];
  }
}
