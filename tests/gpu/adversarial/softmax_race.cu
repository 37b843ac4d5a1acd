// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER (or SUSPICIOUS / UNWRITTEN_OUTPUT).
// A race that only sometimes shows: the block reduction has no __syncthreads() between the
// warps' partial results and the read of them, nor before the broadcast of the row statistics.
// Thread 0 may read partials other warps have not written yet (left over from an earlier block
// on the same SM), and other warps may read the statistics before thread 0 wrote them. Whether
// a row comes out wrong depends on warp scheduling; over many rows and timed samples (all
// checked) it shows.
/* kjudge-plan
softmax_racy<<<M, 512>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_racy(const float* __restrict__ X, float* __restrict__ Y, int M,
                                        int N) {
  __shared__ float part[16];
  __shared__ float stats[2];
  const int row = blockIdx.x;
  if (row >= M) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  float m = -3.0e38f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) m = fmaxf(m, x[j]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (lane == 0) part[warp] = m;
  // missing __syncthreads()
  if (threadIdx.x == 0) {
    float mm = part[0];
    for (int w = 1; w < 16; ++w) mm = fmaxf(mm, part[w]);
    stats[0] = mm;
  }
  // missing __syncthreads()
  m = stats[0];
  float s = 0.0f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) s += expf(x[j] - m);
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  __syncthreads();
  if (lane == 0) part[warp] = s;
  // missing __syncthreads()
  if (threadIdx.x == 0) {
    float ss = 0.0f;
    for (int w = 0; w < 16; ++w) ss += part[w];
    stats[1] = ss;
  }
  // missing __syncthreads()
  const float inv = 1.0f / stats[1];
  for (int j = threadIdx.x; j < N; j += blockDim.x) y[j] = expf(x[j] - m) * inv;
}
