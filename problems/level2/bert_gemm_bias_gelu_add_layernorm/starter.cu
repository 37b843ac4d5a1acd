// level2/bert_gemm_bias_gelu_add_layernorm starter: Y = LayerNorm(gelu(X @ W1^T + b1) @ W2^T +
// b2 + X). The plan below keeps the intermediate H1 in a scratch buffer: one thread per H1
// element, then one block per token row; replace the TODOs and adjust the plan to match.
/* kjudge-plan
scratch H1 : f32[T * I];
bert_ffn_up<<<dim3(cdiv(I, 16), cdiv(T, 16)), dim3(16, 16)>>>(X, W1, b1, H1, T, I, H);
bert_ffn_down_layernorm<<<T, 256>>>(H1, W2, b2, X, gamma, beta, Y, T, H, I, eps);
*/

extern "C" __global__ void bert_ffn_up(const float* __restrict__ X, const float* __restrict__ W1,
    const float* __restrict__ b1, float* __restrict__ H1, int T, int I, int H) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= T || col >= I) return;
  // TODO: H1[row * I + col] = gelu(b1[col] + sum_k X[row * H + k] * W1[col * H + k]),
  // gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2))).
  (void)X;
  (void)W1;
  (void)b1;
  (void)H1;
  (void)H;
}

extern "C" __global__ void bert_ffn_down_layernorm(const float* __restrict__ H1,
    const float* __restrict__ W2, const float* __restrict__ b2, const float* __restrict__ X,
    const float* __restrict__ gamma, const float* __restrict__ beta, float* __restrict__ Y,
    int T, int H, int I, float eps) {
  const int row = blockIdx.x;
  if (row >= T) return;
  // TODO: z[j] = b2[j] + X[row * H + j] + sum_i H1[row * I + i] * W2[j * I + i] for j < H, then
  // Y[row * H + j] = (z[j] - mean(z)) / sqrt(var(z) + eps) * gamma[j] + beta[j] (biased var).
  (void)H1;
  (void)W2;
  (void)b2;
  (void)X;
  (void)gamma;
  (void)beta;
  (void)Y;
  (void)H;
  (void)I;
  (void)eps;
}
