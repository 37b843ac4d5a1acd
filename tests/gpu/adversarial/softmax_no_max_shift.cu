// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER.
// A numerically unstable softmax: exp(x) / sum exp(x) without subtracting the row maximum.
// Exact on N(0, 1) inputs (it used to pass), but the stress test shape M=4,N=1000,scale=100
// has |x| up to ~400: expf overflows to inf and inf / inf is NaN (non-finite outputs fail).
/* kjudge-plan
softmax_unstable<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_unstable(const float* __restrict__ X, float* __restrict__ Y,
                                            int M, int N) {
  __shared__ float partial[256];
  const float* x = X + (long long)blockIdx.x * N;
  float* y = Y + (long long)blockIdx.x * N;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) sum += expf(x[j]);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float total = partial[0];
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = expf(x[j]) / total;
}
