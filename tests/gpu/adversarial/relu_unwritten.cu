// Adversarial: level1/19_ReLU. Expected: UNWRITTEN_OUTPUT.
// Launches a kernel that writes nothing at all: every element of Y keeps the judge's poison.
/* kjudge-plan
relu_nothing<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_nothing(const float* __restrict__ X, float* __restrict__ Y,
                                        long long n) {
  (void)X;
  (void)Y;
  (void)n;
}
