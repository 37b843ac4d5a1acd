// Adversarial: level1/23_Softmax. Expected: TIMEOUT.
// Spins forever (the loop condition depends on a value the compiler cannot see through): the
// worker's watchdog kills the runner; the next case must still be judged.
/* kjudge-plan
softmax_spin<<<M, 32>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_spin(const float* __restrict__ X, float* __restrict__ Y, int M,
                                        int N) {
  volatile float v = X[0];
  unsigned long long k = 0;
  while (v == v || k != 1ull) {  // X[0] is finite: never ends
    ++k;
    v = v + 0.0f;
  }
  if (blockIdx.x < M && threadIdx.x < N) Y[(size_t)blockIdx.x * N + threadIdx.x] = v;
}
