// Adversarial: level1/19_ReLU. Expected: COMPILE_ERROR.
// A template instantiation bomb: Node<D, I> instantiates Node<D - 1, 2 I> and
// Node<D - 1, 2 I + 1>, all distinct, so Node<40, 0> asks for 2^41 class instantiations (each
// with a constexpr member) - far beyond any memory or time. The compile must be stopped by
// the compiler's limits (CPU time, memory) and reported as COMPILE_ERROR, not take the worker
// down.
/* kjudge-plan
relu_bomb<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);
*/

template <int D, unsigned long long I>
struct Node {
  static constexpr unsigned long long value =
      Node<D - 1, 2 * I>::value + Node<D - 1, 2 * I + 1>::value + (I & 1);
};
template <unsigned long long I>
struct Node<0, I> {
  static constexpr unsigned long long value = I;
};

extern "C" __global__ void relu_bomb(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.0f) + (float)(Node<40, 0>::value & 0);
}
