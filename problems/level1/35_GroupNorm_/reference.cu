// Trusted reference for level1/35_GroupNorm_: every normalised group is a contiguous row of L = C / G * H * W
// elements (R = N * G rows). Each row is split among P = 64 blocks (grid (64, R)), each block
// taking the elements l = p * 256 + t, l += 64 * 256.
//   pass 1: per-block sums in double -> ps[r * 64 + p]; mean = sum(ps[r * 64 ..]) / L
//   pass 2: per-block sums of (x - mean)^2 in double -> pq[r * 64 + p]; var = sum / L (biased)
//   pass 3: y = (x - mean) / sqrt(var + 1e-5), evaluated in double and rounded once to fp32.
// Block reductions go through shared memory with a plain halving tree.
#define REF_T 256
#define REF_P 64

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

__device__ double ref_row_mean(const double* ps, long long r, long long L) {
  double s = 0.0;
  for (int p = 0; p < REF_P; ++p) s += ps[r * REF_P + p];
  return s / (double)L;
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_row_sum(const float* __restrict__ X, double* __restrict__ ps, long long L) {
  __shared__ double red[REF_T];
  const long long r = blockIdx.y;
  const float* x = X + (size_t)r * (size_t)L;
  double s = 0.0;
  for (long long l = (long long)blockIdx.x * REF_T + threadIdx.x; l < L; l += (long long)REF_P * REF_T)
    s += (double)x[l];
  s = ref_block_sum(s, red);
  if (threadIdx.x == 0) ps[r * REF_P + blockIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_row_sqdev(const float* __restrict__ X, const double* __restrict__ ps, double* __restrict__ pq,
              long long L) {
  __shared__ double red[REF_T];
  const long long r = blockIdx.y;
  const float* x = X + (size_t)r * (size_t)L;
  const double mean = ref_row_mean(ps, r, L);
  double s = 0.0;
  for (long long l = (long long)blockIdx.x * REF_T + threadIdx.x; l < L; l += (long long)REF_P * REF_T) {
    const double d = (double)x[l] - mean;
    s += d * d;
  }
  s = ref_block_sum(s, red);
  if (threadIdx.x == 0) pq[r * REF_P + blockIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_row_normalize(const float* __restrict__ X, const double* __restrict__ ps,
                  const double* __restrict__ pq, float* __restrict__ Y, long long L) {
  const long long r = blockIdx.y;
  const float* x = X + (size_t)r * (size_t)L;
  float* y = Y + (size_t)r * (size_t)L;
  const double mean = ref_row_mean(ps, r, L);
  const double var = ref_row_mean(pq, r, L);
  const double inv = 1.0 / sqrt(var + 1e-5);
  for (long long l = (long long)blockIdx.x * REF_T + threadIdx.x; l < L; l += (long long)REF_P * REF_T)
    y[l] = (float)(((double)x[l] - mean) * inv);
}
