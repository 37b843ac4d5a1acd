// Unusual but correct: level1/5_Matrix_scalar_multiplication. Expected: CORRECT.
// Grid-stride float4 kernel with a peeled head and a scalar tail: if A and C have the same
// address modulo 16, the first `head` (0..3) elements are done one by one until the pointers
// are 16-byte aligned, the middle as float4 loads/stores, the last (n - head) % 4 elements one
// by one; otherwise everything is scalar. C = A * s in fp32 (one correctly rounded multiply,
// bit-identical to the reference's (float)((double)a * s)).
/* kjudge-plan
scale_peeled<<<min(cdiv(M * N, 1024), 16384), 256>>>(A, C, M * N, s);
*/

extern "C" __global__ void __launch_bounds__(256)
scale_peeled(const float* __restrict__ A, float* __restrict__ C, long long n, float s) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const unsigned long long a_addr = reinterpret_cast<unsigned long long>(A);
  const unsigned long long c_addr = reinterpret_cast<unsigned long long>(C);
  if ((a_addr & 15ull) != (c_addr & 15ull) || (a_addr & 3ull) != 0ull) {
    for (long long i = tid; i < n; i += stride) C[i] = A[i] * s;
    return;
  }
  long long head = (long long)(((16ull - (a_addr & 15ull)) & 15ull) / 4ull);  // 0..3
  if (head > n) head = n;
  if (tid < head) C[tid] = A[tid] * s;
  const long long n4 = (n - head) / 4;
  const float4* __restrict__ A4 = reinterpret_cast<const float4*>(A + head);
  float4* __restrict__ C4 = reinterpret_cast<float4*>(C + head);
  for (long long i = tid; i < n4; i += stride) {
    float4 v = A4[i];
    v.x *= s;
    v.y *= s;
    v.z *= s;
    v.w *= s;
    C4[i] = v;
  }
  for (long long i = head + n4 * 4 + tid; i < n; i += stride) C[i] = A[i] * s;
}
