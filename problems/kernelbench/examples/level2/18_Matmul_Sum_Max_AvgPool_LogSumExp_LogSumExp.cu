// kernelbench/level2/18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp example:
// out[b, 0] = sum_n (x W^T + bias)[b, n]; the max, mean and two logsumexps that follow act on a
// dim of size 1, so they are the identity. The sum over n of a GEMM is a GEMV with the column
// sums of W (an exact rewrite):  out[b] = sum_k x[b, k] * wsum[k] + sum_n bias[n],  all in
// double. Summing the fp32 GEMM's outputs instead missed atol = rtol = 1e-4 on 1 of 1024 results
// at the bench shape (H100).
/* kjudge-plan
scratch wsum : f64[in_features];
scratch bsum : f64[1];
colsum<<<cdiv(in_features, 256), 256>>>(linear_weight, wsum, out_features, in_features);
vecsum<<<1, 256>>>(linear_bias, bsum, out_features);
row_dot<<<batch_size, 256>>>(x, wsum, bsum, out, in_features);
*/

extern "C" __global__ void colsum(const float* __restrict__ W, double* __restrict__ wsum,
                                  long long rows, long long cols) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= cols) return;
  double s = 0.0;
  for (long long n = 0; n < rows; ++n) s += (double)W[n * cols + k];
  wsum[k] = s;
}

__device__ double block_sum_256(double s) {
  __shared__ double partial[256];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  return partial[0];
}

extern "C" __global__ void vecsum(const float* __restrict__ v, double* __restrict__ out,
                                  long long n) {
  double s = 0.0;
  for (long long i = threadIdx.x; i < n; i += 256) s += (double)v[i];
  s = block_sum_256(s);
  if (threadIdx.x == 0) out[0] = s;
}

extern "C" __global__ void row_dot(const float* __restrict__ x, const double* __restrict__ wsum,
                                   const double* __restrict__ bsum, float* __restrict__ out,
                                   long long cols) {
  const long long b = blockIdx.x;
  double s = 0.0;
  for (long long k = threadIdx.x; k < cols; k += 256) s += (double)x[b * cols + k] * wsum[k];
  s = block_sum_256(s);
  if (threadIdx.x == 0) out[b] = (float)(s + bsum[0]);
}
