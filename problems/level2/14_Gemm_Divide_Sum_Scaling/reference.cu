// Trusted reference for level2/14_Gemm_Divide_Sum_Scaling: one thread per output of the Linear layer, the dot
// product X[row] . W[col] accumulated in double, the epilogue evaluated in double.
// The per-element values go to a double scratch Z [M, N]; a block per row sums them in double.

extern "C" __global__ void ref_gemm(const float* __restrict__ A, const float* __restrict__ Bt,
    double* __restrict__ Out, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + (size_t)row * (size_t)K;
  const float* b = Bt + (size_t)col * (size_t)K;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) acc += (double)a[k] * (double)b[k];
  double v = acc;
  v = v / 2.0;
  Out[(size_t)row * (size_t)N + col] = v;
}

#define REF_THREADS 256
// Block-wide double reductions through shared memory (plain halving tree).
__device__ double ref_block_sum(double v, double* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = REF_THREADS / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const double r = red[0];
  __syncthreads();
  return r;
}
__device__ double ref_block_max(double v, double* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = REF_THREADS / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const double r = red[0];
  __syncthreads();
  return r;
}

// Y[row] = scale * sum_j Z[row][j], summed in double: one block per row.
extern "C" __global__ void __launch_bounds__(REF_THREADS)
ref_rowsum(const double* __restrict__ Z, float* __restrict__ Y, int M, int N, float scale) {
  __shared__ double red[REF_THREADS];
  const int row = blockIdx.x;
  if (row >= M) return;
  const double* z = Z + (size_t)row * (size_t)N;
  double s = 0.0;
  for (int j = threadIdx.x; j < N; j += REF_THREADS) s += z[j];
  s = ref_block_sum(s, red);
  if (threadIdx.x == 0) Y[row] = (float)(s * (double)scale);
}
