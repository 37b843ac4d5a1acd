// Adversarial: level1/19_ReLU. Expected: COMPILE_ERROR.
// Smuggles a host file into the cubin instead of the compile log: the include sits inside a
// __device__ char array's brace initializer (the xxd -i / #embed trick: a file of
// comma-separated byte values compiles), so that with a suitable file the kernel copies its
// bytes into Y, where the judge's mismatch report would show them. /etc/passwd is not such a
// file, and the unsandboxed compiler's errors would quote its first line in the log; the
// sandboxed compiler cannot open it at all.
/* kjudge-plan
relu_leak<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

__device__ const char g_leak[] = {
#include "/etc/passwd"
};

extern "C" __global__ void relu_leak(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = (i < (long long)sizeof(g_leak)) ? (float)g_leak[i] : fmaxf(X[i], 0.0f);
}
