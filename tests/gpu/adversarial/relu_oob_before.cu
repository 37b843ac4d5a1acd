// Adversarial: level1/19_ReLU. Expected: RUNTIME_ERROR.
// An out-of-bounds write: besides the right Y, thread 0 stores 1 TiB before the start of Y
// (an unmapped address): illegal address, a sticky CUDA error; the runner reports it, exits,
// and the worker starts a new one (the next case must still be judged).
/* kjudge-plan
relu_oob<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_oob(const float* __restrict__ X, float* __restrict__ Y,
                                    long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    volatile float* wild = Y - (1LL << 38);  // 2^38 floats = 1 TiB below Y
    *wild = 1.0f;
  }
}
