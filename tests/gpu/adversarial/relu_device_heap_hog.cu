// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER (or RUNTIME_ERROR).
// A device-heap hog: the first block's threads call malloc in device code (1 MiB at a time)
// until it returns NULL and never free, keeping the pointers in a __device__ array so nothing
// is optimised away; the heap stays exhausted for the rest of the process. Y = 0 (wrong for
// X > 0). The next job (tests/gpu/unusual/relu_device_malloc.cu, which mallocs and frees a
// staging buffer per block and traps if malloc fails) must be CORRECT: a fresh candidate
// process starts with an empty device heap.
/* kjudge-plan
heap_hog<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

#define KEEP 4096
__device__ void* g_kept[KEEP];
__device__ unsigned int g_nkept;

extern "C" __global__ void heap_hog(const float* __restrict__ X, float* __restrict__ Y,
                                    long long n) {
  if (blockIdx.x == 0) {
    for (int tries = 0; tries < 1 << 16; ++tries) {
      void* p = malloc(1u << 20);
      if (p == nullptr) break;
      static_cast<volatile char*>(p)[0] = 1;
      const unsigned int k = atomicAdd(&g_nkept, 1u);
      g_kept[k % KEEP] = p;
    }
  }
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    (void)X[i];
    Y[i] = 0.0f;
  }
}
