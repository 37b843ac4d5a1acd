// level1/40_LayerNorm starter: normalise each of the N contiguous rows of L = C * H * W floats of X:
// y = (x - mean) / sqrt(var + 1e-5) with the row's mean and biased variance. One block per row
// is launched below; replace the TODO with your kernel and adjust the plan.
/* kjudge-plan
row_norm<<<N, 1024>>>(X, Y, C * H * W);
*/

extern "C" __global__ void row_norm(const float* __restrict__ X, float* __restrict__ Y, long long L) {
  // TODO: with x = X + (size_t)blockIdx.x * L and y = Y + (size_t)blockIdx.x * L, block-reduce the mean of x[0 .. L-1], then the mean of (x - mean)^2, then write
  // y[l] = (x[l] - mean) / sqrt(var + 1e-5) for every l.
  (void)X;
  (void)Y;
  (void)L;
}
