// kernelbench/level1/1_Square_matrix_multiplication_ example solution, the kernels of problems/level1/1_Square_matrix_multiplication_
// (renamed to KernelBench's tensor and size names).
// Method: a classic shared-memory tiled fp32
// SGEMM. Each 256-thread block computes a 128 x 128 tile of C, stepping through K in slices
// of 8; each thread accumulates an 8 x 8 register block (rows ty*4+{0..3} and 64+ty*4+{0..3},
// columns tx*4+{0..3} and 64+tx*4+{0..3}, so shared-memory reads are conflict-free float4s).
// The next K slice is fetched from global memory into registers while the current one is
// multiplied. Every global access is bounds-checked (zero fill), so any N >= 1 works; float4
// global accesses are used only when N % 4 == 0 and the pointers are 16-byte aligned.
/* kjudge-plan
sgemm_128x128x8<<<dim3(cdiv(N, 128), cdiv(N, 128)), 256>>>(A, B, out, N);
*/

#define BM 128
#define BN 128
#define BK 8
#define THREADS 256

struct TileRegs {
  float a[4];  // A[m0 + a_r][k0 + a_c + 0..3]
  float b[4];  // B[k0 + b_r][n0 + b_c + 0..3]
};

__device__ __forceinline__ void load_tile(TileRegs& r, const float* __restrict__ A,
                                          const float* __restrict__ B, int N, bool vec_ok,
                                          int a_row, int a_col, int b_row, int b_col) {
  const size_t ld = (size_t)N;
  // A: row a_row, columns a_col .. a_col + 3 (a_col is a multiple of 4).
  if (vec_ok && a_row < N && a_col < N) {  // N % 4 == 0, so a_col + 3 < N as well
    const float4 v = *reinterpret_cast<const float4*>(A + (size_t)a_row * ld + a_col);
    r.a[0] = v.x; r.a[1] = v.y; r.a[2] = v.z; r.a[3] = v.w;
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      r.a[q] = (a_row < N && a_col + q < N) ? A[(size_t)a_row * ld + a_col + q] : 0.0f;
    }
  }
  // B: row b_row, columns b_col .. b_col + 3.
  if (vec_ok && b_row < N && b_col < N) {
    const float4 v = *reinterpret_cast<const float4*>(B + (size_t)b_row * ld + b_col);
    r.b[0] = v.x; r.b[1] = v.y; r.b[2] = v.z; r.b[3] = v.w;
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      r.b[q] = (b_row < N && b_col + q < N) ? B[(size_t)b_row * ld + b_col + q] : 0.0f;
    }
  }
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
sgemm_128x128x8(const float* __restrict__ A, const float* __restrict__ B,
                float* __restrict__ C, int N) {
  __shared__ __align__(16) float As[BK][BM];  // A slice, transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK][BN];  // B slice: Bs[k][n]

  const int tid = threadIdx.x;
  const int tx = tid % 16;  // column group of the 8 x 8 register block
  const int ty = tid / 16;  // row group
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const size_t ld = (size_t)N;
  const bool vec_ok =
      (N % 4 == 0) &&
      (((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B) |
         reinterpret_cast<unsigned long long>(C)) & 15ull) == 0);

  // What this thread copies into shared memory for each K slice.
  const int a_r = tid / 2;         // 0..127: row of the A tile
  const int a_c = (tid % 2) * 4;   // 0 or 4: first of 4 k columns
  const int b_r = tid / 32;        // 0..7:   k row of the B tile
  const int b_c = (tid % 32) * 4;  // 0..124: first of 4 columns

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  }

  TileRegs regs;
  load_tile(regs, A, B, N, vec_ok, m0 + a_r, a_c, b_r, n0 + b_c);

  for (int k0 = 0; k0 < N; k0 += BK) {
#pragma unroll
    for (int q = 0; q < 4; ++q) As[a_c + q][a_r] = regs.a[q];
    *reinterpret_cast<float4*>(&Bs[b_r][b_c]) = make_float4(regs.b[0], regs.b[1], regs.b[2], regs.b[3]);
    __syncthreads();

    // Prefetch the next slice into registers while this one is multiplied.
    if (k0 + BK < N) {
      load_tile(regs, A, B, N, vec_ok, m0 + a_r, k0 + BK + a_c, k0 + BK + b_r, n0 + b_c);
    }

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&As[k][64 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[k][64 + tx * 4]);
      const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();
  }

  // Write the 8 x 8 block: register row i is C row m0 + (i < 4 ? ty*4 + i : 64 + ty*4 + i - 4),
  // register column j likewise with tx.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (row >= N) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = n0 + h * 64 + tx * 4;
      float* dst = C + (size_t)row * ld + col;
      if (vec_ok && col < N) {  // N % 4 == 0, so col + 3 < N
        *reinterpret_cast<float4*>(dst) =
            make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          if (col + q < N) dst[q] = acc[i][h * 4 + q];
        }
      }
    }
  }
}
