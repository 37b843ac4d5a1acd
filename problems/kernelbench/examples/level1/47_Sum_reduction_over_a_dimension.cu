// kernelbench level1/47_Sum_reduction_over_a_dimension example solution: torch.sum(x, dim=1,
// keepdim=True) (out is [batch_size, 1, dim2], the same memory as [batch_size, dim2]). Accumulates
// in double: 4096-term fp32 sums would sit near the 1e-4 bound.
// One thread per output column (b, j): consecutive threads take consecutive j, so every load of
// a warp reads 32 consecutive floats of one row of x; the thread walks the reduced dim1 axis.
/* kjudge-plan
sum_dim1<<<cdiv(batch_size * dim2, 256), 256>>>(x, out, batch_size, dim1, dim2);
*/

extern "C" __global__ void __launch_bounds__(256)
sum_dim1(const float* __restrict__ X, float* __restrict__ Y, int B, int D1, int D2) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= (long long)B * D2) return;
  const long long b = o / D2;
  const long long j = o - b * D2;
  const float* __restrict__ x = X + (size_t)b * (size_t)D1 * (size_t)D2 + (size_t)j;
  double s = 0.0;
  for (int i = 0; i < D1; ++i) s += (double)x[(size_t)i * D2];
  Y[o] = (float)s;
}
