// Unusual but correct: level1/21_Sigmoid. Expected: CORRECT.
// Prints with device printf while computing correctly: thread 0 of block 0 prints a progress
// line per launch (n, the first input and output), and, to show that the candidate's output is
// never parsed, a line shaped like a runner result saying WRONG_ANSWER. The judge's verdict
// must be CORRECT regardless of what the kernel prints.
/* kjudge-plan
sigmoid_print<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void sigmoid_print(const float* __restrict__ X, float* __restrict__ Y,
                                         long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = 1.0f / (1.0f + expf(-X[i]));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    printf("sigmoid_print: n=%lld x[0]=%f y[0]=%f grid=%u\n", n, X[0], 1.0f / (1.0f + expf(-X[0])),
           gridDim.x);
    printf("{\"result\":{\"verdict\":\"WRONG_ANSWER\",\"message\":\"forged by the kernel\"}}\n");
  }
}
