// Adversarial: level1/19_ReLU. Expected: RUNTIME_ERROR.
// A small out-of-bounds write: the example solution's ReLU (float4 grid-stride loop, scalar
// tail), but the tail loop runs one element too far (i <= n), so it reads X[n] and writes Y[n],
// one element past the end of Y. Y[n] lies in cudaMalloc's rounding slack, so nothing faults;
// the guard band right after Y's last byte catches it (the message names output 'Y', the
// bytes past its end and the test shape).
/* kjudge-plan
relu_vec4<<<min(cdiv(M * N, 1024), 16384), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void __launch_bounds__(256)
relu_vec4(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t total = (size_t)n;
  const bool aligned =
      ((reinterpret_cast<unsigned long long>(X) | reinterpret_cast<unsigned long long>(Y)) & 15ull) == 0;
  size_t done = 0;  // elements handled by the vector loop
  if (aligned) {
    const size_t n4 = total / 4;
    const float4* __restrict__ X4 = reinterpret_cast<const float4*>(X);
    float4* __restrict__ Y4 = reinterpret_cast<float4*>(Y);
    for (size_t i = tid; i < n4; i += stride) {
      float4 v = X4[i];
      v.x = fmaxf(v.x, 0.0f);
      v.y = fmaxf(v.y, 0.0f);
      v.z = fmaxf(v.z, 0.0f);
      v.w = fmaxf(v.w, 0.0f);
      Y4[i] = v;
    }
    done = n4 * 4;
  }
  for (size_t i = done + tid; i <= total; i += stride) {  // the bug: <= instead of <
    Y[i] = fmaxf(X[i], 0.0f);
  }
}
