// Style: #include <cuda_runtime.h>, a plain grid-stride loop with size_t indices, fmaxf.
#include <cuda_runtime.h>

/* kjudge-plan
relu_kernel<<<min(cdiv(M * N, 256), 65535), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_kernel(const float* input, float* output, size_t n) {
  size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = idx; i < n; i += stride) {
    output[i] = fmaxf(input[i], 0.0f);
  }
}
