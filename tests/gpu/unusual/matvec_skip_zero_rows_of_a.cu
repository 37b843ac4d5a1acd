// Unusual but correct: level1/4_Matrix_vector_multiplication_. Expected: CORRECT.
// A sparsity-skipping kernel (issue 26, the "zeros" regime): it tests A's elements for zero and
// skips the work they would cost (a float4 of A that is all zero loads no B and does no FMA; a
// zero element does no FMA). fmaf(0, y, acc) == acc for finite y, so its outputs equal the dense
// kernel's bit for bit: legitimate, and it stays CORRECT. It gains nothing in speed from it: the
// judge never times a "zeros" input set (worker/judge/regime_deck.h); the manifest's
// `untimed=zeros` check reads the job's input keys: no timed sample in zeros, the re-check in
// zeros. Otherwise the example solution: one 512-thread block per row, a shared-memory tree.
/* kjudge-plan
matvec_skip_zeros<<<M, 512>>>(A, B, C, M, K);
*/
#define MV_THREADS 512

extern "C" __global__ void __launch_bounds__(MV_THREADS)
matvec_skip_zeros(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                  int M, int K) {
  __shared__ float red[MV_THREADS];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* __restrict__ a = A + (size_t)row * (size_t)K;
  const int t = threadIdx.x;
  const bool vec = (K % 4 == 0) &&
      (((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(B)) & 15ull) == 0);
  float acc = 0.0f;
  if (vec) {
    const float4* __restrict__ a4 = reinterpret_cast<const float4*>(a);
    const float4* __restrict__ b4 = reinterpret_cast<const float4*>(B);
    const int k4 = K / 4;
    for (int k = t; k < k4; k += MV_THREADS) {
      const float4 x = a4[k];
      if (x.x == 0.0f && x.y == 0.0f && x.z == 0.0f && x.w == 0.0f) continue;  // nothing to add
      const float4 y = b4[k];
      if (x.x != 0.0f) acc = fmaf(x.x, y.x, acc);
      if (x.y != 0.0f) acc = fmaf(x.y, y.y, acc);
      if (x.z != 0.0f) acc = fmaf(x.z, y.z, acc);
      if (x.w != 0.0f) acc = fmaf(x.w, y.w, acc);
    }
  } else {
    for (int k = t; k < K; k += MV_THREADS) {
      const float x = a[k];
      if (x != 0.0f) acc = fmaf(x, B[k], acc);
    }
  }
  red[t] = acc;
  __syncthreads();
  for (int s = MV_THREADS / 2; s > 0; s /= 2) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  if (t == 0) C[row] = red[0];
}
