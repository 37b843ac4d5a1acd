// Adversarial: level1/47_Sum_reduction_over_a_dimension. Expected: WRONG_ANSWER.
// Caches results in __device__ memory keyed by (input pointer, shape), up to 8 entries: each
// input set of the timed runs is computed once and then replayed (its data did not change, so
// every timed sample looks right). The re-check after timing puts new data at the same
// addresses: the replayed result is stale.
/* kjudge-plan
sum_by_ptr<<<dim3(cdiv(D2, 256), B), 256>>>(X, Y, B, D1, D2);
remember_ptr<<<1, 1>>>(X, B, D1, D2);
*/

#define SLOTS 8
#define SLOT_CAP (128 * 4096)
__device__ float g_cache[SLOTS][SLOT_CAP];
__device__ const float* g_ptr[SLOTS];
__device__ long long g_key[SLOTS];
__device__ int g_next;

__device__ __forceinline__ long long shape_key(int B, int D1, int D2) {
  return ((long long)B * 1000003LL + D1) * 1000003LL + D2;
}

__device__ int find_slot(const float* X, long long key) {
  for (int s = 0; s < SLOTS; ++s) {
    if (g_ptr[s] == X && g_key[s] == key) return s;
  }
  return -1;
}

extern "C" __global__ void sum_by_ptr(const float* __restrict__ X, float* __restrict__ Y, int B,
                                      int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j >= D2) return;
  const long long o = (long long)b * D2 + j;
  const bool fits = (long long)B * D2 <= SLOT_CAP;
  const int hit = fits ? find_slot(X, shape_key(B, D1, D2)) : -1;
  if (hit >= 0) {
    Y[o] = g_cache[hit][o];
    return;
  }
  float acc = 0.0f;
  for (int i = 0; i < D1; ++i) acc += X[((size_t)b * D1 + i) * D2 + j];
  Y[o] = acc;
  if (fits) g_cache[g_next % SLOTS][o] = acc;
}

// Runs after the sum: publishes the slot just filled (if this call computed).
extern "C" __global__ void remember_ptr(const float* X, int B, int D1, int D2) {
  const long long key = shape_key(B, D1, D2);
  if ((long long)B * D2 > SLOT_CAP || find_slot(X, key) >= 0) return;
  const int s = g_next % SLOTS;
  g_ptr[s] = X;
  g_key[s] = key;
  g_next = g_next + 1;
}
