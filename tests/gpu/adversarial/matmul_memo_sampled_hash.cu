// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER (or SUSPICIOUS).
// Memoisation across timed samples: caches C in __device__ memory (two slots of up to
// 4096 x 4096) keyed by N and a "hash" of a few input elements, and replays the cached C
// (a plain copy, ~100x faster than the GEMM) whenever the key matches; on a miss it computes
// honestly and stores. The hash is the cheater's usual cheap one: it folds only the sign bits
// of A[0], A[last], B[0], B[last] into one bit, so with fresh inputs for every timed sample
// the third sample of a shape at the latest replays another input set's C. Every timed sample
// is checked: the replayed C is stale.
/* kjudge-plan
memo_lookup<<<1, 32>>>(A, B, N);
memo_matmul<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
*/

#define CAP (4096 * 4096)
__device__ float g_cache[2][CAP];
__device__ int g_key_n[2];   // N stored in the slot, 0 = empty
__device__ int g_hit;        // this call: 1 = replay slot g_slot
__device__ int g_slot;

__device__ __forceinline__ int weak_hash(const float* A, const float* B, int N) {
  const size_t last = (size_t)N * N - 1;
  const unsigned s = (__float_as_uint(A[0]) ^ __float_as_uint(A[last]) ^ __float_as_uint(B[0]) ^
                      __float_as_uint(B[last])) >> 31;
  return (int)s;
}

extern "C" __global__ void memo_lookup(const float* __restrict__ A, const float* __restrict__ B,
                                       int N) {
  if (threadIdx.x != 0) return;
  const int slot = weak_hash(A, B, N);
  g_slot = slot;
  g_hit = ((size_t)N * N <= CAP && g_key_n[slot] == N) ? 1 : 0;
}

extern "C" __global__ void memo_matmul(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int N) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int slot = g_slot;
  const int hit = g_hit;
  const int row = blockIdx.y * 16 + threadIdx.y;
  const int col = blockIdx.x * 16 + threadIdx.x;
  const bool cacheable = (size_t)N * N <= CAP;
  if (hit) {  // replay
    if (row < N && col < N) C[(size_t)row * N + col] = g_cache[slot][(size_t)row * N + col];
    return;
  }
  float acc = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 16) {
    As[threadIdx.y][threadIdx.x] = (row < N && k0 + threadIdx.x < N) ? A[(size_t)row * N + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < N && col < N) ? B[(size_t)(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < N && col < N) {
    C[(size_t)row * N + col] = acc;
    if (cacheable) g_cache[slot][(size_t)row * N + col] = acc;
  }
  if (cacheable && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
    g_key_n[slot] = N;  // other blocks may still be storing: a torn cache is also fine by us
  }
}
