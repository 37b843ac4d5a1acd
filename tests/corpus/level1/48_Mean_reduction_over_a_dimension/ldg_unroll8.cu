// Style: __ldg loads with #pragma unroll 8 on a runtime-bounded loop, one thread per output, mean as sum / D1.
/* kjudge-plan
mean_dim1<<<cdiv(B * D2, 128), 128>>>(X, Y, B, D1, D2);
*/

extern "C" __global__ void mean_dim1(const float* __restrict__ X, float* __restrict__ Y, int B, int D1, int D2) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= (long long)B * D2) return;
  const long long b = o / D2, j = o % D2;
  const float* p = X + (b * D1) * D2 + j;
  float s = 0.0f;
#pragma unroll 8
  for (int i = 0; i < D1; ++i) s += __ldg(p + (long long)i * D2);
  Y[o] = s / (float)D1;
}
