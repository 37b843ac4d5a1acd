// level1/28_HardSigmoid starter: Y[i] = min(max(X[i] + 3, 0), 6) / 6, elementwise over M x N fp32.
// Replace the TODO with your kernel; adjust the launch plan below to match.
/* kjudge-plan
hard_sigmoid<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void hard_sigmoid(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // TODO: compute Y[i] from X[i].
    (void)X;
    (void)Y;
  }
}
