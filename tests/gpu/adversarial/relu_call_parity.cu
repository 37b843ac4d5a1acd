// Adversarial: level1/19_ReLU. Expected: UNWRITTEN_OUTPUT (or SUSPICIOUS / WRONG_ANSWER).
// Keyed on call-count parity: a __device__ counter advanced by the last block of each launch
// (last-block-done, no second kernel in the plan); on inputs above 10^5 elements, odd-numbered
// launches return at once, halving the mean time. Every timed sample's outputs are poisoned
// before and checked after, so the odd samples show unwritten output.
/* kjudge-plan
relu_parity<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ unsigned int g_calls;
__device__ unsigned int g_done;

extern "C" __global__ void relu_parity(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const unsigned int call = *(volatile unsigned int*)&g_calls;
  if (!(n > 100000 && (call & 1u))) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      Y[i] = fmaxf(X[i], 0.0f);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&g_done, 1u) == gridDim.x - 1) {
      g_done = 0u;
      atomicAdd(&g_calls, 1u);
    }
  }
}
