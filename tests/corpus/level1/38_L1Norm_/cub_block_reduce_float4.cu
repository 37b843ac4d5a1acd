// Style: <cub/cub.cuh> umbrella include, cub::BlockReduce Sum, float4 row loads when the row is 16-byte aligned, block per row.
#include <cub/cub.cuh>

/* kjudge-plan
l1_normalize<256><<<B, 256>>>(X, Y, D);
*/

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) l1_normalize(const float* __restrict__ X, float* __restrict__ Y, int D) {
  using Reduce = cub::BlockReduce<float, BLOCK>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ float total;
  const float* x = X + (size_t)blockIdx.x * D;
  float* y = Y + (size_t)blockIdx.x * D;
  const bool vec = (D % 4 == 0) && (reinterpret_cast<size_t>(x) % 16 == 0) && (reinterpret_cast<size_t>(y) % 16 == 0);

  float s = 0.0f;
  if (vec) {
    for (int i = threadIdx.x; i < D / 4; i += BLOCK) {
      const float4 v = reinterpret_cast<const float4*>(x)[i];
      s += fabsf(v.x) + fabsf(v.y) + fabsf(v.z) + fabsf(v.w);
    }
  } else {
    for (int i = threadIdx.x; i < D; i += BLOCK) s += fabsf(x[i]);
  }
  const float r = Reduce(temp).Sum(s);
  if (threadIdx.x == 0) total = r;
  __syncthreads();
  const float norm = total;
  if (vec) {
    for (int i = threadIdx.x; i < D / 4; i += BLOCK) {
      float4 v = reinterpret_cast<const float4*>(x)[i];
      v.x /= norm; v.y /= norm; v.z /= norm; v.w /= norm;
      reinterpret_cast<float4*>(y)[i] = v;
    }
  } else {
    for (int i = threadIdx.x; i < D; i += BLOCK) y[i] = x[i] / norm;
  }
}
