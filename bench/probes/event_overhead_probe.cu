// event_overhead_probe: where do the ~2.5 us that CUDA events add over CUPTI's kernel
// durations come from, and does anything but calibration remove them? (Evidence behind
// worker/judge/event_overhead.h; results in docs/fidelity.md.)
//
// Each sample: a 120 MiB memset (L2 flush), then a variant bracketed by two events; 300
// samples per variant, medians. Variants: an empty event pair, empty kernels, a kernel that
// spins 20 us on %globaltimer, copy kernels and cudaMemcpyAsync D2D from 1 MiB to 1 GiB, and
// for three of them a CUDA graph (events as graph nodes) and a blocking kernel that holds the
// stream until everything is queued (nvbench's trick). Three passes: CUPTI off, on, off again
// (does enabling CUPTI leave overhead behind?). With CUPTI on, kernel/memcpy records are
// paired with samples by order and "ev-busy" is the median of the per-sample differences.
//
// Not part of the CMake build (it is a .cu for nvcc, run by hand on a GPU host):
//   nvcc -O2 -arch=sm_90a -o event_overhead_probe bench/probes/event_overhead_probe.cu \
//     -lcupti -L/usr/local/cuda/lib64 -Xlinker -rpath=/usr/local/cuda/lib64
//   ./event_overhead_probe
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#define CK(x)                                                                 \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,               \
              cudaGetErrorString(e));                                         \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static std::mutex mu;
static std::vector<std::pair<uint64_t, uint64_t>> recs;  // start,end for kernels+memcpy

static void CUPTIAPI BufReq(uint8_t** buf, size_t* size, size_t* max) {
  *size = 8 << 20;
  *buf = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max = 0;
}
static void CUPTIAPI BufDone(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  std::lock_guard<std::mutex> l(mu);
  while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(r);
      recs.emplace_back(uint64_t(k->start), uint64_t(k->end));
    } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(r);
      recs.emplace_back(uint64_t(m->start), uint64_t(m->end));
    }
  }
  free(buf);
}

__global__ void null_kernel() {}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}
__device__ unsigned long long gt() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__global__ void spin(unsigned long long ns, unsigned long long* out) {
  unsigned long long t0 = gt(), t;
  do { t = gt(); } while (t - t0 < ns);
  out[0] = t0;
  out[1] = t;
}
__global__ void wait_flag(volatile int* flag) {
  while (*flag == 0) {}
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Ctx {
  cudaStream_t s;
  void* flush;
  size_t flush_bytes;
  cudaEvent_t e0, e1;
  unsigned char val = 0;
};

using Body = std::function<void(cudaStream_t)>;

// kernels_per_run: CUPTI records expected per run (0 = none). Returns medians.
static void Measure(Ctx& c, const char* name, const Body& body, int kernels_per_run,
                    bool cupti, int n = 300, const char* mode = "plain") {
  for (int i = 0; i < 20; ++i) body(c.s);
  CK(cudaStreamSynchronize(c.s));
  if (cupti) {
    cuptiActivityFlushAll(1);
    {
      std::lock_guard<std::mutex> l(mu);
      recs.clear();
    }
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  }
  std::vector<double> ev;
  cudaGraphExec_t gexec = nullptr;
  if (strcmp(mode, "graph") == 0) {
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeThreadLocal));
    CK(cudaEventRecordWithFlags(c.e0, c.s, cudaEventRecordExternal));
    body(c.s);
    CK(cudaEventRecordWithFlags(c.e1, c.s, cudaEventRecordExternal));
    CK(cudaStreamEndCapture(c.s, &g));
    CK(cudaGraphInstantiate(&gexec, g, 0));
  }
  int* flag = nullptr;
  if (strcmp(mode, "blocking") == 0) CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  for (int i = 0; i < n; ++i) {
    if (flag) {
      *(volatile int*)flag = 0;
      int* dflag;
      CK(cudaHostGetDevicePointer(&dflag, flag, 0));
      wait_flag<<<1, 1, 0, c.s>>>(dflag);
    }
    CK(cudaMemsetAsync(c.flush, ++c.val, c.flush_bytes, c.s));
    if (gexec) {
      CK(cudaGraphLaunch(gexec, c.s));
    } else {
      CK(cudaEventRecord(c.e0, c.s));
      body(c.s);
      CK(cudaEventRecord(c.e1, c.s));
    }
    if (flag) *(volatile int*)flag = 1;
    CK(cudaEventSynchronize(c.e1));
    CK(cudaDeviceSynchronize());
    float ms;
    CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    ev.push_back(ms * 1000.0);
  }
  CK(cudaGetLastError());
  std::vector<double> dur, span;
  if (cupti) {
    cuptiActivityFlushAll(1);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityFlushAll(1);
    std::lock_guard<std::mutex> l(mu);
    // Drop the blocking kernels' records (every run starts with one when flag != null).
    int per = kernels_per_run + (flag ? 1 : 0);
    if (per > 0 && recs.size() == size_t(per) * n) {
      std::sort(recs.begin(), recs.end());
      for (int i = 0; i < n; ++i) {
        double busy = 0;
        int first = i * per + (flag ? 1 : 0);
        for (int k = 0; k < kernels_per_run; ++k)
          busy += (recs[first + k].second - recs[first + k].first) / 1000.0;
        dur.push_back(busy);
        span.push_back((recs[first + kernels_per_run - 1].second - recs[first].first) / 1000.0);
      }
    } else if (per > 0) {
      printf("  [%s: %zu records, expected %d]\n", name, recs.size(), per * n);
    }
  }
  if (gexec) cudaGraphExecDestroy(gexec);
  if (flag) cudaFreeHost(flag);
  double me = median(ev), md = median(dur), ms = median(span);
  std::vector<double> diff;
  for (size_t i = 0; i < dur.size(); ++i) diff.push_back(ev[i] - dur[i]);
  printf("%-28s %-8s cupti=%d  event %9.3f  busy %9.3f  span %9.3f  ev-busy(med paired) %7.3f  "
         "min ev %9.3f\n",
         name, mode, cupti, me, md, ms, median(diff), *std::min_element(ev.begin(), ev.end()));
  fflush(stdout);
}

int main() {
  Ctx c;
  CK(cudaSetDevice(0));
  CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
  c.flush_bytes = 120u << 20;
  CK(cudaMalloc(&c.flush, c.flush_bytes));
  CK(cudaEventCreate(&c.e0));
  CK(cudaEventCreate(&c.e1));
  CK(cudaFree(nullptr));
  if (cuptiActivityRegisterCallbacks(BufReq, BufDone) != CUPTI_SUCCESS) {
    printf("cupti unavailable\n");
    return 1;
  }
  const size_t big = 1ull << 30;
  float *a, *b;
  CK(cudaMalloc(&a, big));
  CK(cudaMalloc(&b, big));
  CK(cudaMemset(a, 0x3f, big));
  unsigned long long* tout;
  CK(cudaMalloc(&tout, 16));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  auto copyk = [&](size_t bytes) {
    return [=](cudaStream_t s) {
      size_t n = bytes / 16;
      copy4<<<sms * 8, 256, 0, s>>>((const float4*)a, (float4*)b, n);
    };
  };
  auto memcpy_ = [&](size_t bytes) {
    return [=](cudaStream_t s) { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); };
  };
  printf("second register: %d\n", (int)cuptiActivityRegisterCallbacks(BufReq, BufDone));
  for (int pass = 0; pass < 3; ++pass) {
    const int cupti = pass == 1;
    printf("---- CUPTI %s (pass %d)\n", cupti ? "on" : "off", pass);
    Measure(c, "empty bracket", [](cudaStream_t) {}, 0, cupti);
    Measure(c, "null kernel", [](cudaStream_t s) { null_kernel<<<1, 32, 0, s>>>(); }, 1, cupti);
    Measure(c, "2 null kernels",
            [](cudaStream_t s) {
              null_kernel<<<1, 32, 0, s>>>();
              null_kernel<<<1, 32, 0, s>>>();
            },
            2, cupti);
    Measure(c, "spin 20us", [=](cudaStream_t s) { spin<<<1, 1, 0, s>>>(20000, tout); }, 1, cupti);
    for (size_t mib : {1, 4, 16, 64, 256, 1024}) {
      std::string n1 = "copy kernel " + std::to_string(mib) + " MiB";
      Measure(c, n1.c_str(), copyk(mib << 20), 1, cupti);
      std::string n2 = "memcpy D2D " + std::to_string(mib) + " MiB";
      Measure(c, n2.c_str(), memcpy_(mib << 20), 1, cupti);
    }
    for (const char* mode : {"graph", "blocking"}) {
      Measure(c, "null kernel", [](cudaStream_t s) { null_kernel<<<1, 32, 0, s>>>(); }, 1, cupti,
              300, mode);
      Measure(c, "copy kernel 16 MiB", copyk(16 << 20), 1, cupti, 300, mode);
      Measure(c, "copy kernel 256 MiB", copyk(256 << 20), 1, cupti, 300, mode);
    }
  }
  // In-kernel globaltimer span of the spin kernel vs its event time (no CUPTI).
  std::vector<double> inside;
  for (int i = 0; i < 50; ++i) {
    spin<<<1, 1, 0, c.s>>>(20000, tout);
    unsigned long long h[2];
    CK(cudaMemcpyAsync(h, tout, 16, cudaMemcpyDeviceToHost, c.s));
    CK(cudaStreamSynchronize(c.s));
    inside.push_back((h[1] - h[0]) / 1000.0);
  }
  printf("spin kernel in-kernel globaltimer span median %.3f us\n", median(inside));
  return 0;
}
