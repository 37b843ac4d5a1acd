// Adversarial: level1/23_Softmax. Expected: UNWRITTEN_OUTPUT.
// "Reads the reference's output from freed memory": allocates nothing and writes nothing,
// hoping the output buffer still holds the reference's answer from an earlier allocation at the
// same address. The judge scrubs (zeroes) and frees the reference's memory before the candidate
// is loaded, and poisons fresh output buffers, so Y holds only the poison pattern.
/* kjudge-plan
softmax_hope<<<M, 32>>>(X, Y, M, N);
*/

extern "C" __global__ void softmax_hope(const float* __restrict__ X, float* __restrict__ Y, int M,
                                        int N) {
  // Touch Y only to read it: if it already "looks like" a softmax row, leave it.
  (void)X;
  (void)M;
  (void)N;
  volatile float sink = Y[0];
  (void)sink;
}
