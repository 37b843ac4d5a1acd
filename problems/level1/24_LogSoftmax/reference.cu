// Trusted reference for level1/24_LogSoftmax: one block (256 threads) per row.
//   pass 1: row max (exact in fp32)
//   pass 2: sum of exp(x - max) accumulated in double
//   pass 3: y = (x - max) - log(sum), evaluated in double and rounded once to fp32.
// Block reductions go through shared memory with a plain halving tree.

#define REF_THREADS 256

extern "C" __global__ void __launch_bounds__(REF_THREADS)
log_softmax_ref(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  __shared__ double red[REF_THREADS];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * (size_t)N;
  float* y = Y + (size_t)row * (size_t)N;
  const int t = threadIdx.x;

  // pass 1: max
  double m = -1.0e308;
  for (int j = t; j < N; j += REF_THREADS) m = fmax(m, (double)x[j]);
  red[t] = m;
  __syncthreads();
  for (int s = REF_THREADS / 2; s > 0; s /= 2) {
    if (t < s) red[t] = fmax(red[t], red[t + s]);
    __syncthreads();
  }
  const double row_max = red[0];
  __syncthreads();

  // pass 2: sum of exponentials, in double
  double sum = 0.0;
  for (int j = t; j < N; j += REF_THREADS) sum += exp((double)x[j] - row_max);
  red[t] = sum;
  __syncthreads();
  for (int s = REF_THREADS / 2; s > 0; s /= 2) {
    if (t < s) red[t] = red[t] + red[t + s];
    __syncthreads();
  }
  const double log_sum = log(red[0]);

  // pass 3: shift
  for (int j = t; j < N; j += REF_THREADS) y[j] = (float)(((double)x[j] - row_max) - log_sum);
}
