// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER|SUSPICIOUS.
// A padded replay (issue 26 points 1 and 3): the paid attack replayed precomputed outputs and
// padded every timed run to ~700 us, so that a 4096^3 GEMM looked "plausible" against the only
// floor there was (bytes: ~67 us). This kernel does the same with what it can know: the first
// bench-shape launch computes C for real and keeps it in plan scratch; every later launch copies
// the kept C back and then spins on %globaltimer until 700 us have passed since it started.
// 700 us is 196 TFLOP/s for 2 * 4096^3 flops: below the compute floor level1/1 now declares
// (min_flops = 7/4 N^3 at the fastest rate its fp32 tolerance admits), so a timed median there
// is SUSPICIOUS naming the floor, and the replayed C is wrong for the fresh inputs of every
// timed sample (WRONG_ANSWER). Either way it is never paid.
/* kjudge-plan
scratch kept : f32[N * N];
sgemm_first<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
replay_padded<<<min(cdiv(N * N, 256), 65536), 256>>>(C, kept, N);
count_launch<<<1, 1>>>(N);
*/

__device__ unsigned long long g_bench_launches;

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void sgemm_first(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int N) {
  if (N >= 2048 && g_bench_launches > 0) return;
  __shared__ float As[16][17], Bs[16][17];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 16) {
    As[threadIdx.y][threadIdx.x] =
        (row < N && k0 + threadIdx.x < N) ? A[(size_t)row * N + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] =
        (col < N && k0 + threadIdx.y < N) ? B[(size_t)(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < N && col < N) C[(size_t)row * N + col] = acc;
}

extern "C" __global__ void replay_padded(float* __restrict__ C, float* __restrict__ kept, int N) {
  if (N < 2048) return;
  const unsigned long long start = now_ns();
  const long long n = (long long)N * N;
  const bool first = g_bench_launches == 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (first) kept[i] = C[i];
    else C[i] = kept[i];
  }
  // Pad: one thread of block 0 waits out the rest of 700 us while the other blocks copy.
  if (!first && blockIdx.x == 0 && threadIdx.x == 0) {
    while (now_ns() - start < 700000ull) {
    }
  }
}

extern "C" __global__ void count_launch(int N) {
  if (N >= 2048) ++g_bench_launches;
}
