// level1/36_RMSNorm_ starter: y = x / sqrt(mean over the C channels of x^2 + 1e-5), one RMS per
// (n, h, w) position. One thread per position is launched below; replace the TODO.
/* kjudge-plan
rms_norm<<<cdiv(N * H * W, 256), 256>>>(X, Y, N, C, H * W);
*/

extern "C" __global__ void rms_norm(const float* __restrict__ X, float* __restrict__ Y, int N,
                                    int C, long long HW) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (long long)N * HW) return;
  // TODO: with n = p / HW and hw = p % HW, channel c of this position is at
  // ((size_t)n * C + c) * HW + hw. Compute the RMS over c and write Y.
  (void)X;
  (void)Y;
  (void)C;
}
