// kernelbench level3/5_AlexNet example solution (GPU-only problem: its test shapes are too big
// for the importer's CPU check). Module constants: the input is 3 x 224 x 224 (fc1 needs
// 256 * 6 * 6 features), so the spatial sizes are fixed: conv1 11x11 stride 4 pad 2 -> 55,
// maxpool 3/2 -> 27, conv2 5x5 pad 2 -> 27, maxpool -> 13, conv3-5 3x3 pad 1 -> 13, maxpool -> 6;
// every conv and the first two Linear layers are followed by ReLU; Dropout(p=0) is the identity.
// Direct convolutions (the 8_ResNetBasicBlock kernel: one thread per output, bias + ReLU fused),
// a 3x3 stride-2 max pool, then the generic Linear(+ReLU) kernel of 3_DeepNarrowMLP. One scratch
// buffer per stage, so nothing is overwritten while it is still read.
/* kjudge-plan
scratch a1 : f32[batch_size * conv1_weight_d0 * 55 * 55];
scratch p1 : f32[batch_size * conv1_weight_d0 * 27 * 27];
scratch a2 : f32[batch_size * conv2_weight_d0 * 27 * 27];
scratch p2 : f32[batch_size * conv2_weight_d0 * 13 * 13];
scratch a3 : f32[batch_size * conv3_weight_d0 * 13 * 13];
scratch a4 : f32[batch_size * conv4_weight_d0 * 13 * 13];
scratch a5 : f32[batch_size * conv5_weight_d0 * 13 * 13];
scratch p3 : f32[batch_size * conv5_weight_d0 * 6 * 6];
scratch f1 : f32[batch_size * fc1_weight_d0];
scratch f2 : f32[batch_size * fc2_weight_d0];
conv2d<<<min(cdiv(batch_size * conv1_weight_d0 * 55 * 55, 256), 65535), 256>>>(x, conv1_weight, conv1_bias, a1, batch_size, x_d1, x_d2, x_d3, conv1_weight_d0, 55, 55, 11, 11, 4, 2, 1, 1, conv1_weight_d0, 0);
maxpool3s2<<<min(cdiv(batch_size * conv1_weight_d0 * 27 * 27, 256), 65535), 256>>>(a1, p1, batch_size, conv1_weight_d0, 55, 55, 27, 27);
conv2d<<<min(cdiv(batch_size * conv2_weight_d0 * 27 * 27, 256), 65535), 256>>>(p1, conv2_weight, conv2_bias, a2, batch_size, conv1_weight_d0, 27, 27, conv2_weight_d0, 27, 27, 5, 5, 1, 2, 1, 1, conv2_weight_d0, 0);
maxpool3s2<<<min(cdiv(batch_size * conv2_weight_d0 * 13 * 13, 256), 65535), 256>>>(a2, p2, batch_size, conv2_weight_d0, 27, 27, 13, 13);
conv2d<<<min(cdiv(batch_size * conv3_weight_d0 * 13 * 13, 256), 65535), 256>>>(p2, conv3_weight, conv3_bias, a3, batch_size, conv2_weight_d0, 13, 13, conv3_weight_d0, 13, 13, 3, 3, 1, 1, 1, 1, conv3_weight_d0, 0);
conv2d<<<min(cdiv(batch_size * conv4_weight_d0 * 13 * 13, 256), 65535), 256>>>(a3, conv4_weight, conv4_bias, a4, batch_size, conv3_weight_d0, 13, 13, conv4_weight_d0, 13, 13, 3, 3, 1, 1, 1, 1, conv4_weight_d0, 0);
conv2d<<<min(cdiv(batch_size * conv5_weight_d0 * 13 * 13, 256), 65535), 256>>>(a4, conv5_weight, conv5_bias, a5, batch_size, conv4_weight_d0, 13, 13, conv5_weight_d0, 13, 13, 3, 3, 1, 1, 1, 1, conv5_weight_d0, 0);
maxpool3s2<<<min(cdiv(batch_size * conv5_weight_d0 * 6 * 6, 256), 65535), 256>>>(a5, p3, batch_size, conv5_weight_d0, 13, 13, 6, 6);
linear<<<min(cdiv(batch_size * fc1_weight_d0, 256), 65535), 256>>>(p3, fc1_weight, fc1_bias, f1, batch_size, fc1_weight_d0, fc1_weight_d1, 1);
linear<<<min(cdiv(batch_size * fc2_weight_d0, 256), 65535), 256>>>(f1, fc2_weight, fc2_bias, f2, batch_size, fc2_weight_d0, fc2_weight_d1, 1);
linear<<<min(cdiv(batch_size * num_classes, 256), 65535), 256>>>(f2, fc3_weight, fc3_bias, out, batch_size, num_classes, fc3_weight_d1, 0);
*/
// Direct 2-D convolution, NCHW, one thread per output element (grid-stride, 64-bit indices):
// Y[n, coff + k, oh, ow] = act(bias[k] + sum_{c, i, j} X[n, c, oh*s - p + i, ow*s - p + j] *
// Wt[k, c, i, j]) with zero padding; the output tensor has Ctot channels, of which this layer
// writes [coff, coff + K) (so a torch.cat along channels costs nothing). use_bias = 0: B unread.
extern "C" __global__ void conv2d(const float* __restrict__ X, const float* __restrict__ Wt,
                                  const float* __restrict__ B, float* __restrict__ Y,
                                  long long N, int C, int H, int W, int K, int OH, int OW,
                                  int KH, int KW, int stride, int pad, int use_bias, int relu,
                                  int Ctot, int coff) {
  const long long total = N * K * OH * OW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int ow = (int)(i % OW);
    const int oh = (int)((i / OW) % OH);
    const int k = (int)((i / ((long long)OW * OH)) % K);
    const long long n = i / ((long long)OW * OH * K);
    float acc = use_bias ? B[k] : 0.0f;
    for (int c = 0; c < C; ++c) {
      const float* xc = X + (n * C + c) * H * W;
      const float* wc = Wt + ((long long)k * C + c) * KH * KW;
      for (int a = 0; a < KH; ++a) {
        const int h = oh * stride - pad + a;
        if (h < 0 || h >= H) continue;
        for (int b = 0; b < KW; ++b) {
          const int w = ow * stride - pad + b;
          if (w < 0 || w >= W) continue;
          acc += xc[(long long)h * W + w] * wc[a * KW + b];
        }
      }
    }
    if (relu && acc < 0.0f) acc = 0.0f;
    Y[((n * Ctot + coff + k) * OH + oh) * OW + ow] = acc;
  }
}

// Max pool, kernel 3, stride 2, no padding (floor mode: every window lies inside the input):
// Y[n, c, oh, ow] = max_{a, b < 3} X[n, c, 2*oh + a, 2*ow + b]; one thread per output.
extern "C" __global__ void maxpool3s2(const float* __restrict__ X, float* __restrict__ Y,
                                      long long N, int C, int H, int W, int OH, int OW) {
  const long long total = N * C * OH * OW;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int ow = (int)(i % OW);
    const int oh = (int)((i / OW) % OH);
    const long long nc = i / ((long long)OW * OH);
    const float* x = X + nc * H * W + (long long)(2 * oh) * W + 2 * ow;
    float m = x[0];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) m = fmaxf(m, x[(long long)a * W + b]);
    Y[i] = m;
  }
}

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
