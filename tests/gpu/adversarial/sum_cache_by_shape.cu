// Adversarial: level1/47_Sum_reduction_over_a_dimension. Expected: WRONG_ANSWER.
// Caches its result in __device__ memory keyed by the shape (B, D1, D2): every test shape is
// seen once and computed honestly; at the bench shape the first call (a warm-up run) computes
// and every later call replays it, whatever the inputs now hold. Input-set rotation (different
// data per set) plus the check of every timed sample catches it.
/* kjudge-plan
sum_by_shape<<<dim3(cdiv(D2, 256), B), 256>>>(X, Y, B, D1, D2);
remember_shape<<<1, 1>>>(Y, B, D1, D2);
*/

#define CACHE_CAP (1 << 20)  // 128 x 4095 outputs at the bench shape fit
__device__ float g_cache[CACHE_CAP];
__device__ long long g_key = -1;

__device__ __forceinline__ long long shape_key(int B, int D1, int D2) {
  return ((long long)B * 1000003LL + D1) * 1000003LL + D2;
}

extern "C" __global__ void sum_by_shape(const float* __restrict__ X, float* __restrict__ Y,
                                        int B, int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j >= D2) return;
  const long long o = (long long)b * D2 + j;
  const bool fits = (long long)B * D2 <= CACHE_CAP;
  if (fits && g_key == shape_key(B, D1, D2)) {
    Y[o] = g_cache[o];
    return;
  }
  float acc = 0.0f;
  for (int i = 0; i < D1; ++i) acc += X[((size_t)b * D1 + i) * D2 + j];
  Y[o] = acc;
  if (fits) g_cache[o] = acc;
}

extern "C" __global__ void remember_shape(const float* Y, int B, int D1, int D2) {
  (void)Y;
  if ((long long)B * D2 <= CACHE_CAP) g_key = shape_key(B, D1, D2);
}
