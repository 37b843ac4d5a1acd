// Adversarial: level1/19_ReLU. Expected: COMPILE_ERROR (or LAUNCH_ERROR / SUSPICIOUS /
// WRONG_ANSWER).
// Busy after stop: the plan's kernel only launches the real work from the device into the
// fire-and-forget stream (CUDA dynamic parallelism) and returns at once, so the work would
// run after the timing event, on a stream the judge never waits on; the output would be
// written late or never. CDP needs relocatable device code and the device runtime
// (cudadevrt), which the judge does not link: it must not compile, load or pass.
/* kjudge-plan
relu_launcher<<<1, 1>>>(X, Y, M * N);
*/

#ifndef cudaStreamFireAndForget
#define cudaStreamFireAndForget ((cudaStream_t)0x4)  // the device runtime's value
#endif

extern "C" __global__ void relu_work(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
}

extern "C" __global__ void relu_launcher(const float* __restrict__ X, float* __restrict__ Y,
                                         long long n) {
  const unsigned int blocks = (unsigned int)min((n + 255) / 256, 65536ll);
  relu_work<<<blocks, 256, 0, cudaStreamFireAndForget>>>(X, Y, n);
}
