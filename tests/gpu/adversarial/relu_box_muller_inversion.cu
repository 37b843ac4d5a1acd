// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER.
// Seed recovery from the inputs by inverting one Box-Muller pair. The judge documents that
// X[0], X[1] = r (cos, sin)(2 pi u2) with r = sqrt(-2 ln u1) and u1, u2 the top 24 bits of the
// first two keystream words. From X[0..1] this kernel recovers u1 = exp(-(X0^2 + X1^2) / 2) and
// u2 = atan2(X1, X0) / 2 pi, i.e. those 24-bit words to within a few units, and then tests the
// hypothesis "word k = lowbias32(s + k)", a counter-based 32-bit hash with a cheap exact
// inverse: for every candidate first word (+-4 on the top 24 bits x all 256 low bytes) it
// inverts the hash to a seed s and checks lowbias32(s + 1) against the second word. It keeps
// the best seed (a match if there is one) and writes relu of the values that seed generates,
// never reading X beyond its first two elements. The inputs come from ChaCha12 under a fresh
// 256-bit key per input set, whose words reveal nothing about the next: no candidate matches,
// the regenerated X is unrelated, and the verdict is WRONG_ANSWER.
/* kjudge-plan
scratch found : i64[1];
recover_seed<<<1, 256>>>(X, found);
relu_regenerated<<<min(cdiv(M * N, 256), 65536), 256>>>(found, Y, M * N);
*/

__device__ __forceinline__ unsigned int lowbias32(unsigned int x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__device__ __forceinline__ unsigned int lowbias32_inverse(unsigned int x) {
  x ^= x >> 16;
  x *= 0x43021123u;
  x ^= x >> 15 ^ x >> 30;
  x *= 0x1d69e2a5u;
  x ^= x >> 16;
  return x;
}

// found[0] = (distance << 32) | seed; the smallest distance wins (atomicMin).
extern "C" __global__ void recover_seed(const float* __restrict__ X, unsigned long long* found) {
  const double x0 = X[0], x1 = X[1];
  const double u1 = exp(-(x0 * x0 + x1 * x1) / 2.0);  // (0, 1]: (w0 >> 8) + 1 over 2^24
  double u2 = atan2(x1, x0) / (2.0 * 3.14159265358979323846);
  if (u2 < 0) u2 += 1.0;                                  // [0, 1): (w1 >> 8) over 2^24
  const long long top0 = llrint(u1 * 16777216.0) - 1;
  const long long top1 = llrint(u2 * 16777216.0);
  if (threadIdx.x == 0) *found = ~0ull;
  __syncthreads();
  for (int c = threadIdx.x; c < 9 * 256; c += blockDim.x) {
    const long long t0 = top0 + c / 256 - 4;
    if (t0 < 0 || t0 > 0xFFFFFF) continue;
    const unsigned int w0 = ((unsigned int)t0 << 8) | (unsigned int)(c % 256);
    const unsigned int seed = lowbias32_inverse(w0);
    const long long got1 = lowbias32(seed + 1u) >> 8;
    const unsigned long long dist = (unsigned long long)llabs(got1 - top1);
    atomicMin(found, (dist << 32) | seed);
  }
}

extern "C" __global__ void relu_regenerated(const unsigned long long* __restrict__ found,
                                            float* __restrict__ Y, long long n) {
  const unsigned int seed = (unsigned int)(*found & 0xFFFFFFFFull);
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
    const unsigned long long word = (unsigned long long)(e & ~1LL);  // the pair's first word
    const unsigned int w0 = lowbias32(seed + (unsigned int)word);
    const unsigned int w1 = lowbias32(seed + (unsigned int)word + 1u);
    const float u1 = (float)((w0 >> 8) + 1u) * (1.0f / 16777216.0f);
    const float u2 = (float)(w1 >> 8) * (1.0f / 16777216.0f);
    float s, c;
    sincospif(2.0f * u2, &s, &c);
    const float r = sqrtf(-2.0f * logf(u1));
    Y[e] = fmaxf((e & 1) ? r * s : r * c, 0.0f);
  }
}
