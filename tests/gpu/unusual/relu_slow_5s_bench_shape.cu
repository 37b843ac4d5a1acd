// Unusual but correct: level1/19_ReLU. Expected: CORRECT (very slow).
// A correct ReLU that takes ~5 s per launch at the bench shape (one thread of block 0 waits on
// %globaltimer), under the judge's 15 s per-run limit. Before the candidate heartbeat, a handful
// of such launches between two progress reports (warm-up, timed sample, re-checks) passed the
// worker's 20 s stall limit: the worker killed the whole judge and answered TIMEOUT. Now the
// judge reports progress while it waits for the candidate, so slowness costs the candidate
// (a tiny speedup), never a judge restart. Test shapes run at full speed.
/* kjudge-plan
relu_slow<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void relu_slow(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (n > 100000000LL && blockIdx.x == 0 && threadIdx.x == 0) {
    const unsigned long long start = now_ns();
    while (now_ns() - start < 5000000000ull) {
    }
  }
}
