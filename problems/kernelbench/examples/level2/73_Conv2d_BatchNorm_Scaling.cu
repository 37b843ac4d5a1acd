// kernelbench/level2/73_Conv2d_BatchNorm_Scaling example: out = batch_norm(conv(x)) * 2.0.
// BatchNorm2d in training mode (KernelBench's default): per channel, the mean and biased variance
// over batch and both spatial dims, eps 1e-5, then bn_weight / bn_bias.
// Three kernels: the convolution into out, per-channel statistics into scratch (one block per
// channel), then the normalisation in place.
// The convolution is direct: one thread per output element (grid-stride, 64-bit flat
// index), fp32 FMA over in_channels x kernel_size x kernel_size; Conv2d has stride 1, no
// padding, dilation 1, so out_d2 = height - kernel_size + 1 and out_d3 = width - kernel_size + 1.
/* kjudge-plan
scratch mean : f32[out_channels];
scratch rstd : f32[out_channels];
conv_fused<<<min(cdiv(batch_size * out_channels * out_d2 * out_d3, 256), 65536), 256>>>(x, conv_weight, conv_bias, out, batch_size, in_channels, out_channels, height, width, kernel_size, out_d2, out_d3);
chan_stats<<<out_channels, 256>>>(out, mean, rstd, batch_size, out_channels, out_d2 * out_d3);
chan_apply<<<min(cdiv(batch_size * out_channels * out_d2 * out_d3, 256), 65536), 256>>>(out, mean, rstd, bn_weight, bn_bias, batch_size * out_channels * out_d2 * out_d3, out_channels, out_d2 * out_d3);
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

// out[n, co, oh, ow] = epilogue(conv_bias[co] + sum_(ci, kh, kw) x[n, ci, oh + kh, ow + kw] * w[co, ci, kh, kw]).
extern "C" __global__ void __launch_bounds__(256)
conv_fused(const float* __restrict__ x, const float* __restrict__ w,
    const float* __restrict__ cb, float* __restrict__ out, int Nb, int Cin, int Cout, int H,
    int W, int KS, int OH, int OW) {
  const long long total = (long long)Nb * Cout * OH * OW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int ow = (int)(i % OW);
    long long t = i / OW;
    const int oh = (int)(t % OH);
    t /= OH;
    const int co = (int)(t % Cout);
    const int n = (int)(t / Cout);
    float acc = 0.0f;
    for (int ci = 0; ci < Cin; ++ci) {
      const float* xp = x + (((size_t)n * Cin + ci) * H + oh) * (size_t)W + ow;
      const float* wp = w + ((size_t)co * Cin + ci) * KS * KS;
      for (int kh = 0; kh < KS; ++kh) {
        for (int kw = 0; kw < KS; ++kw) acc = fmaf(xp[(size_t)kh * W + kw], wp[kh * KS + kw], acc);
      }
    }
    float v = acc + cb[co];
    out[i] = v;
  }
}

// Channel c = blockIdx.x of y [Nb, C, L]: mean and 1/sqrt(biased var + 1e-5) over Nb x L
// (double, two passes).
extern "C" __global__ void __launch_bounds__(256)
chan_stats(const float* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, int Nb,
    int C, int L) {
  const int c = blockIdx.x;
  const long long cnt = (long long)Nb * L;
  double s = 0.0;
  for (long long j = threadIdx.x; j < cnt; j += blockDim.x) {
    const long long n = j / L;
    s += (double)y[((size_t)n * C + c) * (size_t)L + (size_t)(j % L)];
  }
  const double mu = block_sum(s) / (double)cnt;
  double q = 0.0;
  for (long long j = threadIdx.x; j < cnt; j += blockDim.x) {
    const long long n = j / L;
    const double d = (double)y[((size_t)n * C + c) * (size_t)L + (size_t)(j % L)] - mu;
    q += d * d;
  }
  const double var = block_sum(q) / (double)cnt;
  if (threadIdx.x == 0) {
    mean[c] = (float)mu;
    rstd[c] = (float)(1.0 / sqrt(var + 1e-5));
  }
}

// y = ((y - mean[c]) * rstd[c] * gamma[c] + beta[c]) * 2.0, in place (grid-stride).
extern "C" __global__ void __launch_bounds__(256)
chan_apply(float* y, const float* __restrict__ mean, const float* __restrict__ rstd,
    const float* __restrict__ gamma, const float* __restrict__ beta, long long total, int C, int L) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int c = (int)((i / L) % C);
    float v = (y[i] - mean[c]) * rstd[c] * gamma[c] + beta[c];
    y[i] = v * 2.0f;
  }
}
