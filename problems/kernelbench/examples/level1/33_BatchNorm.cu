// kernelbench/level1/33_BatchNorm example solution, the kernels of problems/level1/33_BatchNorm
// (renamed to KernelBench's tensor and size names) plus the affine step: nn.BatchNorm2d in
// training mode normalises with the batch statistics (biased variance, eps = 1e-5), then
// y = x_hat * bn_weight[c] + bn_bias[c]. The running statistics are inputs here and stay
// untouched (PyTorch's in-place update of them is not an output of forward).
// Method, three kernels in fp32:
//   bn_plane_stats   block (n, c) reads its H * W plane twice (the second time mostly from L2):
//                    the plane sum, then M2 = sum of (x - plane mean)^2 -> ps, pm[c * N + n];
//   bn_channel_stats one warp per channel merges the N (sum, M2) pairs with Chan's formula
//                    M2 = sum_n [M2_n + HW * (mean_n - mean)^2] -> st[c] = mean, st[C + c] = 1/std;
//   bn_normalize     block (n, c) writes y = (x - mean) * inv_std * w[c] + b[c] over its plane.
// No E[x^2] - E[x]^2 cancellation; block sums with warp shuffles.
/* kjudge-plan
scratch ps : f32[batch_size * features];
scratch pm : f32[batch_size * features];
scratch st : f32[2 * features];
bn_plane_stats<<<dim3(batch_size, features), 512>>>(x, ps, pm, batch_size, features, dim1 * dim2);
bn_channel_stats<<<features, 32>>>(ps, pm, st, batch_size, features, dim1 * dim2);
bn_normalize<<<dim3(batch_size, features), 256>>>(x, bn_weight, bn_bias, st, out, features, dim1 * dim2);
*/

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over a block of 512 threads; every thread gets the total.
__device__ __forceinline__ float block_sum512(float v, float* tot) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) tot[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < 16 ? tot[threadIdx.x & 31] : 0.0f;
  v = warp_sum(v);
  __syncthreads();  // tot may be reused
  return v;
}

extern "C" __global__ void __launch_bounds__(512)
bn_plane_stats(const float* __restrict__ X, float* __restrict__ ps, float* __restrict__ pm,
               int N, int C, long long HW) {
  __shared__ float tot[16];
  const int n = blockIdx.x, c = blockIdx.y;
  const float* __restrict__ x = X + ((size_t)n * C + c) * (size_t)HW;
  float s = 0.0f;
  for (long long i = threadIdx.x; i < HW; i += 512) s += x[i];
  s = block_sum512(s, tot);
  const float mean = s / (float)HW;
  float q = 0.0f;
  for (long long i = threadIdx.x; i < HW; i += 512) {
    const float d = x[i] - mean;
    q += d * d;
  }
  q = block_sum512(q, tot);
  if (threadIdx.x == 0) {
    ps[(size_t)c * N + n] = s;
    pm[(size_t)c * N + n] = q;
  }
}

extern "C" __global__ void bn_channel_stats(const float* __restrict__ ps, const float* __restrict__ pm,
                                            float* __restrict__ st, int N, int C, long long HW) {
  const int c = blockIdx.x;
  const int lane = threadIdx.x;
  const float count = (float)N * (float)HW;
  float s = 0.0f;
  for (int n = lane; n < N; n += 32) s += ps[(size_t)c * N + n];
  const float mean = warp_sum(s) / count;
  float q = 0.0f;
  for (int n = lane; n < N; n += 32) {
    const float d = ps[(size_t)c * N + n] / (float)HW - mean;
    q += pm[(size_t)c * N + n] + (float)HW * d * d;
  }
  const float var = warp_sum(q) / count;
  if (lane == 0) {
    st[c] = mean;
    st[C + c] = rsqrtf(var + 1e-5f);
  }
}

extern "C" __global__ void __launch_bounds__(256)
bn_normalize(const float* __restrict__ X, const float* __restrict__ weight,
             const float* __restrict__ bias, const float* __restrict__ st, float* __restrict__ Y,
             int C, long long HW) {
  const int n = blockIdx.x, c = blockIdx.y;
  const size_t base = ((size_t)n * C + c) * (size_t)HW;
  const float mean = st[c];
  const float scale = st[C + c] * weight[c];  // inv_std * w
  const float shift = bias[c];
  for (long long i = threadIdx.x; i < HW; i += 256) Y[base + i] = fmaf(X[base + i] - mean, scale, shift);
}
