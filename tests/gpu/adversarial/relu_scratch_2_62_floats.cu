// Adversarial: level1/19_ReLU. Expected: REJECTED.
// Plan arithmetic overflow in a scratch size: 2^62 floats is 2^64 bytes, which wraps to 0 in
// 64-bit arithmetic. A judge that multiplied count * 4 unchecked would allocate 0 bytes (or a
// guard page) and hand the kernel a "valid" pointer it then writes n floats through. The
// element count times the dtype size must be checked for overflow and the plan REJECTED.
/* kjudge-plan
scratch hoard : f32[4611686018427387904];
relu_hoard<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, hoard, M * N);
*/

extern "C" __global__ void relu_hoard(const float* __restrict__ X, float* __restrict__ Y,
                                      float* hoard, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    hoard[i] = X[i];
    Y[i] = fmaxf(hoard[i], 0.0f);
  }
}
