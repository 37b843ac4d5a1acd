// Adversarial: level1/19_ReLU. Expected: TIMEOUT (message names the per-run limit).
// A correct ReLU at every test shape that takes 20 s per launch at the bench shape (one thread
// of block 0 waits on %globaltimer): longer than the judge's per-run limit (15 s), while the
// test shapes pass at full speed. Before issue 26 point 4 such a launch ended with the worker's
// stall watchdog killing the whole judge ("no progress for 20 s ... the runner was killed") and
// a judge restart per submission. Now the judge keeps reporting progress, kills only the
// candidate process when the launch passes the per-run limit, and answers TIMEOUT "...: no
// answer within 15 s (a kernel that never finishes?); the candidate process was killed". The
// example solution submitted right after shows the same judge serves the next job.
/* kjudge-plan
relu_too_slow<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void relu_too_slow(const float* __restrict__ X, float* __restrict__ Y,
                                         long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (n > 100000000LL && blockIdx.x == 0 && threadIdx.x == 0) {
    const unsigned long long start = now_ns();
    while (now_ns() - start < 20000000000ull) {
    }
  }
}
