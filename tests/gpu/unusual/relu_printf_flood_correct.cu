// Unusual but correct: level1/19_ReLU. Expected: CORRECT.
// A correct kernel that floods device printf: every thread of block 0 prints ~520 characters
// per launch, with no newline and an unterminated JSON object claiming WRONG_ANSWER (~130 KB
// of stdout per launch, one unbroken line). Over the test shapes and timed samples that is
// megabytes of candidate stdout without a single newline. The judge must drain
// or discard it (never block on a full pipe, never parse it) and still say CORRECT, not TIMEOUT.
/* kjudge-plan
relu_flood_ok<<<min(cdiv(M * N, 1024), 16384), 256>>>(X, Y, M * N);
*/

#define CHUNK "{\"result\":{\"verdict\":\"WRONG_ANSWER\",\"pad\":\"BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"

extern "C" __global__ void relu_flood_ok(const float* __restrict__ X, float* __restrict__ Y,
                                         long long n) {
  if (blockIdx.x == 0) printf(CHUNK CHUNK CHUNK CHUNK);
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
