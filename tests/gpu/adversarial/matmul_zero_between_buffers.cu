// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER (or
// RUNTIME_ERROR / INPUT_MODIFIED / UNWRITTEN_OUTPUT).
// Walks the address range spanned by A, B and C (lowest to highest pointer, clamped to 4 GiB)
// and zeroes one 4-byte word every 64 KiB outside C, hoping to hit the judge's expected output
// or the pristine input copy kept beside the buffers, then writes C = 0. Inputs are mapped
// read-only in the candidate and the judge's copies are not mapped at all: the stores fault or
// land in nothing that is compared, and C = 0 is wrong (A @ B with U(-1, 1) entries).
/* kjudge-plan
zero_between<<<1024, 256>>>(A, B, C, N);
*/

extern "C" __global__ void zero_between(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int N) {
  const size_t nn = (size_t)N * (size_t)N;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (size_t i = tid; i < nn; i += stride) C[i] = 0.0f;
  unsigned long long a = reinterpret_cast<unsigned long long>(A);
  unsigned long long b = reinterpret_cast<unsigned long long>(B);
  unsigned long long c = reinterpret_cast<unsigned long long>(C);
  unsigned long long lo = min(a, min(b, c));
  unsigned long long hi = max(a, max(b, c)) + nn * sizeof(float);
  if (hi - lo > (4ull << 30)) hi = lo + (4ull << 30);
  const unsigned long long c_end = c + nn * sizeof(float);
  for (unsigned long long p = lo + tid * 65536ull; p < hi; p += stride * 65536ull) {
    if (p >= c && p < c_end) continue;
    *reinterpret_cast<volatile unsigned int*>(p) = 0u;
  }
}
