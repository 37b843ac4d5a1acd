// Trusted reference for level1/4_Matrix_vector_multiplication_: C[i] = sum_k A[i][k] * B[k].
// One 256-thread block per row: each thread accumulates a strided slice of the row in double,
// then a shared-memory halving tree adds the 256 partial sums (in double); rounded once to fp32.
#define REF_THREADS 256

extern "C" __global__ void __launch_bounds__(REF_THREADS)
matvec_ref(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
           int M, int K) {
  __shared__ double red[REF_THREADS];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* a = A + (size_t)row * (size_t)K;
  const int t = threadIdx.x;
  double acc = 0.0;
  for (int k = t; k < K; k += REF_THREADS) acc += (double)a[k] * (double)B[k];
  red[t] = acc;
  __syncthreads();
  for (int s = REF_THREADS / 2; s > 0; s /= 2) {
    if (t < s) red[t] = red[t] + red[t + s];
    __syncthreads();
  }
  if (t == 0) C[row] = (float)red[0];
}
