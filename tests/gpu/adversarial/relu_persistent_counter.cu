// Adversarial: level1/19_ReLU. Expected: UNWRITTEN_OUTPUT (or WRONG_ANSWER / SUSPICIOUS).
// A __device__ counter that persists for the life of the module: the last block of every
// launch increments it (last-block-done with a second counter). Launches numbered 0 and 1
// compute; later launches with at most 1000 elements write nothing, larger ones compute only
// every other launch ("the state says this was done already"). If the judge reused modules or
// processes across jobs the counter would carry over; within one job, the later test shapes
// and half the timed samples are left unwritten. The next job (the example solution) must be
// CORRECT.
/* kjudge-plan
relu_counted<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ unsigned long long g_launches;
__device__ unsigned int g_blocks_done;

extern "C" __global__ void relu_counted(const float* __restrict__ X, float* __restrict__ Y,
                                        long long n) {
  const unsigned long long launch = *(volatile unsigned long long*)&g_launches;
  const bool skip = launch >= 2 && (n <= 1000 || (launch & 1ull));
  if (!skip) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      Y[i] = fmaxf(X[i], 0.0f);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&g_blocks_done, 1u) == gridDim.x - 1) {
      g_blocks_done = 0u;
      atomicAdd(&g_launches, 1ull);
    }
  }
}
