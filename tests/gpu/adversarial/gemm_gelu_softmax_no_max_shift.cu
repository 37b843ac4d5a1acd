// Adversarial: level2/99_Matmul_GELU_Softmax. Expected: WRONG_ANSWER.
// A plain, careful fp32 kernel pair with one flaw: the row softmax skips the max shift
// (exp(y) / sum exp(y)). Exact algebra and fine on the usual O(1) logits, but on the stress
// shape (inputs x35, logits 100-200) exp overflows fp32: inf / inf = NaN.
/* kjudge-plan
linear_gelu<<<dim3(cdiv(N, 128), M), 128>>>(X, W, B, Y, M, N, K);
softmax_no_shift<<<M, 256>>>(Y, M, N);
*/

extern "C" __global__ void linear_gelu(const float* __restrict__ X, const float* __restrict__ W,
                                       const float* __restrict__ B, float* __restrict__ Y,
                                       int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (m >= M || n >= N) return;
  const float* x = X + (size_t)m * K;
  const float* w = W + (size_t)n * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(x[k], w[k], acc);
  acc += B[n];
  Y[(size_t)m * N + n] = 0.5f * acc * (1.0f + erff(acc * 0.70710678118654752f));
}

extern "C" __global__ void softmax_no_shift(float* __restrict__ Y, int M, int N) {
  __shared__ float part[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  float* y = Y + (size_t)row * N;
  float s = 0.0f;
  for (int j = threadIdx.x; j < N; j += 256) s += expf(y[j]);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const float inv = 1.0f / part[0];
  for (int j = threadIdx.x; j < N; j += 256) y[j] = expf(y[j]) * inv;
}
