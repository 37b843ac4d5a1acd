// Adversarial: level1/19_ReLU. Expected: REJECTED (or LAUNCH_ERROR).
// A launch plan that asks for more memory than any GPU has: a scratch buffer of 1e12 floats
// (4 TB). The allocation fails cleanly and the job is rejected with a message, not a crash.
/* kjudge-plan
scratch hoard : f32[1000000000000];
relu_scratch<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, hoard, M * N);
*/

extern "C" __global__ void relu_scratch(const float* __restrict__ X, float* __restrict__ Y,
                                        float* hoard, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    hoard[i] = X[i];
    Y[i] = fmaxf(hoard[i], 0.0f);
  }
}
