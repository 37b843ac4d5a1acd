// kernelbench/level1/95_CrossEntropyLoss
// Example solution (the kernels of the hand-made level1/95_CrossEntropyLoss twin; targets here
// are int64 class indices in [0, num_classes), as in KernelBench), two kernels:
//   ce_rows: one 256-thread block per row; each thread keeps an online (max m, sum of exp(x - m))
//            pair over its elements, the block merges the pairs (warp shuffles + shared memory),
//            and thread 0 writes loss_b = log(sum) + m - x[targets[b]] to rl[b];
//   loss_final: one block sums the batch_size row losses and divides by batch_size (F.cross_entropy:
//            reduction 'mean', no weights, no label smoothing).
/* kjudge-plan
scratch rl : f32[batch_size];
ce_rows<<<batch_size, 256>>>(predictions, targets, rl, batch_size, num_classes);
loss_final<<<1, 1024>>>(rl, out, batch_size, batch_size);
*/

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block sum (blockDim.x a multiple of 32, at most 1024); every thread gets the total.
__device__ __forceinline__ float block_sum(float v, float* tot) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) tot[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < (blockDim.x >> 5) ? tot[threadIdx.x & 31] : 0.0f;
  v = warp_sum(v);
  __syncthreads();  // tot may be reused
  return v;
}

// One block of 1024 threads: L[0] = (sum of part[0 .. n_part-1]) / count.
extern "C" __global__ void __launch_bounds__(1024)
loss_final(const float* __restrict__ part, float* __restrict__ L, int n_part, long long count) {
  __shared__ float tot[32];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n_part; i += 1024) s += part[i];
  s = block_sum(s, tot);
  if (threadIdx.x == 0) L[0] = s / (float)count;
}

__device__ __forceinline__ void online_merge(float& m, float& s, float om, float os) {
  const float nm = fmaxf(m, om);
  s = s * expf(m - nm) + os * expf(om - nm);
  m = nm;
}

extern "C" __global__ void __launch_bounds__(256)
ce_rows(const float* __restrict__ X, const long long* __restrict__ T, float* __restrict__ rl,
        int B, int C) {
  __shared__ float wm[8], ws[8];
  const int b = blockIdx.x;
  if (b >= B) return;
  const float* __restrict__ x = X + (size_t)b * (size_t)C;
  const int t = threadIdx.x;
  // Start every thread at x[0] (a real element, so no -inf arithmetic): its weight is 0 unless
  // the thread actually visits element 0.
  float m = x[0];
  float s = 0.0f;
  for (int k = t; k < C; k += 256) {
    const float v = x[k];
    if (v > m) {
      s *= expf(m - v);
      m = v;
    }
    s += expf(v - m);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float om = __shfl_xor_sync(0xffffffffu, m, o);
    const float os = __shfl_xor_sync(0xffffffffu, s, o);
    online_merge(m, s, om, os);
  }
  if ((t & 31) == 0) {
    wm[t >> 5] = m;
    ws[t >> 5] = s;
  }
  __syncthreads();
  if (t == 0) {
    float M = wm[0], S = ws[0];
    for (int w = 1; w < 8; ++w) online_merge(M, S, wm[w], ws[w]);
    const int target = (int)T[b];
    rl[b] = logf(S) + M - x[target];
  }
}
