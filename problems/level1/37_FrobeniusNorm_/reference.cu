// Trusted reference for level1/37_FrobeniusNorm_:
//   ref_fro_partial: 1024 blocks, grid-stride sums of x^2 in double -> part[1024];
//   ref_fro_final:   one block sums the 1024 partials, nrm[0] = sqrt(sum);
//   ref_fro_scale:   y = x / nrm in double, rounded once to fp32.
// Block reductions go through shared memory with a plain halving tree.
#define REF_T 256

extern "C" __global__ void __launch_bounds__(REF_T)
ref_fro_partial(const float* __restrict__ X, double* __restrict__ part, long long n) {
  __shared__ double red[REF_T];
  const int t = threadIdx.x;
  double s = 0.0;
  const long long stride = (long long)gridDim.x * REF_T;
  for (long long i = (long long)blockIdx.x * REF_T + t; i < n; i += stride) {
    const double v = (double)X[i];
    s += v * v;
  }
  red[t] = s;
  __syncthreads();
  for (int k = REF_T / 2; k > 0; k /= 2) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  if (t == 0) part[blockIdx.x] = red[0];
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_fro_final(const double* __restrict__ part, double* __restrict__ nrm, int n_part) {
  __shared__ double red[REF_T];
  const int t = threadIdx.x;
  double s = 0.0;
  for (int i = t; i < n_part; i += REF_T) s += part[i];
  red[t] = s;
  __syncthreads();
  for (int k = REF_T / 2; k > 0; k /= 2) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  if (t == 0) nrm[0] = sqrt(red[0]);
}

extern "C" __global__ void ref_fro_scale(const float* __restrict__ X, const double* __restrict__ nrm,
                                         float* __restrict__ Y, long long n) {
  const double norm = nrm[0];
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    Y[i] = (float)((double)X[i] / norm);
}
