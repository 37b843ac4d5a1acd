// Unusual but correct: level1/19_ReLU. Expected: CORRECT.
// Device-side malloc/free: thread 0 of every block mallocs a blockDim-float staging buffer
// from the device heap (1 KiB; ~1 MiB for all resident blocks of an H100, well inside the
// default 8 MiB heap), the block stages X through it, and thread 0 frees it at the end.
// If malloc returns NULL the kernel traps (a RUNTIME_ERROR, never a silent wrong answer): run
// right after relu_device_heap_hog.cu it shows whether the device heap leaked across jobs.
/* kjudge-plan
relu_heap<<<min(cdiv(M * N, 256), 16384), 256>>>(X, Y, M * N);
*/

extern "C" __global__ void __launch_bounds__(256)
relu_heap(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  __shared__ float* buf;
  if (threadIdx.x == 0) {
    buf = static_cast<float*>(malloc(blockDim.x * sizeof(float)));
    if (buf == nullptr) __trap();
  }
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    buf[threadIdx.x] = X[i];  // each thread its own slot
    Y[i] = fmaxf(buf[threadIdx.x], 0.0f);
  }
  __syncthreads();
  if (threadIdx.x == 0) free(buf);
}
