// Trusted reference for level2/99_Matmul_GELU_Softmax: one thread per output of the Linear layer, the dot
// product X[row] . W[col] accumulated in double, the epilogue evaluated in double.
// The activations go to a double scratch Z [M, N]; a block per row applies softmax in double.

extern "C" __global__ void ref_gemm(const float* __restrict__ A, const float* __restrict__ Bt,
    const float* __restrict__ B,
    double* __restrict__ Out, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + (size_t)row * (size_t)K;
  const float* b = Bt + (size_t)col * (size_t)K;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) acc += (double)a[k] * (double)b[k];
  double v = acc;
  v += (double)B[col];
  v = 0.5 * v * (1.0 + erf(v * 0.70710678118654752));
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

// Y[row][:] = softmax(Z[row][:]) in double: one block per row.
extern "C" __global__ void __launch_bounds__(REF_THREADS)
ref_softmax(const double* __restrict__ Z, float* __restrict__ Y, int M, int N) {
  __shared__ double red[REF_THREADS];
  const int row = blockIdx.x;
  if (row >= M) return;
  const double* z = Z + (size_t)row * (size_t)N;
  float* y = Y + (size_t)row * (size_t)N;
  double m = -1.0e308;
  for (int j = threadIdx.x; j < N; j += REF_THREADS) m = fmax(m, z[j]);
  m = ref_block_max(m, red);
  double s = 0.0;
  for (int j = threadIdx.x; j < N; j += REF_THREADS) s += exp(z[j] - m);
  s = ref_block_sum(s, red);
  for (int j = threadIdx.x; j < N; j += REF_THREADS) y[j] = (float)(exp(z[j] - m) / s);
}
