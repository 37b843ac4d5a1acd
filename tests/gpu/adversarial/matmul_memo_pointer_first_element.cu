// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER (or SUSPICIOUS).
// Memoisation keyed on the buffers' addresses plus the first element: slots keyed by
// (A, B, C pointers, N, sign of A[0]); a hit copies the cached C instead of computing (the
// "first element" is coarsened to its sign, as a cheater who assumes inputs are only reused
// or perturbed would). With fresh inputs at the same addresses the sign repeats, so by the
// third timed sample of a shape a stale C is replayed; every timed sample is checked. (N up
// to 1024: eight slots, least recently stored replaced; larger N: one slot per sign.)
/* kjudge-plan
memo_ptr_lookup<<<1, 32>>>(A, B, C, N);
memo_ptr_matmul<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
*/

#define SLOTS 8
#define BIG (4096 * 4096)
__device__ float g_big[2][BIG];        // N > 1024: one slot per sign of A[0]
__device__ float g_small[SLOTS][1024 * 1024];
__device__ const float* g_a[SLOTS];
__device__ const float* g_b[SLOTS];
__device__ float* g_c[SLOTS];
__device__ int g_n[SLOTS];
__device__ int g_bucket[SLOTS];
__device__ int g_next;
__device__ int g_use;     // slot for this call
__device__ int g_replay;  // 1: replay

extern "C" __global__ void memo_ptr_lookup(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int N) {
  if (threadIdx.x != 0) return;
  const int bucket = A[0] >= 0.0f ? 1 : 0;
  const bool big = N > 1024;
  int found = -1;
  for (int s = big ? bucket : 0; s < (big ? bucket + 1 : SLOTS); ++s) {
    if (g_n[s] == N && g_a[s] == A && g_b[s] == B && g_c[s] == C && g_bucket[s] == bucket) found = s;
  }
  if (found >= 0) {
    g_use = found;
    g_replay = 1;
    return;
  }
  const int s = big ? bucket : (g_next++ % SLOTS);
  g_use = s;
  g_replay = 0;
  g_n[s] = N; g_a[s] = A; g_b[s] = B; g_c[s] = C; g_bucket[s] = bucket;
}

extern "C" __global__ void memo_ptr_matmul(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int N) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y;
  const int col = blockIdx.x * 16 + threadIdx.x;
  const bool fits = (size_t)N * N <= BIG;
  float* cache = N > 1024 ? g_big[g_use] : g_small[g_use];
  if (g_replay && fits) {
    if (row < N && col < N) C[(size_t)row * N + col] = cache[(size_t)row * N + col];
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
    if (fits) cache[(size_t)row * N + col] = acc;
  }
}
