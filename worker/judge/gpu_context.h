// GpuContext: the device this runner drives (or the fact that there is none), as told to the
// worker in the Hello line.
//
// Contract: DetectGpu() never fails. With no usable device (cudaGetDeviceCount fails or
// reports 0, --device out of range, cudaSetDevice fails) or with --compile-only, has_gpu is
// false, info.compile_only is true, info.arch comes from --arch (default sm_90a) and
// no_gpu_reason says why. With a device: cudaSetDevice(device) is done, info is filled from
// cudaGetDeviceProperties / cudaDriverGetVersion / cudaRuntimeGetVersion / nvrtcVersion /
// cublasGetProperty, and arch is --arch if given, else sm_<major><minor> plus 'a' when
// major >= 9 (sm_90a on Hopper, so wgmma compiles).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::runner {

struct RunnerOptions {
  int device = 0;
  std::string arch;  // "" = from the device (sm_90a without one)
  std::string cache_dir;
  bool compile_only = false;
  double time_budget_ms = 2000.0;
  std::string measured_gpu;  // --measured-gpu: GpuInfo JSON to reuse (main.cc)
};

struct GpuContext {
  bool has_gpu = false;
  std::string no_gpu_reason;
  v1::GpuInfo info;
  cudaDeviceProp props{};
};

std::string ArchFor(int major, int minor);
GpuContext DetectGpu(const RunnerOptions& options);

// The CUDA_VISIBLE_DEVICES value that shows a child process exactly this device, whatever the
// judge's own visibility and --device index: "GPU-" and the device's UUID in the form
// nvidia-smi prints (8-4-4-4-12 lower-case hex digits). The PyTorch oracle has no --device of its
// own; given this, its device 0 (and its compile children's) is the judge's device, so the VMM
// allocations it maps are on the GPU they were made on (on a host with several GPUs and one
// worker per GPU, --device N > 0 had the oracle map them on device 0).
std::string CudaVisibleDeviceOf(const cudaUUID_t& uuid);

}  // namespace kjudge::runner
