// kernelbench/level2/14_Gemm_Divide_Sum_Scaling example: out[b, 0] = sum_n((x W^T)[b, n] / 2) * 1.5.
// The sum over n of a GEMM is a GEMV with the column sums of W (an exact rewrite):
//   out[b] = 0.75 * sum_k x[b, k] * wsum[k],   wsum[k] = sum_n W[n, k],
// both sums in double. Summing the fp32 GEMM's 8192 outputs instead put 19 of 1024 results
// outside atol = rtol = 1e-4 of the float64 reference at the bench shape (H100).
/* kjudge-plan
scratch wsum : f64[input_size];
colsum<<<cdiv(input_size, 256), 256>>>(weight, wsum, hidden_size, input_size);
row_dot<<<batch_size, 256>>>(x, wsum, out, input_size, 0.75);
*/

// wsum[k] = sum over the hidden_size rows of W (row-major [hidden_size, input_size]).
extern "C" __global__ void colsum(const float* __restrict__ W, double* __restrict__ wsum,
                                  long long rows, long long cols) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= cols) return;
  double s = 0.0;
  for (long long n = 0; n < rows; ++n) s += (double)W[n * cols + k];
  wsum[k] = s;
}

// out[b] = scale * (x[b, :] . wsum), one block of 256 threads per row, in double.
extern "C" __global__ void row_dot(const float* __restrict__ x, const double* __restrict__ wsum,
                                   float* __restrict__ out, long long cols, double scale) {
  __shared__ double partial[256];
  const long long b = blockIdx.x;
  double s = 0.0;
  for (long long k = threadIdx.x; k < cols; k += 256) s += (double)x[b * cols + k] * wsum[k];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[b] = (float)(scale * partial[0]);
}
