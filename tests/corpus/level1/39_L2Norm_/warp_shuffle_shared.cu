// Style: classic block reduction: per-thread partial, warp shuffle (__shfl_down_sync), per-warp results in shared memory, then normalise with the broadcast norm.
/* kjudge-plan
l2_normalize<<<B, 512>>>(X, Y, B, D);
*/

extern "C" __global__ void l2_normalize(const float* __restrict__ X, float* __restrict__ Y, int B, int D) {
  __shared__ float warp_sums[32];
  __shared__ float norm;
  const int row = blockIdx.x;
  if (row >= B) return;
  const float* x = X + (size_t)row * D;
  float* y = Y + (size_t)row * D;
  float s = 0.0f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float v = x[i];
    s += v * v;
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffff, s, off);
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  if (lane == 0) warp_sums[wid] = s;
  __syncthreads();
  if (wid == 0) {
    const int nwarps = (blockDim.x + 31) / 32;
    float t = lane < nwarps ? warp_sums[lane] : 0.0f;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) t += __shfl_down_sync(0xffffffff, t, off);
    if (lane == 0) norm = sqrtf(t);
  }
  __syncthreads();
  const float nrm = norm;
  for (int i = threadIdx.x; i < D; i += blockDim.x) y[i] = x[i] / nrm;
}
