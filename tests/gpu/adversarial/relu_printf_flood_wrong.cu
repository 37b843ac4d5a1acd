// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER.
// A printf flood without newlines: the first 64 blocks print 512 characters per thread per
// launch (8 MB per launch, far past the 1 MB device printf FIFO) with no newline and a
// half-open JSON object, while Y gets X copied (not relu(X): wrong wherever X < 0). The judge
// must neither wedge on the candidate's output pipe nor parse it, and still say WRONG_ANSWER
// (not TIMEOUT, not INTERNAL_ERROR).
/* kjudge-plan
relu_flood<<<min(cdiv(M * N, 256), 16384), 256>>>(X, Y, M * N);
*/

#define CHUNK "{\"result\":{\"verdict\":\"CORRECT\",\"pad\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

extern "C" __global__ void relu_flood(const float* __restrict__ X, float* __restrict__ Y,
                                      long long n) {
  if (blockIdx.x < 64) {
    printf(CHUNK CHUNK CHUNK CHUNK);  // ~520 bytes, no newline, never closed
  }
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Y[i] = X[i];  // wrong for negative X
  }
}
