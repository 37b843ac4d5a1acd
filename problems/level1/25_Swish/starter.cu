// level1/25_Swish starter: Y[i] = X[i] * sigmoid(X[i]), elementwise over M x N fp32.
// Replace the TODO with your kernel; adjust the launch plan below to match.
/* kjudge-plan
swish<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void swish(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // TODO: compute Y[i] from X[i].
    (void)X;
    (void)Y;
  }
}
