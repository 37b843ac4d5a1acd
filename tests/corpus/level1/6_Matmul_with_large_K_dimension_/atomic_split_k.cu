// Style: split-K with atomicAdd into the output after a zeroing kernel, 32x32 tiles with 32x8 threads (4 outputs each), one K slice of 4096 per blockIdx.z.
/* kjudge-plan
zero_output<<<min(cdiv(M * N, 256), 4096), 256>>>(C, M * N);
matmul_atomic_splitk<<<dim3(cdiv(N, 32), cdiv(M, 32), cdiv(K, 4096)), dim3(32, 8)>>>(A, B, C, M, N, K);
*/

extern "C" __global__ void zero_output(float* __restrict__ C, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) C[i] = 0.0f;
}

extern "C" __global__ void __launch_bounds__(256)
matmul_atomic_splitk(const float* __restrict__ A, const float* __restrict__ B, float* C, int M, int N, int K) {
  __shared__ float As[32][33];
  __shared__ float Bs[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  const int kb = blockIdx.z * 4096;
  const int ke = min(K, kb + 4096);
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = kb; k0 < ke; k0 += 32) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = ty + 8 * i;
      const int ak = k0 + tx;
      As[r][tx] = (m0 + r < M && ak < ke) ? A[(size_t)(m0 + r) * K + ak] : 0.0f;
      const int bk = k0 + r;
      Bs[r][tx] = (bk < ke && n0 + tx < N) ? B[(size_t)bk * N + n0 + tx] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < 32; ++k) {
      const float b = Bs[k][tx];
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] = fmaf(As[ty + 8 * i][k], b, acc[i]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = m0 + ty + 8 * i, c = n0 + tx;
    if (r < M && c < N) atomicAdd(&C[(size_t)r * N + c], acc[i]);
  }
}
