// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER (under the "zeros" input regime).
// A "branch-free" ReLU through the sign ratio: y = x * (1 + x / |x|) / 2. Exact for every
// nonzero x (x / |x| is exactly +-1), so on N(0, 1) inputs, where an exact zero has
// probability ~0, it was CORRECT. At x = 0 it is 0 / 0 = NaN, and NaN never passes a
// comparison. Under the "zeros" regime half the elements are exactly 0: every test shape and
// timed sample drawn in it fails.
/* kjudge-plan
relu_sign_ratio<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_sign_ratio(const float* __restrict__ X, float* __restrict__ Y,
                                           long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float x = X[i];
    Y[i] = x * (1.0f + __fdiv_rn(x, fabsf(x))) * 0.5f;
  }
}
