// tests/gpu/reproduce_check.sh's kernel: a correct ReLU (level1/19_ReLU) that also prints, for
// every test shape (at most 100,000 elements), a checksum of its input X: FNV-1a 64 over the
// 32-bit words of X in order. The job's candidate_output then holds one line per test set,
//   KJ_CHECKSUM n=<M*N> h=<16 hex digits>
// and `kjudge reproduce` of that set must give an X.npy with the same checksum, bit for bit.
/* kjudge-plan
relu_checksum<<<min(cdiv(M * N, 256), 16384), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_checksum(const float* __restrict__ X, float* __restrict__ Y,
                                         long long n) {
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = tid; i < (size_t)n; i += stride) Y[i] = fmaxf(X[i], 0.0f);
  if (tid == 0 && n <= 100000) {
    unsigned long long h = 0xcbf29ce484222325ull;
    for (long long i = 0; i < n; ++i) {
      h ^= (unsigned long long)__float_as_uint(X[i]);
      h *= 0x100000001b3ull;
    }
    printf("KJ_CHECKSUM n=%lld h=%016llx\n", n, h);
  }
}
