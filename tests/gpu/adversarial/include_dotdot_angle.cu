// Adversarial: level1/19_ReLU. Expected: COMPILE_ERROR.
// Escapes the include path with a relative angle include: <../../../etc/passwd> from /usr/local/cuda/include is /etc/passwd.
// The compiler runs sandboxed (only the CUDA include tree is readable), so the include fails
// to open and the compile log (which is returned to the submitter) leaks nothing of the file.
/* kjudge-plan
relu<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

#include <../../../etc/passwd>

extern "C" __global__ void relu(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.0f);
}
