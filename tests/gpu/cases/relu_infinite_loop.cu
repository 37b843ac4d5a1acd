// Expected: TIMEOUT on level1/19_ReLU (the worker's watchdog must kill the runner, and the
// next job must still be served).
// Every block spins on a volatile shared flag that nobody ever sets; volatile reads are
// observable side effects, so the compiler cannot delete the loop.
/* kjudge-plan
relu_spin<<<min(cdiv(M * N, 256), 1024), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_spin(const float* __restrict__ X, float* __restrict__ Y,
                                     long long n) {
  __shared__ volatile int release;
  if (threadIdx.x == 0) release = 0;
  __syncthreads();
  while (release == 0) {
    // spin forever
  }
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
