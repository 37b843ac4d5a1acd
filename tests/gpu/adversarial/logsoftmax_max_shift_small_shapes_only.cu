// Adversarial: level1/24_LogSoftmax. Expected: WRONG_ANSWER (under the "large" input regime).
// Distribution blind spot at the bench shape (issue 26 point 2): a stable log-softmax
// (y = x - max - log(sum exp(x - max))) at every test shape, the x30 stress shape included,
// that computes y = x - log(sum exp(x)) without the max shift only at the bench shape
// (N = 393,216), where the declared N(0, 1) logits can never overflow. Under the "large"
// regime (x100: logits up to ~+-500; float32 PyTorch stays within the 1e-5 tolerance there,
// checked in float64) exp(x) overflows, the row sum is inf and every y is -inf: a timed
// sample or the re-check drawn in that regime must fail the whole job.
/* kjudge-plan
log_softmax_rows<<<M, 256>>>(X, Y, M, N);
*/

__device__ __forceinline__ float block_reduce(float v, float* red, bool take_max) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      const float o = red[threadIdx.x + s];
      red[threadIdx.x] = take_max ? fmaxf(red[threadIdx.x], o) : red[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const float r = red[0];
  __syncthreads();
  return r;
}

extern "C" __global__ void log_softmax_rows(const float* __restrict__ X, float* __restrict__ Y,
                                            int M, int N) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  const bool shift = N < 65536;  // the shortcut: no max pass at the bench shape
  float m = 0.0f;
  if (shift) {
    float local = __int_as_float(0xff800000);
    for (int j = threadIdx.x; j < N; j += blockDim.x) local = fmaxf(local, x[j]);
    m = block_reduce(local, red, true);
  }
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) sum += expf(x[j] - m);
  const float lse = logf(block_reduce(sum, red, false));
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = (x[j] - m) - lse;
}
