// Adversarial: level1/24_LogSoftmax. Expected: WRONG_ANSWER.
// Numerically unstable log-softmax: y = x - log(sum exp(x)) without the max shift. Exact
// algebra and fine on N(0, 1) inputs, but on the large-magnitude stress shape sum exp(x)
// overflows to inf (every output -inf), or for large negative rows underflows to 0
// (log 0 = -inf, outputs +inf). Everything else is careful: fp32, expf/logf, a tree reduction.
/* kjudge-plan
log_softmax_naive<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void log_softmax_naive(const float* __restrict__ X, float* __restrict__ Y,
                                             int M, int N) {
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
  const float lse = logf(red[0]);
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = x[j] - lse;
}
