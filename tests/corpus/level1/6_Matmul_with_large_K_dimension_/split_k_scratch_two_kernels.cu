// Style: split-K with a plan scratch buffer: kernel 1 writes one partial C per K chunk (blockIdx.z), kernel 2 sums the partials in a fixed order (deterministic).
/* kjudge-plan
scratch partial : f32[cdiv(K, 8192) * M * N];
splitk_partial<<<dim3(cdiv(N, 16), cdiv(M, 16), cdiv(K, 8192)), dim3(16, 16)>>>(A, B, partial, M, N, K);
splitk_reduce<<<min(cdiv(M * N, 256), 4096), 256>>>(partial, C, M * N, cdiv(K, 8192));
*/

#define T 16
#define KCHUNK 8192

extern "C" __global__ void splitk_partial(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ partial,
                                          int M, int N, int K) {
  __shared__ float As[T][T + 1];
  __shared__ float Bs[T][T + 1];
  const int row = blockIdx.y * T + threadIdx.y;
  const int col = blockIdx.x * T + threadIdx.x;
  const int k_begin = blockIdx.z * KCHUNK;
  const int k_end = min(K, k_begin + KCHUNK);
  float acc = 0.0f;
  for (int k0 = k_begin; k0 < k_end; k0 += T) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < k_end) ? A[(size_t)row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < k_end && col < N) ? B[(size_t)kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < M && col < N) partial[(size_t)blockIdx.z * M * N + (size_t)row * N + col] = acc;
}

extern "C" __global__ void splitk_reduce(const float* __restrict__ partial, float* __restrict__ C, long long MN, int splits) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < MN; i += (long long)gridDim.x * blockDim.x) {
    float s = 0.0f;
    for (int z = 0; z < splits; ++z) s += partial[(size_t)z * MN + i];
    C[i] = s;
  }
}
