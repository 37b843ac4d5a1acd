// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER (or RUNTIME_ERROR / UNWRITTEN_OUTPUT).
// Hunts for the judge's expected outputs (or another copy of the inputs) in the address space:
// one thread per block walks 2 MiB pages outward from both ends of Y (up to 256 pages each
// side, i.e. +-512 MiB) and zeroes the first 4 KiB of every page it reaches, hoping to zero the
// expected output so that its own all-zero Y "matches". Expected outputs must live in the
// judge's process, not in the candidate's address space: the writes either fault (illegal
// address) or hit nothing that matters, and Y = 0 is wrong.
/* kjudge-plan
scan_zero<<<512, 256>>>(X, Y, M, N);
*/

extern "C" __global__ void scan_zero(const float* __restrict__ X, float* __restrict__ Y, int M,
                                     int N) {
  const size_t total = (size_t)M * (size_t)N;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) Y[i] = 0.0f;
  (void)X;
  // Page b / 2 + 1 after the end of Y (even blocks) or before its start (odd blocks).
  const unsigned long long page = 2ull << 20;
  const unsigned long long y0 = reinterpret_cast<unsigned long long>(Y) & ~(page - 1);
  const unsigned long long y1 = (reinterpret_cast<unsigned long long>(Y + total) + page - 1) & ~(page - 1);
  const unsigned long long k = blockIdx.x / 2 + 1;
  const unsigned long long base = (blockIdx.x & 1) ? y0 - k * page : y1 + (k - 1) * page;
  unsigned int* p = reinterpret_cast<unsigned int*>(base);
  for (int w = threadIdx.x; w < 1024; w += blockDim.x) p[w] = 0u;  // 4 KiB
}
