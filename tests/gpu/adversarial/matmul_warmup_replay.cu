// Adversarial: level1/1_Square_matrix_multiplication_. Expected: WRONG_ANSWER|SUSPICIOUS.
// Prediction from the warm-up set: at the bench shape (N >= 2048) the first launch (the judge's
// warm-up run) computes C = A @ B for real and keeps a copy in plan scratch (kept across
// launches); every later launch (the timed samples, the re-check) skips the GEMM and copies the
// kept C back: 64 MB of copy instead of 137 GFLOP. Before fresh inputs per sample this was the
// "compute the future in the warm-up run, replay it when timed" attack of issue 26; now every
// timed sample has its own secretly keyed inputs (and regime) and is checked against its own
// reference, so the replayed C is wrong. Test shapes are computed honestly every time.
/* kjudge-plan
scratch kept : f32[N * N];
sgemm_unless_replay<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);
keep_or_replay<<<min(cdiv(N * N, 256), 65536), 256>>>(C, kept, N);
advance_launch_count<<<1, 1>>>(N);
*/

__device__ unsigned long long g_bench_launches;  // launches seen at the bench shape

extern "C" __global__ void sgemm_unless_replay(const float* __restrict__ A, const float* __restrict__ B,
                                               float* __restrict__ C, int N) {
  if (N >= 2048 && g_bench_launches > 0) return;  // replaying: no GEMM at all
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

extern "C" __global__ void keep_or_replay(float* __restrict__ C, float* __restrict__ kept, int N) {
  if (N < 2048) return;
  const long long n = (long long)N * N;
  const bool first = g_bench_launches == 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (first) kept[i] = C[i];
    else C[i] = kept[i];
  }
}

extern "C" __global__ void advance_launch_count(int N) {
  if (N >= 2048) ++g_bench_launches;
}
