// kernelbench level3/47_NetVladNoGhostClusters example solution (NetVLAD, no ghost clusters):
//   assignment = BatchNorm1d(x @ clusters) over the B*N rows (training mode: batch statistics,
//   biased variance, eps 1e-5), softmax over the K clusters of each row;
//   vlad[b, d, k] = sum_n a[b, n, k] * x[b, n, d] - (sum_n a[b, n, k]) * clusters2[d, k];
//   intra-normalise over d for each (b, k), flatten (d major, k minor) and L2-normalise each
//   row (F.normalize: v / max(||v||, 1e-12)).
// Six simple launches: a matmul (one thread per output), per-column BN statistics (a block per
// column), a softmax (one thread per row), the VLAD sums written straight into `out` (its
// flattened index b*D*K + d*K + k is the (b, d, k) layout), per-(b, k) norms, then a block per
// batch row for the final norm, scaling `out` in place. Reductions accumulate in double.
// The same kernels serve level3/46 (with ghost clusters) with KG = clusters_d1.
/* kjudge-plan
scratch assign : f32[batch_size * num_features * num_clusters];
scratch prob : f32[batch_size * num_features * num_clusters];
scratch st : f32[2 * num_clusters];
scratch inv1 : f32[batch_size * num_clusters];
assign_matmul<<<min(cdiv(batch_size * num_features * num_clusters, 256), 65535), 256>>>(x, clusters, assign, batch_size * num_features, feature_size, num_clusters);
bn_col_stats<<<num_clusters, 256>>>(assign, st, batch_size * num_features, num_clusters);
bn_softmax<<<min(cdiv(batch_size * num_features, 128), 65535), 128>>>(assign, st, batch_norm_weight, batch_norm_bias, prob, batch_size * num_features, num_clusters, num_clusters);
vlad_sums<<<min(cdiv(batch_size * feature_size * num_clusters, 256), 65535), 256>>>(x, prob, clusters2, out, batch_size, num_features, feature_size, num_clusters);
intra_norm<<<min(cdiv(batch_size * num_clusters, 256), 65535), 256>>>(out, inv1, batch_size, feature_size, num_clusters);
final_norm<<<batch_size, 256>>>(out, inv1, feature_size, num_clusters);
*/

// A[r, j] = sum_d X[r, d] * C[d, j] for r < R, j < KG: one thread per output (grid-stride).
extern "C" __global__ void assign_matmul(const float* __restrict__ X, const float* __restrict__ C,
                                         float* __restrict__ A, long long R, int D, int KG) {
  const long long total = R * KG;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / KG;
    const int j = (int)(i % KG);
    const float* x = X + r * D;
    double acc = 0.0;
    for (int d = 0; d < D; ++d) acc += (double)x[d] * (double)C[(long long)d * KG + j];
    A[i] = (float)acc;
  }
}

// Training-mode BatchNorm1d statistics of column j = blockIdx.x of A[R, KG]: mean to st[2j],
// biased variance to st[2j + 1]; the block's threads stride over the rows, then a shared-memory
// tree reduction (blockDim.x = 256).
extern "C" __global__ void bn_col_stats(const float* __restrict__ A, float* __restrict__ st,
                                        long long R, int KG) {
  __shared__ double s_sum[256];
  __shared__ double s_sq[256];
  const int j = blockIdx.x;
  double s = 0.0, q = 0.0;
  for (long long r = threadIdx.x; r < R; r += blockDim.x) {
    const double v = A[r * KG + j];
    s += v;
    q += v * v;
  }
  s_sum[threadIdx.x] = s;
  s_sq[threadIdx.x] = q;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if ((int)threadIdx.x < half) {
      s_sum[threadIdx.x] += s_sum[threadIdx.x + half];
      s_sq[threadIdx.x] += s_sq[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double mean = s_sum[0] / (double)R;
    double var = s_sq[0] / (double)R - mean * mean;
    if (var < 0.0) var = 0.0;
    st[2 * j] = (float)mean;
    st[2 * j + 1] = (float)var;
  }
}

// Per row r: v_j = BN(A[r, j]) for j < KG, softmax over the KG values, and the first K
// probabilities (the real clusters; ghosts dropped) to P[r, k]. One thread per row.
extern "C" __global__ void bn_softmax(const float* __restrict__ A, const float* __restrict__ st,
                                      const float* __restrict__ gamma,
                                      const float* __restrict__ beta, float* __restrict__ P,
                                      long long R, int KG, int K) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < R;
       r += (long long)gridDim.x * blockDim.x) {
    const float* a = A + r * KG;
    float mx = -3.402823466e38f;
    for (int j = 0; j < KG; ++j) {
      const float v = (a[j] - st[2 * j]) * rsqrtf(st[2 * j + 1] + 1e-5f) * gamma[j] + beta[j];
      mx = fmaxf(mx, v);
    }
    double sum = 0.0;
    for (int j = 0; j < KG; ++j) {
      const float v = (a[j] - st[2 * j]) * rsqrtf(st[2 * j + 1] + 1e-5f) * gamma[j] + beta[j];
      sum += (double)expf(v - mx);
    }
    const float inv = (float)(1.0 / sum);
    for (int k = 0; k < K; ++k) {
      const float v = (a[k] - st[2 * k]) * rsqrtf(st[2 * k + 1] + 1e-5f) * gamma[k] + beta[k];
      P[r * K + k] = expf(v - mx) * inv;
    }
  }
}

// V[b, d, k] = sum_n P[b, n, k] * X[b, n, d] - (sum_n P[b, n, k]) * C2[d, k]; one thread per
// (b, d, k), k fastest.
extern "C" __global__ void vlad_sums(const float* __restrict__ X, const float* __restrict__ P,
                                     const float* __restrict__ C2, float* __restrict__ V,
                                     long long B, int N, int D, int K) {
  const long long total = B * D * K;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int k = (int)(i % K);
    const int d = (int)((i / K) % D);
    const long long b = i / ((long long)K * D);
    double acc = 0.0, asum = 0.0;
    for (int n = 0; n < N; ++n) {
      const double p = P[(b * N + n) * K + k];
      acc += p * (double)X[(b * N + n) * D + d];
      asum += p;
    }
    V[i] = (float)(acc - asum * (double)C2[(long long)d * K + k]);
  }
}

// inv1[b, k] = 1 / max(||V[b, :, k]||_2, 1e-12): one thread per (b, k).
extern "C" __global__ void intra_norm(const float* __restrict__ V, float* __restrict__ inv1,
                                      long long B, int D, int K) {
  const long long total = B * K;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int k = (int)(i % K);
    const long long b = i / K;
    const float* v = V + b * D * K + k;
    double s = 0.0;
    for (int d = 0; d < D; ++d) s += (double)v[(long long)d * K] * (double)v[(long long)d * K];
    inv1[i] = (float)(1.0 / fmax(sqrt(s), 1e-12));
  }
}

// Row b = blockIdx.x of V (D*K values): u = V * inv1[b, k], then V = u / max(||u||_2, 1e-12),
// in place (each thread rewrites only the elements it read, after the block-wide reduction).
extern "C" __global__ void final_norm(float* V, const float* __restrict__ inv1, int D, int K) {
  __shared__ double s_sq[256];
  const long long b = blockIdx.x;
  const long long DK = (long long)D * K;
  float* v = V + b * DK;
  const float* w = inv1 + b * K;
  double q = 0.0;
  for (long long j = threadIdx.x; j < DK; j += blockDim.x) {
    const double u = (double)v[j] * (double)w[j % K];
    q += u * u;
  }
  s_sq[threadIdx.x] = q;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if ((int)threadIdx.x < half) s_sq[threadIdx.x] += s_sq[threadIdx.x + half];
    __syncthreads();
  }
  const double inv2 = 1.0 / fmax(sqrt(s_sq[0]), 1e-12);
  for (long long j = threadIdx.x; j < DK; j += blockDim.x) {
    v[j] = (float)((double)v[j] * (double)w[j % K] * inv2);
  }
}
