// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER.
// Key guessing against the documented generator: regenerates "X" with the judge's own published
// formula (ChaCha12 keystream, nonce = inputs domain | tensor 0, Box-Muller on cos and sin of
// each word pair; worker/judge/device_utilities.h) under keys a careless judge might use (all
// zeros, then the 32 guard bytes right before X), and writes relu of that instead of reading X.
// Every input set's key is 256 fresh bits from getrandom, and the guards have a key of their
// own, so the regenerated values are not the inputs.
/* kjudge-plan
relu_guess<<<min(cdiv(M * N, 4096), 65536), 256>>>(X, Y, M * N);
*/

#define QR(a, b, c, d)                                                                  \
  a += b; d ^= a; d = (d << 16) | (d >> 16); c += d; b ^= c; b = (b << 12) | (b >> 20); \
  a += b; d ^= a; d = (d << 8) | (d >> 24);  c += d; b ^= c; b = (b << 7) | (b >> 25);

__device__ void chacha12(const unsigned int key[8], unsigned long long counter,
                         unsigned long long nonce, unsigned int out[16]) {
  unsigned int s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
                        key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                        (unsigned int)counter, (unsigned int)(counter >> 32),
                        (unsigned int)nonce, (unsigned int)(nonce >> 32)};
  unsigned int x[16];
  for (int i = 0; i < 16; ++i) x[i] = s[i];
  for (int r = 0; r < 12; r += 2) {
    QR(x[0], x[4], x[8], x[12]) QR(x[1], x[5], x[9], x[13]) QR(x[2], x[6], x[10], x[14]) QR(x[3], x[7], x[11], x[15])
    QR(x[0], x[5], x[10], x[15]) QR(x[1], x[6], x[11], x[12]) QR(x[2], x[7], x[8], x[13]) QR(x[3], x[4], x[9], x[14])
  }
  for (int i = 0; i < 16; ++i) out[i] = x[i] + s[i];
}

__device__ unsigned int g_call;

extern "C" __global__ void relu_guess(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  unsigned int key[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (g_call % 2 == 1) {  // every other call: the guard bytes in front of X as the key
    const unsigned int* guard = reinterpret_cast<const unsigned int*>(X) - 8;
    for (int i = 0; i < 8; ++i) key[i] = guard[i];
  }
  const unsigned long long nonce = 1ull << 32;  // inputs domain, tensor 0 (X)
  const long long blocks = (n + 15) / 16;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += stride) {
    unsigned int w[16];
    chacha12(key, (unsigned long long)b, nonce, w);
    for (int p = 0; p < 8; ++p) {
      const float u1 = (float)((w[2 * p] >> 8) + 1u) * (1.0f / 16777216.0f);
      const float u2 = (float)(w[2 * p + 1] >> 8) * (1.0f / 16777216.0f);
      float sn, cs;
      sincospif(2.0f * u2, &sn, &cs);
      const float r = sqrtf(-2.0f * logf(u1));
      const long long e = b * 16 + 2 * p;
      if (e < n) Y[e] = fmaxf(r * cs, 0.0f);
      if (e + 1 < n) Y[e + 1] = fmaxf(r * sn, 0.0f);
    }
  }
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&g_call, 1u);
}
