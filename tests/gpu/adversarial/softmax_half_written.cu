// Adversarial: level1/23_Softmax. Expected: UNWRITTEN_OUTPUT.
// Correct softmax values, but only the first half of every row is written (nothing for N = 1).
/* kjudge-plan
softmax_half<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_half(const float* __restrict__ X, float* __restrict__ Y,
                                        int M, int N) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  float m = -3.0e38f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) m = fmaxf(m, x[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) sum += expf(x[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int j = threadIdx.x; j < N / 2; j += blockDim.x) y[j] = expf(x[j] - m) * inv;
}
