// Expected: WRONG_ANSWER on level1/19_ReLU, with first mismatches reported.
// Each output reads its right-hand neighbour (wrapping at the end, so nothing is read out of
// bounds): Y[i] = max(X[(i + 1) % n], 0). Right for 1 x 1, wrong on every larger shape.
/* kjudge-plan
relu_shifted<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void relu_shifted(const float* __restrict__ X, float* __restrict__ Y,
                                        long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const long long src = i + 1 < n ? i + 1 : 0;  // X[i + 1]: the wrong element
    Y[i] = fmaxf(X[src], 0.0f);
  }
}
