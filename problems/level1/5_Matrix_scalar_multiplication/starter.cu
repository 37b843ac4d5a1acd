// level1/5_Matrix_scalar_multiplication starter: C[i] = A[i] * s, elementwise over M x N fp32.
// Replace the TODO with your kernel; adjust the launch plan below to match.
/* kjudge-plan
scale<<<min(cdiv(M * N, 256), 65536), 256>>>(A, C, M * N, s);
*/

extern "C" __global__ void scale(const float* __restrict__ A, float* __restrict__ C, long long n,
                                 float s) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // TODO: compute C[i] from A[i] and s.
    (void)A;
    (void)C;
    (void)s;
  }
}
