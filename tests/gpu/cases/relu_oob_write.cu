// Expected: RUNTIME_ERROR on level1/19_ReLU (an illegal address; the runner dies and is
// respawned, and the next job must still be served).
// Computes Y correctly, then thread 0 of each block also writes 2^44 floats (64 TiB) past
// Y: far beyond any allocation, so the store faults instead of corrupting neighbours.
/* kjudge-plan
relu_oob<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_oob(const float* __restrict__ X, float* __restrict__ Y,
                                    long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (threadIdx.x == 0) {
    volatile float* far_away = Y + (1LL << 44) + blockIdx.x;
    *far_away = 1.0f;
  }
}
