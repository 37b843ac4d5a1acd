// Unusual but correct: level1/51_Argmax_over_a_dimension. Expected: CORRECT under every regime.
// Argmax as one 64-bit atomicMax per thread and column: the key is (the float's bits mapped to
// an order-preserving unsigned, -0 folded into +0) << 32 | (0xFFFFFFFF - index), so the largest
// key is the largest value and, among equal values, the smallest index: torch.argmax's
// first-occurrence rule, which the "ties" input regime (values on a grid of sigma / 2: most
// columns hold their maximum several times) checks. D1 is split across blockIdx.z so that many
// blocks work on one column range; a last kernel unpacks the index.
/* kjudge-plan
scratch keys : i64[B * D2];
keys_init<<<min(cdiv(B * D2, 256), 65536), 256>>>(keys, B * D2);
keys_max<<<dim3(cdiv(D2, 256), B, 16), 256>>>(X, keys, B, D1, D2);
keys_unpack<<<min(cdiv(B * D2, 256), 65536), 256>>>(keys, Y, B * D2);
*/

__device__ __forceinline__ unsigned int ordered_bits(float v) {
  if (v == 0.0f) v = 0.0f;  // -0 and +0 are equal maxima: the first index must win
  const unsigned int u = __float_as_uint(v);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

extern "C" __global__ void keys_init(unsigned long long* __restrict__ keys, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    keys[i] = 0ull;  // below every real key (ordered bits of -inf are 0x007FFFFF)
  }
}

extern "C" __global__ void keys_max(const float* __restrict__ X, unsigned long long* __restrict__ keys,
                                    int B, int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j >= D2 || b >= B) return;
  const int chunk = (D1 + gridDim.z - 1) / gridDim.z;
  const int lo = blockIdx.z * chunk;
  const int hi = min(D1, lo + chunk);
  if (lo >= hi) return;
  const float* __restrict__ x = X + (size_t)b * D1 * D2 + j;
  unsigned long long best = 0ull;
  for (int i = lo; i < hi; ++i) {
    const unsigned long long key =
        ((unsigned long long)ordered_bits(x[(size_t)i * D2]) << 32) | (0xFFFFFFFFu - (unsigned int)i);
    best = key > best ? key : best;
  }
  atomicMax(&keys[(size_t)b * D2 + j], best);
}

extern "C" __global__ void keys_unpack(const unsigned long long* __restrict__ keys,
                                       long long* __restrict__ Y, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    Y[i] = (long long)(0xFFFFFFFFu - (unsigned int)(keys[i] & 0xFFFFFFFFull));
  }
}
