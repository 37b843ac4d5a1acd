// Style: int64 (long long) output tensor, strict > so the first maximum wins (torch.argmax), one thread per output.
/* kjudge-plan
argmax_dim1<<<min(cdiv(B * D2, 256), 65536), 256>>>(X, Y, B, D1, D2);
*/

extern "C" __global__ void argmax_dim1(const float* __restrict__ X, long long* __restrict__ Y, int B, int D1, int D2) {
  const long long n = (long long)B * D2;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += (long long)blockDim.x * gridDim.x) {
    const long long b = o / D2, j = o % D2;
    const float* col = X + b * D1 * (long long)D2 + j;
    float best = col[0];
    int best_i = 0;
    for (int i = 1; i < D1; ++i) {
      const float v = col[(long long)i * D2];
      if (v > best) {
        best = v;
        best_i = i;
      }
    }
    Y[o] = (long long)best_i;
  }
}
