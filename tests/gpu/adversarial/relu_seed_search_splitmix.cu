// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER.
// Seed recovery from the inputs (the attack that bought CORRECT on main at 553005f): the judge
// used to draw X[i] from splitmix64(base + i) with 24-bit uniforms, base a function of one job
// seed. This kernel reads X[0] and X[1], searches 2^24 candidate bases near the values they
// imply (a bounded stand-in for the 2^40 GPU search of the original attack, which found the
// real seed), keeps the base that best reproduces X[0..1], and writes relu of the values that
// base generates instead of reading the rest of X. With ChaCha12 keystream under a fresh
// 256-bit key per input set there is no base to find: WRONG_ANSWER.
/* kjudge-plan
scratch best : i64[2];
seed_search<<<4096, 256>>>(X, best);
relu_regen<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, best, M * N);
*/

__device__ __forceinline__ unsigned long long mix(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float old_value(unsigned long long base, long long i) {
  const unsigned long long h = mix(base + (unsigned long long)i);
  const float u1 = (float)((unsigned int)(h >> 40) + 1u) * (1.0f / 16777216.0f);
  const float u2 = (float)((unsigned int)(h >> 8) & 0xFFFFFFu) * (1.0f / 16777216.0f);
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

// best[0]: the error (float bits, order-preserving as unsigned for non-negatives) << 32 | index
extern "C" __global__ void seed_search(const float* __restrict__ X, long long* best_signed) {
  unsigned long long* best = reinterpret_cast<unsigned long long*>(best_signed);
  // best starts all ones (the judge fills scratch with 0xFF) and keeps its minimum across calls.
  const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float x0 = X[0], x1 = X[1];
  for (unsigned long long c = g; c < (1ull << 24); c += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long base = mix(c);  // candidate bases
    const float err = fabsf(old_value(base, 0) - x0) + fabsf(old_value(base, 1) - x1);
    const unsigned long long key = ((unsigned long long)__float_as_uint(err) << 32) | (c & 0xffffffffull);
    atomicMin(&best[0], key);
  }
}

extern "C" __global__ void relu_regen(const float* __restrict__ X, float* __restrict__ Y,
                                      const long long* best, long long n) {
  const unsigned long long base = mix((unsigned long long)best[0] & 0xffffffffull);
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(i < 2 ? X[i] : old_value(base, i), 0.0f);  // "X[i]" without reading X
  }
}
