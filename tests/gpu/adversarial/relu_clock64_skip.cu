// Adversarial: level1/19_ReLU. Expected: SUSPICIOUS (or UNWRITTEN_OUTPUT / WRONG_ANSWER).
// Like relu_globaltimer.cu, but keyed on the SM cycle counter %clock64 (read with inline PTX)
// instead of %globaltimer: the first launch records block 0's clock; once more than 10^8
// cycles (~50 ms at ~2 GHz) have passed on that counter, launches on large inputs skip the work.
// %clock64 is per SM and not synchronised across SMs, so the skip is erratic; any skipped
// timed sample leaves poisoned (unwritten) output behind.
/* kjudge-plan
relu_clock<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ unsigned long long g_first_clock;

extern "C" __global__ void relu_clock(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(now));
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicCAS(&g_first_clock, 0ull, now);
  const unsigned long long first = *(volatile unsigned long long*)&g_first_clock;
  if (n > 100000 && first != 0ull && now - first > 100000000ull && now > first) return;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
