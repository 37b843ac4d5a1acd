// kernelbench/level2/37_Matmul_Swish_Sum_GroupNorm example: out = group_norm(swish(x W^T + b) + bias, 64 groups).
// Two kernels: the GEMM (elementwise prelude fused) into the output, then GroupNorm in place,
// one block per (group, row).
// The GEMM is a 64 x 64-tile fp32 kernel (K in slices of 16 through shared memory, 4 x 4
// outputs per thread, fp32 FMA accumulation, every access bounds-checked).
/* kjudge-plan
gemm_z<<<dim3(cdiv(out_features, 64), cdiv(batch_size, 64)), 256>>>(x, matmul_weight, matmul_bias, bias, out, batch_size, out_features, in_features);
group_norm<<<dim3(64, batch_size), 256>>>(out, group_norm_weight, group_norm_bias, out, out_features);
*/

#define INF_F __int_as_float(0x7f800000)  // +infinity (NVRTC has no math.h INFINITY)
// Scalar activations, in fp32, as PyTorch defines them (GELU: the exact erf form; softplus
// inside Mish: threshold 20, as F.softplus).
__device__ __forceinline__ float sigmoid_f(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ float gelu_f(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ float softplus_f(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
__device__ __forceinline__ float mish_f(float x) { return x * tanhf(softplus_f(x)); }
__device__ __forceinline__ float leaky_f(float x, float s) { return x >= 0.0f ? x : x * s; }
__device__ __forceinline__ float clamp_f(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
__device__ __forceinline__ float hardswish_f(float x) { return x * clamp_f(x + 3.0f, 0.0f, 6.0f) / 6.0f; }

// Block-wide reductions (any blockDim.x that is a multiple of 32, up to 1024); every thread
// gets the result. The leading barrier lets a kernel call them back to back (shared reuse).
__device__ double block_sum(double v) {
  __shared__ double sh_sum[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) sh_sum[threadIdx.x >> 5] = v;
  __syncthreads();
  double t = 0.0;
  for (int i = 0; i < (int)(blockDim.x >> 5); ++i) t += sh_sum[i];
  return t;
}
__device__ float block_max(float v) {
  __shared__ float sh_max[32];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) sh_max[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = -INF_F;
  for (int i = 0; i < (int)(blockDim.x >> 5); ++i) t = fmaxf(t, sh_max[i]);
  return t;
}
__device__ float block_min(float v) {
  __shared__ float sh_min[32];
  for (int o = 16; o > 0; o >>= 1) v = fminf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) sh_min[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = INF_F;
  for (int i = 0; i < (int)(blockDim.x >> 5); ++i) t = fminf(t, sh_min[i]);
  return t;
}

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256

// Four consecutive K-elements of row r of a K-contiguous [rows, K] matrix, starting at column c
// (c a multiple of 4); zero outside the matrix. float4 only when `vec` (K % 4 == 0 and the base
// pointer 16-byte aligned, so c + 3 < K whenever c < K).
__device__ __forceinline__ void load4(const float* __restrict__ P, int rows, int K, int r, int c,
                                      bool vec, float (&v)[4]) {
  if (vec && r < rows && c < K) {
    const float4 t = *reinterpret_cast<const float4*>(P + (size_t)r * (size_t)K + c);
    v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      v[q] = (r < rows && c + q < K) ? P[(size_t)r * (size_t)K + c + q] : 0.0f;
    }
  }
}

// z = prelude(x W^T + b)
extern "C" __global__ void __launch_bounds__(THREADS)
gemm_z(const float* __restrict__ A, const float* __restrict__ Bt,
    const float* __restrict__ bias0,
    const float* __restrict__ bias,
    float* __restrict__ Y, int M, int N, int K) {
  __shared__ float As[BK][BM + 4];  // As[k][m]: the A tile, transposed
  __shared__ float Bs[BK][BN + 4];  // Bs[k][n]: the W tile, transposed
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const bool vec = (K % 4 == 0) &&
      (((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(Bt)) & 15ull) == 0);
  const int lr = tid / 4;        // 0..63: tile row this thread loads
  const int lc = (tid % 4) * 4;  // 0, 4, 8, 12: first of its 4 k columns

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  }

  for (int k0 = 0; k0 < K; k0 += BK) {
    float av[4], bv[4];
    load4(A, M, K, m0 + lr, k0 + lc, vec, av);
    load4(Bt, N, K, n0 + lr, k0 + lc, vec, bv);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      As[lc + q][lr] = av[q];
      Bs[lc + q][lr] = bv[q];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();
  }

  // Elementwise epilogue straight from the accumulators (16 consecutive columns per half-warp).
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + ty + 16 * i;
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int col = n0 + tx + 16 * j;
      if (col >= N) continue;
      float v = acc[i][j];
      v += bias0[col];
      v = sigmoid_f(v) * v;
      v = v + bias[col];
      Y[(size_t)row * (size_t)N + col] = v;
    }
  }
}

// then the epilogue
// GroupNorm(64 groups, eps 1e-5) of z [M, N] (Y may be z: in place): block (g, row) normalises the N / 64 adjacent
// columns of group g in row `row` with their mean and biased variance (double, two passes).
extern "C" __global__ void __launch_bounds__(256)
group_norm(const float* z, const float* __restrict__ gamma,
    const float* __restrict__ beta, float* Y, int N) {
  const int C = N / 64;
  const size_t base = (size_t)blockIdx.y * (size_t)N + (size_t)blockIdx.x * (size_t)C;
  double s = 0.0;
  for (int i = threadIdx.x; i < C; i += blockDim.x) s += (double)z[base + i];
  const double mu = block_sum(s) / (double)C;
  double q = 0.0;
  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    const double d = (double)z[base + i] - mu;
    q += d * d;
  }
  const double var = block_sum(q) / (double)C;
  const float rs = (float)(1.0 / sqrt(var + 1e-5));
  const float m = (float)mu;
  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    const int col = blockIdx.x * C + i;
    float v = (z[base + i] - m) * rs * gamma[col] + beta[col];
    Y[base + i] = v;
  }
}
