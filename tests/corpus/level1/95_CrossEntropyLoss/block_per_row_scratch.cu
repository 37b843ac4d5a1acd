// Style: block per row (max, log-sum-exp, target logit selected from the float class selector), per-row losses in f32 scratch, then a one-block mean kernel accumulating in double.
/* kjudge-plan
scratch row_loss : f32[B];
ce_rows<<<B, 256>>>(X, T, row_loss, C);
ce_mean<<<1, 256>>>(row_loss, L, B);
*/

__device__ float block_reduce(float v, bool is_max, float* sh) {
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = sh[0];
  for (int i = 1; i < (int)(blockDim.x >> 5); ++i) r = is_max ? fmaxf(r, sh[i]) : r + sh[i];
  __syncthreads();
  return r;
}

extern "C" __global__ void ce_rows(const float* __restrict__ X, const float* __restrict__ T, float* __restrict__ row_loss, int C) {
  __shared__ float sh[32];
  const int b = blockIdx.x;
  const float* x = X + (size_t)b * C;
  float m = x[0];
  for (int k = threadIdx.x; k < C; k += blockDim.x) m = fmaxf(m, x[k]);
  m = block_reduce(m, true, sh);
  float s = 0.0f;
  for (int k = threadIdx.x; k < C; k += blockDim.x) s += expf(x[k] - m);
  s = block_reduce(s, false, sh);
  if (threadIdx.x == 0) {
    int target = (int)(T[b] * (float)C);  // selector in [0, 1) -> class index
    if (target > C - 1) target = C - 1;
    row_loss[b] = logf(s) + (m - x[target]);
  }
}

extern "C" __global__ void ce_mean(const float* __restrict__ row_loss, float* __restrict__ L, int B) {
  __shared__ double sh[256];
  double s = 0.0;
  for (int i = threadIdx.x; i < B; i += blockDim.x) s += row_loss[i];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) L[0] = (float)(sh[0] / B);
}
