// Style: #include <limits> with std::numeric_limits<float>::infinity(), block size as a template parameter, shared-memory tree reduction finished with warp shuffles.
#include <limits>

/* kjudge-plan
softmax_block<1024><<<M, 1024>>>(X, Y, N);
*/

template <int BLOCK>
__device__ float block_reduce_max(float v, float* smem) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, o));
  if (threadIdx.x % 32 == 0) smem[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < BLOCK / 32 ? smem[threadIdx.x] : -std::numeric_limits<float>::infinity();
  if (threadIdx.x < 32) {
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, o));
    if (threadIdx.x == 0) smem[0] = v;
  }
  __syncthreads();
  const float r = smem[0];
  __syncthreads();  // smem is reused by the next reduction
  return r;
}

template <int BLOCK>
__device__ float block_reduce_sum(float v, float* smem) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0) smem[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < BLOCK / 32 ? smem[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) smem[0] = v;
  }
  __syncthreads();
  const float r = smem[0];
  __syncthreads();
  return r;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) softmax_block(const float* __restrict__ X, float* __restrict__ Y, int N) {
  __shared__ float smem[32];
  const float* x = X + (size_t)blockIdx.x * N;
  float* y = Y + (size_t)blockIdx.x * N;
  float m = -std::numeric_limits<float>::infinity();
  for (int i = threadIdx.x; i < N; i += BLOCK) m = fmaxf(m, x[i]);
  m = block_reduce_max<BLOCK>(m, smem);
  float s = 0.0f;
  for (int i = threadIdx.x; i < N; i += BLOCK) s += expf(x[i] - m);
  s = block_reduce_sum<BLOCK>(s, smem);
  const float inv = 1.0f / s;
  for (int i = threadIdx.x; i < N; i += BLOCK) y[i] = expf(x[i] - m) * inv;
}
