// Expected: INPUT_MODIFIED on level1/19_ReLU.
// Y is right, but every thread also zeroes the input element it has just read.
/* kjudge-plan
relu_clobber<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_clobber(float* X, float* Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float x = X[i];
    Y[i] = fmaxf(x, 0.0f);
    X[i] = 0.0f;
  }
}
