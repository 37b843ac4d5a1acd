// level2/70_Gemm_Sigmoid_Scaling_ResidualAdd starter: nn.Linear, then sigmoid(y) * scaling_factor + y
// One thread per output is launched below; replace the TODOs with your kernels and adjust
// the plan (tiles, shared memory, ...) to match.
/* kjudge-plan
fused_linear<<<dim3(cdiv(N, 16), cdiv(M, 16)), dim3(16, 16)>>>(X, W, B, scaling_factor, Y, M, N, K);
*/

extern "C" __global__ void fused_linear(const float* __restrict__ X, const float* __restrict__ W,
    const float* __restrict__ B,
    float scaling_factor,
    float* __restrict__ Y, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  // TODO: Y[row][col] = sigmoid(v) * scaling_factor + v,   sigmoid(x) = 1 / (1 + exp(-x)) with v = X[row] . W[col] (+ B[col])
  (void)X;
  (void)W;
  (void)Y;
  (void)K;
}
