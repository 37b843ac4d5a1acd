// Trusted reference for level1/95_CrossEntropyLoss:
//   ref_ce_rows: one block (256 threads) per row: row max, then sum of exp(x - max) in double,
//                loss_b = log(sum) + max - x[t_b] -> rl[b] (double);
//   ref_loss_final: one block sums the B row losses, L[0] = sum / B rounded once to fp32.
// t_b = min((int)(T[b] * (float)C), C - 1), computed in fp32 exactly as the description says.

#define REF_T 256

// Halving-tree block sum in double (all REF_T threads call it); every thread gets the total.
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

extern "C" __global__ void __launch_bounds__(REF_T)
ref_ce_rows(const float* __restrict__ X, const float* __restrict__ T, double* __restrict__ rl,
            int B, int C) {
  __shared__ double red[REF_T];
  const int b = blockIdx.x;
  if (b >= B) return;
  const float* x = X + (size_t)b * (size_t)C;
  const int t = threadIdx.x;
  float m = x[0];
  for (int k = t; k < C; k += REF_T) m = fmaxf(m, x[k]);
  red[t] = (double)m;
  __syncthreads();
  for (int s = REF_T / 2; s > 0; s /= 2) {
    if (t < s) red[t] = fmax(red[t], red[t + s]);
    __syncthreads();
  }
  const double row_max = red[0];
  __syncthreads();
  double s = 0.0;
  for (int k = t; k < C; k += REF_T) s += exp((double)x[k] - row_max);
  s = ref_block_sum(s, red);
  if (t == 0) {
    int target = (int)(T[b] * (float)C);
    if (target > C - 1) target = C - 1;
    rl[b] = log(s) + row_max - (double)x[target];
  }
}

// Sums n_part double partials (one block, halving tree) and writes L[0] = (float)(sum / count).
extern "C" __global__ void __launch_bounds__(REF_T)
ref_loss_final(const double* __restrict__ part, float* __restrict__ L, int n_part, long long count) {
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
  if (t == 0) L[0] = (float)(red[0] / (double)count);
}
