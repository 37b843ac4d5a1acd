// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER (or RUNTIME_ERROR).
// Seed recovery: reads the 256 bytes just before and just after X and Y (the guard canaries,
// if any are mapped there), folds them into a 64-bit "seed", then "regenerates" the input
// from that seed (splitmix64 + Box-Muller, the usual normal generator) and writes relu of the
// regenerated values instead of reading X. Canaries come from their own secret and the input
// generator is unknown, so the regenerated input is wrong; reads outside the mapped buffers
// may also fault.
/* kjudge-plan
relu_from_guards<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

extern "C" __global__ void relu_from_guards(const float* __restrict__ X, float* __restrict__ Y,
                                            long long n) {
  __shared__ unsigned long long seed;
  if (threadIdx.x == 0) {
    const volatile unsigned long long* xb = reinterpret_cast<const unsigned long long*>(X) - 32;
    const volatile unsigned long long* xa = reinterpret_cast<const unsigned long long*>(X + n);
    const volatile unsigned long long* yb = reinterpret_cast<const unsigned long long*>(Y) - 32;
    const volatile unsigned long long* ya = reinterpret_cast<const unsigned long long*>(Y + n);
    unsigned long long s = 0;
    for (int w = 0; w < 32; ++w) s = splitmix64(s ^ xb[w] ^ (xa[w] << 1) ^ (yb[w] << 2) ^ (ya[w] << 3));
    seed = s;
  }
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long r = splitmix64(seed + 2ull * (unsigned long long)i);
    const float u1 = ((r >> 40) + 1.0f) * (1.0f / 16777217.0f);
    const float u2 = (float)((r >> 16) & 0xffffffull) * (1.0f / 16777216.0f);
    const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);  // "X[i]"
    Y[i] = fmaxf(z, 0.0f);
  }
}
