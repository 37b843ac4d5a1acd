// level2/bert_gemm_bias_add_layernorm starter: Y = LayerNorm(X @ W^T + b + R) over rows of H.
// One block per token row is launched below; replace the TODO with your kernels and adjust
// the plan (a tiled GEMM, then a row LayerNorm, ...) to match.
/* kjudge-plan
bert_attention_output<<<T, 256>>>(X, W, b, R, gamma, beta, Y, T, H, eps);
*/

extern "C" __global__ void bert_attention_output(const float* __restrict__ X,
    const float* __restrict__ W, const float* __restrict__ b, const float* __restrict__ R,
    const float* __restrict__ gamma, const float* __restrict__ beta, float* __restrict__ Y,
    int T, int H, float eps) {
  const int row = blockIdx.x;
  if (row >= T) return;
  // TODO: z[j] = b[j] + R[row * H + j] + sum_k X[row * H + k] * W[j * H + k] for j < H, then
  // Y[row * H + j] = (z[j] - mean(z)) / sqrt(var(z) + eps) * gamma[j] + beta[j] (biased var).
  (void)X;
  (void)W;
  (void)b;
  (void)R;
  (void)gamma;
  (void)beta;
  (void)Y;
  (void)H;
  (void)eps;
}
