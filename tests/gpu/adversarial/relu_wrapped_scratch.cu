// Adversarial: level1/19_ReLU. Expected: REJECTED.
// A scratch buffer of 2^62 floats: 2^64 bytes, which wraps to 0 in 64-bit arithmetic. It must be
// rejected when the plan is validated (size overflow, with the plan's line:column), never
// allocated as a 0-byte buffer that the kernel then writes far past.
/* kjudge-plan
scratch hoard : f32[4611686018427387904];
relu_scratch<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, hoard, M * N);
*/

extern "C" __global__ void relu_scratch(const float* __restrict__ X, float* __restrict__ Y,
                                        float* hoard, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    hoard[i] = X[i];
    Y[i] = fmaxf(hoard[i], 0.0f);
  }
}
