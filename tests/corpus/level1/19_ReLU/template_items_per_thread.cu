// Style: template kernel (element type and block size as template parameters, instantiated by the plan), #pragma unroll, items per thread.
/* kjudge-plan
relu_items<float, 256, 4><<<min(cdiv(M * N, 1024), 65536), 256>>>(X, Y, M * N);
*/

template <typename T, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
relu_items(const T* __restrict__ x, T* __restrict__ y, long long n) {
  const long long tile = (long long)BLOCK * ITEMS;
  for (long long base = (long long)blockIdx.x * tile; base < n; base += (long long)gridDim.x * tile) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long idx = base + (long long)i * BLOCK + threadIdx.x;  // coalesced per item
      if (idx < n) {
        const T v = x[idx];
        y[idx] = v > T(0) ? v : T(0);
      }
    }
  }
}
