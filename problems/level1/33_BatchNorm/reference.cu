// Trusted reference for level1/33_BatchNorm (training-mode batch statistics, weight 1, bias 0).
// Block (n, c) of grid (N, C) owns the contiguous H * W plane X[n][c].
//   pass 1: plane sums in double -> ps[c * N + n]; mean[c] = sum_n ps[c * N + n] / (N * H * W)
//   pass 2: plane sums of (x - mean[c])^2 in double -> pq[c * N + n]; var[c] = sum / (N * H * W)
//   pass 3: y = (x - mean) / sqrt(var + 1e-5), evaluated in double and rounded once to fp32.
// Block reductions go through shared memory with a plain halving tree.
#define REF_T 256

__device__ double ref_block_sum(double v, double* red) {
  const int t = threadIdx.x;
  red[t] = v;
  __syncthreads();
  for (int s = REF_T / 2; s > 0; s /= 2) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  const double r = red[0];
  __syncthreads();
  return r;
}

__device__ double ref_channel_mean(const double* p, int N, int c, long long HW) {
  double s = 0.0;
  for (int n = 0; n < N; ++n) s += p[(size_t)c * N + n];
  return s / ((double)N * (double)HW);
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_bn_sum(const float* __restrict__ X, double* __restrict__ ps, int N, int C, long long HW) {
  __shared__ double red[REF_T];
  const int n = blockIdx.x, c = blockIdx.y;
  const float* x = X + ((size_t)n * C + c) * (size_t)HW;
  double s = 0.0;
  for (long long i = threadIdx.x; i < HW; i += REF_T) s += (double)x[i];
  s = ref_block_sum(s, red);
  if (threadIdx.x == 0) ps[(size_t)c * N + n] = s;
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_bn_sqdev(const float* __restrict__ X, const double* __restrict__ ps, double* __restrict__ pq,
             int N, int C, long long HW) {
  __shared__ double red[REF_T];
  const int n = blockIdx.x, c = blockIdx.y;
  const float* x = X + ((size_t)n * C + c) * (size_t)HW;
  const double mean = ref_channel_mean(ps, N, c, HW);
  double s = 0.0;
  for (long long i = threadIdx.x; i < HW; i += REF_T) {
    const double d = (double)x[i] - mean;
    s += d * d;
  }
  s = ref_block_sum(s, red);
  if (threadIdx.x == 0) pq[(size_t)c * N + n] = s;
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_bn_normalize(const float* __restrict__ X, const double* __restrict__ ps,
                 const double* __restrict__ pq, float* __restrict__ Y, int N, int C, long long HW) {
  const int n = blockIdx.x, c = blockIdx.y;
  const size_t base = ((size_t)n * C + c) * (size_t)HW;
  const double mean = ref_channel_mean(ps, N, c, HW);
  const double var = ref_channel_mean(pq, N, c, HW);
  const double inv = 1.0 / sqrt(var + 1e-5);
  for (long long i = threadIdx.x; i < HW; i += REF_T)
    Y[base + i] = (float)(((double)X[base + i] - mean) * inv);
}
