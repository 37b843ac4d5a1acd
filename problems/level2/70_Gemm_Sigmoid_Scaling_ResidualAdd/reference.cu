// Trusted reference for level2/70_Gemm_Sigmoid_Scaling_ResidualAdd: one thread per output of the Linear layer, the dot
// product X[row] . W[col] accumulated in double, the epilogue evaluated in double.

extern "C" __global__ void ref_fused(const float* __restrict__ A, const float* __restrict__ Bt,
    const float* __restrict__ B,
    float scaling_factor,
    float* __restrict__ Out, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + (size_t)row * (size_t)K;
  const float* b = Bt + (size_t)col * (size_t)K;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) acc += (double)a[k] * (double)b[k];
  double v = acc;
  v += (double)B[col];
  v = (1.0 / (1.0 + exp(-v))) * (double)scaling_factor + v;
  Out[(size_t)row * (size_t)N + col] = (float)v;
}
