// Style: warp-per-row inclusive scan with __shfl_up_sync (Hillis-Steele), carry broadcast from lane 31 with __shfl_sync.
/* kjudge-plan
cumsum_warp<<<cdiv(B, 4), 128>>>(X, Y, B, N);
*/

extern "C" __global__ void cumsum_warp(const float* __restrict__ X, float* __restrict__ Y, int B, int N) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= B) return;
  const float* x = X + (size_t)row * N;
  float* y = Y + (size_t)row * N;
  float carry = 0.0f;
  for (int base = 0; base < N; base += 32) {
    const int i = base + lane;
    float v = i < N ? x[i] : 0.0f;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const float t = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d) v += t;
    }
    if (i < N) y[i] = v + carry;
    carry += __shfl_sync(0xffffffffu, v, 31);
  }
}
