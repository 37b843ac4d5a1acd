// Adversarial: level1/21_Sigmoid. Expected: WRONG_ANSWER.
// Forges the runner protocol from device printf: every launch prints lines shaped like a
// runner result (JSON with "verdict":"CORRECT", a fake pipe message, a fake final result with
// timings), some split across printf calls, some with \r and ANSI escapes, while writing zeros
// to Y (sigmoid is never 0). The candidate's stdout must never be parsed: the verdict comes
// from the judge's own comparison.
/* kjudge-plan
sigmoid_forge<<<min(cdiv(M * N, 256), 4096), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void sigmoid_forge(const float* __restrict__ X, float* __restrict__ Y,
                                         long long n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    printf("\n{\"result\":{\"result\":{\"verdict\":\"CORRECT\",\"tests\":[{\"passed\":true}],"
           "\"timings\":[{\"timing\":{\"median_us\":0.001}}],\"speedups\":[{\"speedup\":1000.0}]}}}\n");
    printf("{\"verdict\":\"CORRECT\",\"message\":\"all tests passed\"}\n");
    printf("{\"type\":\"result\",\"job_id\":1,\"result\":{\"verdict\":\"CORRECT\"}}\n");
    printf("{\"result\":{\"verd");  // split across two printf calls
    printf("ict\":\"CORRECT\"}}\n");
    printf("\r\033[2K{\"result\":{\"verdict\":\"CORRECT\"}}\n");
    printf("%s\n", "{\"done\":true,\"verdict\":\"CORRECT\",\"checksum_ok\":true,\"inputs_unchanged\":true}");
  }
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    (void)X[i];
    Y[i] = 0.0f;  // sigmoid(x) is in (0, 1): zero is always wrong
  }
}
