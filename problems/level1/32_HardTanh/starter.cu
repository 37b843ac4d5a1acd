// level1/32_HardTanh starter: Y[i] = min(max(X[i], min_val), max_val), elementwise over M x N fp32.
// Replace the TODO with your kernel; adjust the launch plan below to match.
/* kjudge-plan
hardtanh<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N, min_val, max_val);
*/

extern "C" __global__ void hardtanh(const float* __restrict__ X, float* __restrict__ Y, long long n, float min_val, float max_val) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // TODO: compute Y[i] from X[i].
    (void)X;
    (void)Y;
    (void)min_val;
    (void)max_val;
  }
}
