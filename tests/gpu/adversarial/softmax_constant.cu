// Adversarial: level1/23_Softmax. Expected: WRONG_ANSWER.
// Returns 1/N everywhere (the mean of every softmax row) without reading X: a "constant output
// that passes a loose absolute tolerance" (most elements are within 1e-3 of 1/N for large N).
// Fails the elementwise bound here, the relative L2 bound (~0.8 for N(0,1) logits) and the
// degenerate-output rule (every element equal while the reference varies).
/* kjudge-plan
softmax_const<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_const(const float* __restrict__ X, float* __restrict__ Y,
                                         int M, int N) {
  (void)X;
  const long long total = (long long)M * N;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const float v = 1.0f / (float)N;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    Y[i] = v;
  }
}
