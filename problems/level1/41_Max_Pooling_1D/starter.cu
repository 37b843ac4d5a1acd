// level1/41_Max_Pooling_1D starter: 1-D max pooling of X [B, C, L], window of K elements, stride S,
// padding P, dilation DIL (see the description for the output size). One thread per output
// element is launched below; replace the TODO with your kernel and adjust the plan.
/* kjudge-plan
max_pool1d<<<cdiv(B * C * ((L + 2 * P - DIL * (K - 1) - 1) / S + 1), 256), 256>>>(X, Y, B, C, L, K, S, P, DIL);
*/

extern "C" __global__ void max_pool1d(const float* __restrict__ X, float* __restrict__ Y, int B, int C, int L, int K, int S, int P, int DIL) {
  const long long LO = ((long long)L + 2 * P - DIL * (K - 1) - 1) / S + 1;
  const long long n_out = (long long)B * C * LO;
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= n_out) return;
  // TODO: decode o into its output coordinates, reduce the window, write Y[o].
  (void)X;
  (void)Y;
}
