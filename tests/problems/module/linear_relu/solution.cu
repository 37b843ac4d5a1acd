// module/linear_relu example: one thread per output, fp32 FMA over in_features, bias and ReLU
// fused into the store. Simple on purpose (a test fixture, not a fast kernel).
/* kjudge-plan
linear_relu<<<dim3(cdiv(out_features, 16), cdiv(batch_size, 16)), dim3(16, 16)>>>(x, linear_weight, linear_bias, out, batch_size, in_features, out_features);
*/

extern "C" __global__ void linear_relu(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ b, float* __restrict__ out,
                                       int batch, int in, int n_out) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= batch || col >= n_out) return;
  const float* xr = x + (size_t)row * (size_t)in;
  const float* wc = w + (size_t)col * (size_t)in;
  float acc = 0.0f;
  for (int k = 0; k < in; ++k) acc = fmaf(xr[k], wc[k], acc);
  acc += b[col];
  out[(size_t)row * (size_t)n_out + col] = acc > 0.0f ? acc : 0.0f;
}
