// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER (under the "large" input regime).
// Distribution blind spot at the bench shape (issue 26 point 2): a careful, stable softmax at
// every shape the tests use (N < 65536, the x100 stress shape included), which drops the
// row-max shift only at the shape it is paid for (N = 393,216): y = exp(x) / sum exp(x).
// On N(0, 1) logits that is exact algebra and passes; on the "large" regime (x100, logits
// up to ~+-500) exp overflows to inf and inf / inf = NaN. The judge draws the regime of the
// warm-up set, of every timed sample (a secret deck: each regime within the first |set|
// samples) and of the re-check, and checks every timed sample, so the bench-shape-only
// shortcut must end WRONG_ANSWER. (Before regimes: CORRECT, since timed samples were N(0, 1).)
/* kjudge-plan
softmax_rows<<<M, 256>>>(X, Y, M, N);
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

extern "C" __global__ void softmax_rows(const float* __restrict__ X, float* __restrict__ Y, int M,
                                        int N) {
  __shared__ float red[256];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  // The shortcut: "the bench inputs are N(0, 1), exp cannot overflow there", so skip the
  // max pass (one read of X fewer) at the bench shape only.
  const bool shift = N < 65536;
  float m = 0.0f;
  if (shift) {
    float local = __int_as_float(0xff800000);
    for (int j = threadIdx.x; j < N; j += blockDim.x) local = fmaxf(local, x[j]);
    m = block_reduce(local, red, true);
  }
  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) sum += expf(x[j] - m);
  const float inv = 1.0f / block_reduce(sum, red, false);
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = expf(x[j] - m) * inv;
}
