// Does a CUDA context being created in another process disturb kernel timings taken with
// events in this one? (Question behind the candidate prestart window, issue 10.)
//   ctx_interference victim SIZE_MB N OUT.tsv   times N samples (L2 flush, start, copy, stop)
//   ctx_interference ctx                        creates a context (+ a 64 MB alloc) and exits
// The victim writes one line per sample: wall ms since start, event us.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
  std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  if (argc >= 2 && std::strcmp(argv[1], "ctx") == 0) {
    CK(cudaFree(nullptr));
    const double ctx_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    void* p; CK(cudaMalloc(&p, 64 << 20)); CK(cudaMemset(p, 0, 64 << 20)); CK(cudaDeviceSynchronize());
    std::printf("ctx %.1f ms total %.1f ms\n", ctx_ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "split") == 0) {
    int n; CK(cudaGetDeviceCount(&n));
    const double init_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    usleep(300000);
    const auto t1 = Clock::now();
    CK(cudaFree(nullptr));
    std::printf("split: init %.1f ms, then context %.1f ms\n", init_ms,
                std::chrono::duration<double, std::milli>(Clock::now() - t1).count());
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "init") == 0) {
    int n; CK(cudaGetDeviceCount(&n));
    std::printf("init %.1f ms\n", std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    return 0;
  }
  const size_t mb = std::strtoull(argv[2], nullptr, 10);
  const int n = std::atoi(argv[3]);
  FILE* out = std::fopen(argv[4], "w");
  const size_t bytes = mb << 20, n4 = bytes / 16;
  float4 *a, *b; void* flush;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&flush, 100 << 20));
  CK(cudaMemset(a, 1, bytes));
  cudaEvent_t s, e; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
  for (int i = 0; i < 20; ++i) copy<<<1056, 512>>>(a, b, n4);
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    CK(cudaMemsetAsync(flush, i & 255, 100 << 20));
    CK(cudaEventRecord(s));
    copy<<<1056, 512>>>(a, b, n4);
    CK(cudaEventRecord(e));
    CK(cudaEventSynchronize(e));
    float ms; CK(cudaEventElapsedTime(&ms, s, e));
    std::fprintf(out, "%.3f\t%.3f\n", std::chrono::duration<double, std::milli>(Clock::now() - t0).count(), ms * 1000.0);
  }
  std::fclose(out);
  return 0;
}
