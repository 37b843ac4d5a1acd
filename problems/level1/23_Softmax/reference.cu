// Trusted reference for level1/23_Softmax: one block (512 threads) per row, two reads of X.
//   pass 1: each thread keeps a running (max, sum of exp(x - max)) in double, rescaling its sum
//           whenever the max grows (the "online softmax" recurrence, exact up to double rounding);
//           the block then merges the pairs: M = max m_i, S = sum s_i * exp(m_i - M).
//   pass 2: y = exp(x - M) / S, evaluated in double and rounded once to fp32.
// Why not three passes (max, then sum, then normalise)? The judge runs the reference on every
// timed sample to check the candidate's output, so its speed bounds the judge's throughput on
// this problem; one fewer read of a 6.4 GB tensor is a quarter less traffic, at no cost in
// accuracy (every operation is still done in double).
// Block reductions go through shared memory with a plain halving tree.

#define REF_THREADS 512

extern "C" __global__ void __launch_bounds__(REF_THREADS)
softmax_ref(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  __shared__ double red_m[REF_THREADS];
  __shared__ double red_s[REF_THREADS];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * (size_t)N;
  float* y = Y + (size_t)row * (size_t)N;
  const int t = threadIdx.x;

  // pass 1: running max and rescaled sum of exponentials, in double
  double m = -1.0e308;
  double s = 0.0;
  for (int j = t; j < N; j += REF_THREADS) {
    const double v = (double)x[j];
    if (v > m) {
      s = s * exp(m - v) + 1.0;
      m = v;
    } else {
      s += exp(v - m);
    }
  }
  red_m[t] = m;
  red_s[t] = s;
  __syncthreads();
  for (int h = REF_THREADS / 2; h > 0; h /= 2) {
    if (t < h) {
      const double m1 = red_m[t], m2 = red_m[t + h];
      const double mm = fmax(m1, m2);
      // A thread with no elements has s = 0 and m = -1e308: exp(-huge) is 0, never NaN.
      red_s[t] = red_s[t] * exp(m1 - mm) + red_s[t + h] * exp(m2 - mm);
      red_m[t] = mm;
    }
    __syncthreads();
  }
  const double row_max = red_m[0];
  const double row_sum = red_s[0];

  // pass 2: normalise
  for (int j = t; j < N; j += REF_THREADS) y[j] = (float)(exp((double)x[j] - row_max) / row_sum);
}
