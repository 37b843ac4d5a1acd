// Trusted reference for level2/bert_linear: one thread per output, the dot product X[row] .
// W[col] accumulated in double, plus the bias, rounded once to fp32.

extern "C" __global__ void ref_linear(const float* __restrict__ A, const float* __restrict__ Bt,
    const float* __restrict__ bias,
    float* __restrict__ Out, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + (size_t)row * (size_t)K;
  const float* b = Bt + (size_t)col * (size_t)K;
  double acc = 0.0;
  for (int k = 0; k < K; ++k) acc += (double)a[k] * (double)b[k];
  double v = acc;
  v += (double)bias[col];
  Out[(size_t)row * (size_t)N + col] = (float)v;
}
