// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER.
// Numerically unstable softmax: y = exp(x) / sum exp(x) without subtracting the row maximum.
// Exact algebra, and fine on N(0, 1) inputs, but exp overflows to inf for x > 88.7 (and the
// sum to inf long before): inf / inf = NaN. The large-magnitude stress shape of numerically
// sensitive problems catches it. (Everything else is careful: fp32, expf, a tree reduction.)
/* kjudge-plan
softmax_naive<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_naive(const float* __restrict__ X, float* __restrict__ Y, int M,
                                         int N) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) sum += expf(x[j]);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = expf(x[j]) * inv;
}
