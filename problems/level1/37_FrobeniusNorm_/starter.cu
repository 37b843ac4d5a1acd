// level1/37_FrobeniusNorm_ starter: Y = X / sqrt(sum of X^2 over all n = N * C * H * W elements).
// Two launches below: partial sums of squares into a scratch buffer, then the scaling (which
// must first combine the partials). Replace the TODOs and adjust the plan.
/* kjudge-plan
scratch part : f32[256];
sumsq_partial<<<256, 256>>>(X, part, N * C * H * W);
scale<<<min(cdiv(N * C * H * W, 256), 65536), 256>>>(X, part, Y, N * C * H * W);
*/

extern "C" __global__ void sumsq_partial(const float* __restrict__ X, float* __restrict__ part,
                                         long long n) {
  // TODO: each block writes the sum of X[i]^2 over its share of the n elements to
  // part[blockIdx.x] (scratch starts undefined: write every entry).
  (void)X;
  (void)part;
  (void)n;
}

extern "C" __global__ void scale(const float* __restrict__ X, const float* __restrict__ part,
                                 float* __restrict__ Y, long long n) {
  // TODO: norm = sqrt(sum of the 256 partials); Y[i] = X[i] / norm for every i < n.
  (void)X;
  (void)part;
  (void)Y;
  (void)n;
}
