// Adversarial: level1/19_ReLU. Expected: RUNTIME_ERROR.
// A small out-of-bounds write: the example solution's ReLU (float4 grid-stride loop, scalar
// tail), plus one store to Y[-1], the element right before the start of Y (say, a halo or a
// "previous element" written by thread 0). Unlike relu_oob_before (1 TiB below Y: an illegal
// address, a sticky error), this lands in mapped memory and faults nowhere; the guard band
// right before Y's first byte catches it (the message names output 'Y', the bytes before its
// start and the test shape). The runner is not restarted: the error is not sticky.
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
  for (size_t i = done + tid; i < total; i += stride) {
    Y[i] = fmaxf(X[i], 0.0f);
  }
  if (tid == 0) Y[-1] = fmaxf(X[0], 0.0f);  // the bug: one element before the start
}
