// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER (or RUNTIME_ERROR).
// Probes the canaries: reads the 16 words after the end of Y and lets them choose where to
// plant a marker: if they are all equal (a fixed fill pattern) the marker goes to the row's
// first element, otherwise (secret-random canaries) to its last. The marker is the canary
// bits themselves as a float in [2, 4) (a probability is never above 1); the rest of the row
// is a correct softmax. Leaking guard bytes into the output is always wrong, and reading
// outside the mapped buffers may fault.
/* kjudge-plan
softmax_probe<<<M, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_probe(const float* __restrict__ X, float* __restrict__ Y,
                                         int M, int N) {
  __shared__ float red[256];
  __shared__ unsigned int canary_bits;
  __shared__ int where;
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  if (threadIdx.x == 0) {
    const volatile unsigned int* after = reinterpret_cast<const unsigned int*>(Y + (size_t)M * N);
    unsigned int first = after[0], acc = 0;
    bool equal = true;
    for (int w = 0; w < 16; ++w) {
      equal = equal && after[w] == first;
      acc = acc * 31u + after[w];
    }
    canary_bits = acc;
    where = equal ? 0 : N - 1;
  }
  float m = -3.0e38f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) m = fmaxf(m, x[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) sum += expf(x[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = expf(x[j] - m) * inv;
  __syncthreads();
  if (threadIdx.x == 0) y[where] = __uint_as_float((canary_bits & 0x007fffffu) | 0x40000000u);
}
