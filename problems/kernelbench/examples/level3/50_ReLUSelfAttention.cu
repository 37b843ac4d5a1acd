// kernelbench level3/50_ReLUSelfAttention example solution (n_head = 12, T = max_seqlen):
// c_attn Linear into scratch qkv [B, T, 3C]; scores [B, nh, T, T] causally masked (the module's
// `bias` buffer is tril(ones), kept by the module: computed here as j <= t), then ReLU instead
// of softmax; att @ v re-assembled as [B, T, C]
// straight into out (this module's forward has no c_proj). Naive one-thread-per-output kernels.
/* kjudge-plan
scratch qkv : f32[batch_size * max_seqlen * c_attn_weight_d0];
scratch att : f32[batch_size * 12 * max_seqlen * max_seqlen];
linear<<<min(cdiv(batch_size * max_seqlen * c_attn_weight_d0, 256), 65535), 256>>>(x, c_attn_weight, c_attn_bias, qkv, batch_size * max_seqlen, c_attn_weight_d0, n_embd, 0);
att_scores<<<min(cdiv(batch_size * 12 * max_seqlen * max_seqlen, 256), 65535), 256>>>(qkv, att, batch_size, max_seqlen, n_embd, 12, 1);
att_v<<<min(cdiv(batch_size * max_seqlen * n_embd, 256), 65535), 256>>>(att, qkv, out, batch_size, max_seqlen, n_embd, 12);
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

// Attention over qkv = c_attn(x) laid out [B, T, 3C] (q | k | v, head h at columns h*hs..).
// S[b, h, t, j] = (q_t . k_j) / sqrt(hs) where j <= t (the module's causal `bias` buffer,
// tril(ones): a structural constant the kernel computes, not an input), else -inf; with `relu`,
// ReLU(S) instead (-inf -> 0).
// One thread per score; the dot product accumulates in double (a softmax amplifies logit errors).
extern "C" __global__ void att_scores(const float* __restrict__ qkv, float* __restrict__ S,
                                      long long Bn, int T, int C, int NH, int relu) {
  const int hs = C / NH;
  const float scale = 1.0f / sqrtf((float)hs);
  const long long total = Bn * NH * T * T;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int j = (int)(i % T);
    const int t = (int)((i / T) % T);
    const int h = (int)((i / ((long long)T * T)) % NH);
    const long long b = i / ((long long)T * T * NH);
    const float* q = qkv + (b * T + t) * 3 * C + h * hs;
    const float* k = qkv + (b * T + j) * 3 * C + C + h * hs;
    double acc = 0.0;
    for (int d = 0; d < hs; ++d) acc += (double)q[d] * (double)k[d];
    float s = (float)(acc * (double)scale);
    if (j > t) s = __int_as_float(0xff800000);  // -inf: causal
    if (relu) s = s > 0.0f ? s : 0.0f;
    S[i] = s;
  }
}

// y[b, t, h*hs + d] = sum_j P[b, h, t, j] * v[b, j, h, d]: heads re-assembled side by side
// ([B, T, C], the transpose(1, 2).view of the module). One thread per output element.
extern "C" __global__ void att_v(const float* __restrict__ P, const float* __restrict__ qkv,
                                 float* __restrict__ Y, long long Bn, int T, int C, int NH) {
  const int hs = C / NH;
  const long long total = Bn * T * C;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int c = (int)(i % C);
    const int t = (int)((i / C) % T);
    const long long b = i / ((long long)C * T);
    const int h = c / hs;
    const float* p = P + ((b * NH + h) * T + t) * T;
    const float* v = qkv + b * T * 3 * C + 2 * C + c;
    float acc = 0.0f;
    for (int j = 0; j < T; ++j) acc += p[j] * v[(long long)j * 3 * C];
    Y[i] = acc;
  }
}
