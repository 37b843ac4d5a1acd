// Style: no #include at all, with -FLT_MAX as the max identity (nvcc on a glibc host wants <cfloat> for FLT_MAX; kjudge's implicit prelude offers it), int64_t offsets and std::fmax, one thread per output column.
/* kjudge-plan
max_dim1_noinc<<<dim3(cdiv(D2, 128), B), 128>>>(X, Y, B, D1, D2);
*/

extern "C" __global__ void __launch_bounds__(128)
max_dim1_noinc(const float* __restrict__ X, float* __restrict__ Y, int B, int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t b = blockIdx.y;
  if (j >= D2) return;
  const float* col = X + b * D1 * D2 + j;
  float best = -FLT_MAX;
  for (int64_t i = 0; i < D1; ++i) best = std::fmax(best, col[i * D2]);
  Y[b * D2 + j] = best;
}
