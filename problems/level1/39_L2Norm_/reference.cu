// Trusted reference for level1/39_L2Norm_: one block (256 threads) per row; the row's
// sum of x^2 accumulated in double (halving-tree block reduction), then
// y = x / sqrt(sum) evaluated in double and rounded once to fp32.
#define REF_T 256

extern "C" __global__ void __launch_bounds__(REF_T)
ref_l2_norm(const float* __restrict__ X, float* __restrict__ Y, int B, int D) {
  __shared__ double red[REF_T];
  const int row = blockIdx.x;
  if (row >= B) return;
  const float* x = X + (size_t)row * (size_t)D;
  float* y = Y + (size_t)row * (size_t)D;
  const int t = threadIdx.x;
  double s = 0.0;
  for (int j = t; j < D; j += REF_T) {
    const double v = (double)x[j];
    s += v * v;
  }
  red[t] = s;
  __syncthreads();
  for (int k = REF_T / 2; k > 0; k /= 2) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  const double norm = sqrt(red[0]);
  for (int j = t; j < D; j += REF_T) y[j] = (float)((double)x[j] / norm);
}
