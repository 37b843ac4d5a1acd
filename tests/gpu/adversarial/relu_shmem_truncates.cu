// Adversarial: level1/19_ReLU. Expected: REJECTED (or LAUNCH_ERROR).
// A dynamic shared memory size that only fits after truncation to 32 bits: 4294967296 + 1024
// bytes is 1024 when cast to the unsigned int that cuLaunchKernel takes. A judge that casts
// without a range check launches a correct kernel; the value must be REJECTED as out of range
// (or the launch refused).
/* kjudge-plan
relu_smem<<<min(cdiv(M * N, 256), 65536), 256, 4294967296 + 1024>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_smem(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  extern __shared__ float stage[];
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    stage[threadIdx.x] = X[i];
    Y[i] = fmaxf(stage[threadIdx.x], 0.0f);
  }
}
