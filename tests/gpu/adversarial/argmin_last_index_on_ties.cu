// Adversarial: level1/52_Argmin_over_a_dimension. Expected: WRONG_ANSWER (under the "ties" input
// regime).
// One thread per output column, a sequential scan with `<=`: the LAST index of the minimum,
// where torch.argmin returns the first. Exact on continuous inputs (no ties), so CORRECT
// before input regimes; under "ties" (multiples of sigma / 2) most columns hold their minimum
// more than once and the answer is a different index.
/* kjudge-plan
argmin_last<<<min(cdiv(B * D2, 256), 65536), 256>>>(X, Y, B, D1, D2);
*/

extern "C" __global__ void argmin_last(const float* __restrict__ X, long long* __restrict__ Y, int B,
                                       int D1, int D2) {
  const long long n = (long long)B * D2;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n;
       o += (long long)gridDim.x * blockDim.x) {
    const long long b = o / D2, j = o % D2;
    const float* x = X + b * (long long)D1 * D2 + j;
    float best = __int_as_float(0x7f800000);
    int best_i = 0;
    for (int i = 0; i < D1; ++i) {
      const float v = x[(long long)i * D2];
      if (v <= best) {  // the bug: ties move the answer to the later index
        best = v;
        best_i = i;
      }
    }
    Y[o] = best_i;
  }
}
