// Adversarial: level1/47_Sum_reduction_over_a_dimension. Expected: WRONG_ANSWER (or
// UNWRITTEN_OUTPUT): the result is cached across calls in __device__ memory keyed by nothing.
// The first call computes and stores its output; every later call replays the stored values
// (as many as were stored) without reading X. Test shape 2 already gets shape 1's answer.
/* kjudge-plan
sum_cached<<<dim3(cdiv(D2, 256), B), 256>>>(X, Y, B, D1, D2);
mark_cached<<<1, 1>>>(Y, B * D2);
*/

#define CACHE_CAP (1 << 20)
__device__ float g_cache[CACHE_CAP];
__device__ long long g_cached = -1;  // element count stored, -1: nothing yet

extern "C" __global__ void sum_cached(const float* __restrict__ X, float* __restrict__ Y, int B,
                                      int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j >= D2) return;
  const long long o = (long long)b * D2 + j;
  const long long have = g_cached;
  if (have >= 0) {  // replay
    if (o < have) Y[o] = g_cache[o];
    return;
  }
  float acc = 0.0f;
  for (int i = 0; i < D1; ++i) acc += X[((size_t)b * D1 + i) * D2 + j];
  Y[o] = acc;
  if (o < CACHE_CAP) g_cache[o] = acc;
}

extern "C" __global__ void mark_cached(const float* Y, long long n) {
  (void)Y;
  if (g_cached < 0) g_cached = n < CACHE_CAP ? n : CACHE_CAP;
}
