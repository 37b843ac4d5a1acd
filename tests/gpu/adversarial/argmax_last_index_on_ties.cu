// Adversarial: level1/51_Argmax_over_a_dimension. Expected: WRONG_ANSWER (under the "ties" input
// regime).
// torch.argmax returns the FIRST index of the maximum. This kernel keeps the LAST one (`>=` in
// the scan, and the larger index when partial results tie): indistinguishable on continuous
// N(0, 1) inputs, where a tie has probability ~0, so before input regimes it was CORRECT. Under
// the "ties" regime (values rounded to multiples of sigma / 2: ~20 distinct values in a column
// of 4,096) nearly every column's maximum occurs several times and the index differs by far
// more than the 0.5 atol. Test shapes draw their regime too, so it fails there as well.
/* kjudge-plan
argmax_last<<<dim3(cdiv(D2, 32), B), dim3(32, 8)>>>(X, Y, B, D1, D2);
*/

#define RX 32
#define RY 8

extern "C" __global__ void __launch_bounds__(RX * RY)
argmax_last(const float* __restrict__ X, long long* __restrict__ Y, int B, int D1, int D2) {
  __shared__ float part_v[RY][RX + 1];
  __shared__ int part_i[RY][RX + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int j = blockIdx.x * RX + tx;
  const int b = blockIdx.y;
  if (b >= B) return;
  float best = __int_as_float(0xff800000);
  int best_i = -1;
  if (j < D2) {
    const float* __restrict__ x = X + (size_t)b * (size_t)D1 * (size_t)D2 + (size_t)j;
    for (int i = ty; i < D1; i += RY) {
      const float v = x[(size_t)i * (size_t)D2];
      if (v >= best) {  // the bug: the last occurrence wins
        best = v;
        best_i = i;
      }
    }
  }
  part_v[ty][tx] = best;
  part_i[ty][tx] = best_i;
  __syncthreads();
  if (ty == 0 && j < D2) {
    float bv = part_v[0][tx];
    int bi = part_i[0][tx];
    for (int r = 1; r < RY; ++r) {
      const int i = part_i[r][tx];
      if (i < 0) continue;
      const float v = part_v[r][tx];
      if (v > bv || (v == bv && i > bi) || bi < 0) {
        bv = v;
        bi = i;
      }
    }
    Y[(size_t)b * D2 + j] = (long long)bi;
  }
}
