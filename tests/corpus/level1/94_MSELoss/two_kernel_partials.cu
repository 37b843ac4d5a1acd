// Style: two-kernel reduction with an f64 scratch array: grid-stride partial sums per block (warp shuffles), then a single-block final kernel dividing by the count.
/* kjudge-plan
scratch part : f64[1024];
mse_partial<<<1024, 256>>>(P, T, part, B * D);
mse_final<<<1, 1024>>>(part, L, 1024, B * D);
*/

__device__ __forceinline__ double warp_reduce(double v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
  return v;
}

extern "C" __global__ void mse_partial(const float* __restrict__ P, const float* __restrict__ T, double* __restrict__ part, long long n) {
  __shared__ double warp_sums[32];
  float acc = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float d = P[i] - T[i];
    acc = fmaf(d, d, acc);
  }
  double v = warp_reduce((double)acc);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.0;
    v = warp_reduce(v);
    if (threadIdx.x == 0) part[blockIdx.x] = v;
  }
}

extern "C" __global__ void mse_final(const double* __restrict__ part, float* __restrict__ L, int n_part, long long count) {
  __shared__ double warp_sums[32];
  double v = 0.0;
  for (int i = threadIdx.x; i < n_part; i += blockDim.x) v += part[i];
  v = warp_reduce(v);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.0;
    v = warp_reduce(v);
    if (threadIdx.x == 0) L[0] = (float)(v / (double)count);
  }
}
