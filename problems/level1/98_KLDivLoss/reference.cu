// Trusted reference for level1/98_KLDivLoss:
//   ref_kl_rows: one block (256 threads) per row, in double: the row maxima of P and Q, the log-
//                sum-exps lp and lq, then KL_b = sum_d q_d * ((Q_d - lq) - (P_d - lp)) with
//                q_d = exp(Q_d - lq) -> rl[b];
//   ref_loss_final: one block sums the B row values, L[0] = sum / B rounded once to fp32.

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

__device__ double ref_block_max(double v, double* red) {
  const int t = threadIdx.x;
  red[t] = v;
  __syncthreads();
  for (int s = REF_T / 2; s > 0; s /= 2) {
    if (t < s) red[t] = fmax(red[t], red[t + s]);
    __syncthreads();
  }
  const double r = red[0];
  __syncthreads();
  return r;
}

extern "C" __global__ void __launch_bounds__(REF_T)
ref_kl_rows(const float* __restrict__ P, const float* __restrict__ Q, double* __restrict__ rl,
            int B, int D) {
  __shared__ double red[REF_T];
  const int b = blockIdx.x;
  if (b >= B) return;
  const float* p = P + (size_t)b * (size_t)D;
  const float* q = Q + (size_t)b * (size_t)D;
  const int t = threadIdx.x;
  double mp = -1.0e308, mq = -1.0e308;
  for (int k = t; k < D; k += REF_T) {
    mp = fmax(mp, (double)p[k]);
    mq = fmax(mq, (double)q[k]);
  }
  mp = ref_block_max(mp, red);
  mq = ref_block_max(mq, red);
  double sp = 0.0, sq = 0.0;
  for (int k = t; k < D; k += REF_T) {
    sp += exp((double)p[k] - mp);
    sq += exp((double)q[k] - mq);
  }
  const double lp = mp + log(ref_block_sum(sp, red));
  const double lq = mq + log(ref_block_sum(sq, red));
  double kl = 0.0;
  for (int k = t; k < D; k += REF_T) {
    const double log_q = (double)q[k] - lq;
    const double log_p = (double)p[k] - lp;
    kl += exp(log_q) * (log_q - log_p);
  }
  kl = ref_block_sum(kl, red);
  if (t == 0) rl[b] = kl;
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
