// Unusual but correct: level1/20_LeakyReLU. Expected: CORRECT.
// More than 48 KB of dynamic shared memory: 96 KiB per block (the plan's third launch
// parameter; the runner raises cudaFuncAttributeMaxDynamicSharedMemorySize). Each 1024-thread
// block stages tiles of 24576 floats of X in shared memory, then writes Y from the staged
// copy; grid-stride over tiles, the last tile partial. y = x > 0 ? x : negative_slope * x.
/* kjudge-plan
leaky_stage<<<min(cdiv(M * N, 24576), 2048), 1024, 98304>>>(X, Y, M * N, negative_slope);
*/

#define TILE 24576  // floats = 96 KiB

extern "C" __global__ void __launch_bounds__(1024)
leaky_stage(const float* __restrict__ X, float* __restrict__ Y, long long n, float negative_slope) {
  extern __shared__ float stage[];
  for (long long base = (long long)blockIdx.x * TILE; base < n; base += (long long)gridDim.x * TILE) {
    const int count = (int)min((long long)TILE, n - base);
    for (int j = threadIdx.x; j < count; j += blockDim.x) stage[j] = X[base + j];
    __syncthreads();
    // Read back another thread's element (reversed within the tile) to depend on the barrier.
    for (int j = threadIdx.x; j < count; j += blockDim.x) {
      const int src = count - 1 - j;
      const float x = stage[src];
      Y[base + src] = x > 0.0f ? x : negative_slope * x;
    }
    __syncthreads();  // before the next tile overwrites the stage
  }
}
