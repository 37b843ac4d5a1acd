// Style: Welford's online mean/variance per thread, merged across the warp with shuffles and across warps in shared memory (Chan's formula); one block per sample, no scratch.
/* kjudge-plan
layernorm_welford<<<N, 1024>>>(X, Y, C * H * W);
*/

struct Welford {
  float mean;
  float m2;
  float count;
};

__device__ __forceinline__ Welford combine(Welford a, Welford b) {
  if (b.count == 0.0f) return a;
  if (a.count == 0.0f) return b;
  const float n = a.count + b.count;
  const float delta = b.mean - a.mean;
  Welford r;
  r.mean = a.mean + delta * (b.count / n);
  r.m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / n);
  r.count = n;
  return r;
}

extern "C" __global__ void __launch_bounds__(1024)
layernorm_welford(const float* __restrict__ X, float* __restrict__ Y, long long L) {
  __shared__ Welford warp_stats[32];
  __shared__ float s_mean, s_inv;
  const float* x = X + (size_t)blockIdx.x * L;
  float* y = Y + (size_t)blockIdx.x * L;

  Welford w = {0.0f, 0.0f, 0.0f};
  for (long long i = threadIdx.x; i < L; i += blockDim.x) {
    const float v = x[i];
    w.count += 1.0f;
    const float d = v - w.mean;
    w.mean += d / w.count;
    w.m2 += d * (v - w.mean);
  }
  for (int off = 16; off > 0; off /= 2) {
    Welford o;
    o.mean = __shfl_down_sync(0xffffffff, w.mean, off);
    o.m2 = __shfl_down_sync(0xffffffff, w.m2, off);
    o.count = __shfl_down_sync(0xffffffff, w.count, off);
    w = combine(w, o);
  }
  if (threadIdx.x % 32 == 0) warp_stats[threadIdx.x / 32] = w;
  __syncthreads();
  if (threadIdx.x == 0) {
    Welford t = warp_stats[0];
    for (int i = 1; i < (int)(blockDim.x / 32); ++i) t = combine(t, warp_stats[i]);
    s_mean = t.mean;
    s_inv = rsqrtf(t.m2 / t.count + 1e-5f);
  }
  __syncthreads();
  const float mean = s_mean, inv = s_inv;
  for (long long i = threadIdx.x; i < L; i += blockDim.x) y[i] = (x[i] - mean) * inv;
}
