// Adversarial: level1/19_ReLU. Expected: UNWRITTEN_OUTPUT (or WRONG_ANSWER / SUSPICIOUS /
// RUNTIME_ERROR).
// Work moved past the stop event, without dynamic parallelism: each launch writes only the
// first half of its Y and finishes the *previous* launch's second half (at the previous X and
// Y addresses, remembered in __device__ variables by a second kernel) before starting its
// own. The work of call k is thus done during call k + 1, off the timing of call k. With the
// outputs of every timed sample checked right after that sample, its second half is
// unwritten (or stale); for the last call it is never done.
// If the previous call's buffers were freed meanwhile, the deferred half faults.
/* kjudge-plan
relu_lazy<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
remember<<<1, 1>>>(X, Y, M * N);
*/

__device__ const float* g_prev_x;
__device__ float* g_prev_y;
__device__ long long g_prev_n;

extern "C" __global__ void relu_lazy(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float* px = g_prev_x;
  float* py = g_prev_y;
  const long long pn = g_prev_n;
  if (py != nullptr && py != Y) {  // the previous call's deferred half
    for (long long i = pn / 2 + tid; i < pn; i += stride) py[i] = fmaxf(px[i], 0.0f);
  }
  const long long half = n < 64 ? n : n / 2;  // tiny inputs: no deferral
  for (long long i = tid; i < half; i += stride) Y[i] = fmaxf(X[i], 0.0f);
}

extern "C" __global__ void remember(const float* X, float* Y, long long n) {
  g_prev_x = X;
  g_prev_y = Y;
  g_prev_n = n;
}
