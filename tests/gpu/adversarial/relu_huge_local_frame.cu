// Adversarial: level1/19_ReLU. Expected: WRONG_ANSWER (or LAUNCH_ERROR / RUNTIME_ERROR).
// A huge local-memory frame: every thread owns a 256 KiB local array indexed dynamically (so
// it cannot live in registers), which makes the driver reserve local memory for every resident
// thread (~256 KiB x 2048 threads x #SMs, tens of GB) and may leave the context's local-memory
// reservation grown for whoever comes next. Y is relu(X) + 1 (wrong). The next job (the
// example solution, listed right after it in the manifest) must be CORRECT: a fresh candidate
// process starts with a fresh context.
/* kjudge-plan
relu_big_frame<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

#define FRAME 65536  // floats: 256 KiB per thread

extern "C" __global__ void relu_big_frame(const float* __restrict__ X, float* __restrict__ Y,
                                          long long n) {
  float frame[FRAME];
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long i = tid, k = 0; i < n; i += stride, ++k) {
    const int slot = (int)((i * 2654435761ll) & (FRAME - 1));  // dynamic index
    frame[slot] = fmaxf(X[i], 0.0f);
    frame[(slot + 7) & (FRAME - 1)] = 1.0f;
    Y[i] = frame[slot] + frame[(slot + 7) & (FRAME - 1)];
  }
}
