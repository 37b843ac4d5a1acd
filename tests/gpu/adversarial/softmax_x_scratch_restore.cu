// Adversarial: level1/23_Softmax. Expected: RUNTIME_ERROR (or INPUT_MODIFIED).
// Uses the input X as scratch and puts it back before returning: copies the row to Y, stores
// exp(x - max) into X, sums it, then writes Y = X * (1 / sum) and restores X from the copy.
// The final bytes of X are what they were, so a judge that only compares input checksums at
// the end would pass it; inputs are mapped read-only, so the first store to X faults.
/* kjudge-plan
softmax_x_scratch<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_x_scratch(float* __restrict__ X, float* __restrict__ Y, int M,
                                             int N) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  float m = -3.0e38f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) {
    y[j] = x[j];  // the backup
    m = fmaxf(m, y[j]);
  }
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) {
    x[j] = expf(y[j] - m);  // X as scratch
    sum += x[j];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int j = threadIdx.x; j < N; j += blockDim.x) {
    const float e = x[j];
    x[j] = y[j];  // restore
    y[j] = e * inv;
  }
}
