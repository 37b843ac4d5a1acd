// Style: #include <cmath> and std::exp on floats, a one-element-per-thread kernel with a bounds check (grid = cdiv(n, 256)).
#include <cmath>

/* kjudge-plan
sigmoid_kernel<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void sigmoid_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 1.0f / (1.0f + std::exp(-v));
  }
}
