// Adversarial: level1/19_ReLU. Expected: COMPILE_ERROR (the message must not tell the file exists).
// Host probing through the compiler (issue 26 point 5): /proc/self/status exists on every Linux
// host (and /proc/<pid>/status enumerates processes); before the fix an existing but unreadable
// path answered "cannot open source file ...: Permission denied" while a missing one answered
// without the suffix, so one compile-only job per path told which host paths exist. The judge
// now ends every `cannot open source file "X"` right after the name: an existing, a missing and
// an unreadable path read the same, and no line of the file (Name:, Pid:, Uid: ...) reaches the
// log. Compare with include_parent_relative.cu (a path that does not exist): same message shape.
/* kjudge-plan
relu<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

#include "/proc/self/status"

extern "C" __global__ void relu(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.0f);
}
