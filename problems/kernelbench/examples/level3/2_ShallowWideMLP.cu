// kernelbench level3/2_ShallowWideMLP example solution: Linear + ReLU, Linear + ReLU, Linear (the hidden
// widths, hidden_layer_sizes = [32768, 32768], are module constants the spec names network_0_weight_d0
// and network_2_weight_d0). Three launches of one generic Linear(+ReLU) kernel through two
// scratch buffers of batch_size x hidden floats.
/* kjudge-plan
scratch h0 : f32[batch_size * network_0_weight_d0];
scratch h1 : f32[batch_size * network_2_weight_d0];
linear<<<min(cdiv(batch_size * network_0_weight_d0, 256), 65535), 256>>>(x, network_0_weight, network_0_bias, h0, batch_size, network_0_weight_d0, input_size, 1);
linear<<<min(cdiv(batch_size * network_2_weight_d0, 256), 65535), 256>>>(h0, network_2_weight, network_2_bias, h1, batch_size, network_2_weight_d0, network_2_weight_d1, 1);
linear<<<min(cdiv(batch_size * output_size, 256), 65535), 256>>>(h1, network_4_weight, network_4_bias, out, batch_size, output_size, network_4_weight_d1, 0);
*/
// Y[M, N] = X[M, K] @ W[N, K]^T + bias[N], then ReLU when `relu` != 0: one thread per output
// element (grid-stride, 64-bit indices), n fastest so a warp shares its X row; the dot product accumulates in double (cheap on
// sm_90, and it keeps large-magnitude inputs, e.g. attention logits before a softmax, accurate).
extern "C" __global__ void linear(const float* __restrict__ X, const float* __restrict__ W,
                                  const float* __restrict__ bias, float* __restrict__ Y,
                                  long long M, long long N, long long K, int relu) {
  const long long total = M * N;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long m = i / N, n = i % N;
    const float* x = X + m * K;
    const float* w = W + n * K;
    double acc = 0.0;
    for (long long k = 0; k < K; ++k) acc += (double)x[k] * (double)w[k];
    const float v = (float)(acc + (double)bias[n]);
    Y[i] = (relu && v < 0.0f) ? 0.0f : v;
  }
}
