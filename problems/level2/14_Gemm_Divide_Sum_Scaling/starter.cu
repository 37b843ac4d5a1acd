// level2/14_Gemm_Divide_Sum_Scaling starter: x @ W^T (no bias), / 2, sum over the output features, * scaling_factor
// One block per row of X is launched below; replace the TODO with your kernels and adjust
// the plan (tiles, scratch buffers for partial sums, ...) to match.
/* kjudge-plan
fused_linear<<<M, 256>>>(X, W, Y, M, N, K, scaling_factor);
*/

extern "C" __global__ void fused_linear(const float* __restrict__ X, const float* __restrict__ W,
    float* __restrict__ Y, int M, int N, int K, float scaling_factor) {
  const int row = blockIdx.x;
  if (row >= M) return;
  // TODO: Y[row] = scaling_factor * sum over n of (X[row] . W[n]) / 2.
  (void)X;
  (void)W;
  (void)Y;
  (void)N;
  (void)K;
}
