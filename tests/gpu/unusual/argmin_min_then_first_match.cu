// Unusual but correct: level1/52_Argmin_over_a_dimension. Expected: CORRECT under every regime.
// Argmin in two exact passes instead of tracking (value, index) pairs: pass 1 finds each
// column's minimum (a plain min reduction, exact in any order); pass 2 splits the column's rows
// 16 ways and every chunk reports the first row whose value equals that minimum through
// atomicMin on the index, so the smallest matching index wins: torch.argmin's first-occurrence
// rule, which the "ties" regime (most columns hold their minimum several times) checks. -0 and
// +0 compare equal, as in torch. Y is written from the index buffer in a third launch.
/* kjudge-plan
scratch mins : f32[B * D2];
scratch first : i32[B * D2];
column_min<<<min(cdiv(B * D2, 256), 65536), 256>>>(X, mins, first, B, D1, D2);
first_match<<<dim3(cdiv(D2, 256), B, 16), 256>>>(X, mins, first, B, D1, D2);
write_index<<<min(cdiv(B * D2, 256), 65536), 256>>>(first, Y, B * D2);
*/

extern "C" __global__ void column_min(const float* __restrict__ X, float* __restrict__ mins,
                                      int* __restrict__ first, int B, int D1, int D2) {
  const long long n = (long long)B * D2;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n;
       o += (long long)gridDim.x * blockDim.x) {
    const long long b = o / D2, j = o % D2;
    const float* x = X + b * (long long)D1 * D2 + j;
    float m = x[0];
    for (int i = 1; i < D1; ++i) m = fminf(m, x[(long long)i * D2]);
    mins[o] = m;
    first[o] = D1;  // above every row index: atomicMin brings it down
  }
}

extern "C" __global__ void first_match(const float* __restrict__ X, const float* __restrict__ mins,
                                       int* __restrict__ first, int B, int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j >= D2 || b >= B) return;
  const int chunk = (D1 + gridDim.z - 1) / gridDim.z;
  const int lo = blockIdx.z * chunk;
  const int hi = min(D1, lo + chunk);
  const long long o = (long long)b * D2 + j;
  const float m = mins[o];
  const float* x = X + (long long)b * D1 * D2 + j;
  for (int i = lo; i < hi; ++i) {
    if (x[(long long)i * D2] == m) {
      atomicMin(&first[o], i);
      return;  // the first match of this chunk; earlier chunks may still lower it
    }
  }
}

extern "C" __global__ void write_index(const int* __restrict__ first, long long* __restrict__ Y,
                                       long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    Y[i] = first[i];
  }
}
