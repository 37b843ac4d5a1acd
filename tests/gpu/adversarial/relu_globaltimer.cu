// Adversarial: level1/19_ReLU. Expected: SUSPICIOUS (or UNWRITTEN_OUTPUT / WRONG_ANSWER).
// Reads %globaltimer (inline PTX) to behave differently when timed: the first launch records
// the time; launches more than 40 ms later (the timing phase, after the test shapes) skip the
// work. Caught by the check of every timed sample's (poisoned) outputs.
/* kjudge-plan
relu_timer<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ unsigned long long g_first_ns;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void relu_timer(const float* __restrict__ X, float* __restrict__ Y,
                                      long long n) {
  const unsigned long long now = global_ns();
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicCAS(&g_first_ns, 0ull, now);
  const unsigned long long first = *(volatile unsigned long long*)&g_first_ns;
  if (first != 0ull && now - first > 40000000ull) return;  // being timed: skip
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
