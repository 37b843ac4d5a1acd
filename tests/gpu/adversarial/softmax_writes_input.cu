// Adversarial: level1/23_Softmax. Expected: INPUT_MODIFIED.
// Computes the right Y, then also overwrites its own row of X with the result (an "in-place"
// shortcut). The input checksums before and after the run differ.
/* kjudge-plan
softmax_inplace<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_inplace(float* __restrict__ X, float* __restrict__ Y, int M,
                                           int N) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  float* x = X + (size_t)row * N;
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
  for (int j = threadIdx.x; j < N; j += blockDim.x) {
    const float v = expf(x[j] - m) * inv;
    y[j] = v;
    x[j] = v;  // each thread rewrites only elements it alone read
  }
}
