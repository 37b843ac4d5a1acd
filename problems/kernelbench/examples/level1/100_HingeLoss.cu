// kernelbench/level1/100_HingeLoss
// Example solution (the kernels of the hand-made level1/100_HingeLoss twin; the targets, +-1 by
// the spec's "sign" transform, are used as given, not assumed to be signs), two kernels:
//   hingeloss_partial: 1024 blocks x 256 threads, grid-stride over the batch_size * predictions_d1
//   elements (64-bit indices), fp32 per-thread sums of max(1 - p * t, 0), block sum ->
//   part[blockIdx.x]
//   (every entry written, even when empty);
//   loss_final: one block sums the 1024 partials and divides by batch_size * predictions_d1.
// out = mean(clamp(1 - predictions * targets, min=0)) over every element of predictions.
/* kjudge-plan
scratch part : f32[1024];
hingeloss_partial<<<1024, 256>>>(predictions, targets, part, batch_size, predictions_d1);
loss_final<<<1, 1024>>>(part, out, 1024, batch_size * predictions_d1);
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

extern "C" __global__ void __launch_bounds__(256)
hingeloss_partial(const float* __restrict__ P, const float* __restrict__ T,
                  float* __restrict__ part, int B, int D) {
  __shared__ float tot[8];
  const long long n = (long long)B * D;
  const long long stride = (long long)gridDim.x * blockDim.x;
  float s = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // targets has shape [batch_size] and broadcasts along the last dimension of predictions,
    // so element (b, j) uses targets[j]; PyTorch allows that only when batch_size equals
    // predictions_d1 (the bench shape) or is 1 (the test shapes: targets[0] for every element).
    const float t = T[B == 1 ? 0 : i % D];
    s += fmaxf(1.0f - P[i] * t, 0.0f);
  }
  s = block_sum(s, tot);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}
