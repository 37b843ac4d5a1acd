// Unusual but correct: level1/94_MSELoss. Expected: CORRECT.
// A single-kernel reduction with the last-block-done pattern: every block writes its partial
// sum (double) to scratch, __threadfence()s, and takes a ticket from a __device__ counter;
// the block that draws the last ticket adds all partials in a fixed order, writes
// L[0] = sum / count, and resets the counter to 0 itself, so repeated launches (tests, timed
// samples, re-checks) each start from zero.
/* kjudge-plan
scratch part : f64[1024];
mse_last_block<<<1024, 256>>>(P, T, part, L, B * D);
*/

__device__ unsigned int g_tickets;

__device__ double block_sum(double v, double* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if ((int)threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const double r = red[0];
  __syncthreads();
  return r;
}

extern "C" __global__ void __launch_bounds__(256)
mse_last_block(const float* __restrict__ P, const float* __restrict__ T, double* part,
               float* __restrict__ L, long long n) {
  __shared__ double red[256];
  __shared__ bool is_last;
  double s = 0.0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double d = (double)P[i] - (double)T[i];
    s += d * d;
  }
  s = block_sum(s, red);
  if (threadIdx.x == 0) {
    part[blockIdx.x] = s;
    __threadfence();  // the partial is visible device-wide before the ticket is taken
    const unsigned int ticket = atomicAdd(&g_tickets, 1u);
    is_last = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  double t = 0.0;
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += ((volatile double*)part)[b];
  t = block_sum(t, red);
  if (threadIdx.x == 0) {
    L[0] = (float)(t / (double)n);
    g_tickets = 0u;  // reset for the next launch (stream order: no other block of this launch is left)
  }
}
