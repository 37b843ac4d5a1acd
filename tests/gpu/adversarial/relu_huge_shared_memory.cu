// Adversarial: level1/19_ReLU. Expected: LAUNCH_ERROR.
// Asks for 1 GB of dynamic shared memory per block (the device allows ~227 KB): the judge
// refuses the launch with a message naming the plan line, before anything runs.
/* kjudge-plan
relu_smem<<<min(cdiv(M * N, 256), 65536), 256, 1073741824>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_smem(const float* __restrict__ X, float* __restrict__ Y,
                                     long long n) {
  extern __shared__ float buf[];
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    buf[threadIdx.x] = fmaxf(X[i], 0.0f);
    Y[i] = buf[threadIdx.x];
  }
}
