// Adversarial: level1/49_Max_reduction_over_a_dimension. Expected: WRONG_ANSWER (under the
// "negative" input regime).
// A max reduction whose accumulator starts at 0.0f instead of -inf (or the first element), but
// only on columns of 1,024 or more elements, where "a N(0, 1) column cannot be all negative"
// (probability 2^-1024); short columns start from the first element, so the test shapes with
// 1- and 3-element columns pass. Under the "negative" regime (-|x|) every column is <= 0, the
// true maximum is negative, and this kernel answers 0 for every long column: the bench shape
// (D1 = 4,096) and the test shape with D1 = 4,099 are all wrong.
/* kjudge-plan
max_dim1<<<min(cdiv(B * D2, 256), 65536), 256>>>(X, Y, B, D1, D2);
*/

extern "C" __global__ void max_dim1(const float* __restrict__ X, float* __restrict__ Y, int B, int D1,
                                    int D2) {
  const long long n = (long long)B * D2;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n;
       o += (long long)gridDim.x * blockDim.x) {
    const long long b = o / D2, j = o % D2;
    const float* x = X + b * (long long)D1 * D2 + j;
    float m = D1 >= 1024 ? 0.0f : x[0];  // the bug: 0 is not the identity of max
    for (int i = 0; i < D1; ++i) m = fmaxf(m, x[(long long)i * D2]);
    Y[o] = m;
  }
}
