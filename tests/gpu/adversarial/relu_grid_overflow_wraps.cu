// Adversarial: level1/19_ReLU. Expected: REJECTED (or LAUNCH_ERROR).
// Plan arithmetic overflow that wraps to a sensible value: the grid is
// cdiv(M * N, 256) + 4611686018427387904 * 4, and 2^62 * 4 = 2^64 wraps to 0 in int64, so an
// unchecked evaluator would launch exactly cdiv(M * N, 256) blocks of a correct kernel and
// say CORRECT. Signed overflow in plan expressions must be an error (REJECTED); a judge that
// saturates instead reports the oversized grid as LAUNCH_ERROR.
/* kjudge-plan
relu<<<cdiv(M * N, 256) + 4611686018427387904 * 4, 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.0f);
}
