// PlanExecutor: a LaunchPlan bound to one shape's device buffers, ready to launch.
//
// Contract: Prepare() resolves every launch of the plan for `bindings` (sizes + scalars):
// the kernel (by name expression, from the module), grid/block/shared memory (evaluated and
// checked against the device and the kernel's attributes; dynamic shared memory above 48 KB
// raises cudaFuncAttributeMaxDynamicSharedMemorySize), the scratch buffers (allocated here,
// count * dtype size each, filled with 0xFF bytes: plans must not rely on zeroed scratch;
// with guard bands of the job's pattern before and after each, guard_bands.h, listed by
// ScratchGuards() for DeviceUtilities::CheckGuards; ScratchBytes() includes them),
// and the argument blob, laid out from cudaFuncGetParamInfo:
//   * a bare name of a tensor or scratch buffer passes its device pointer (parameter size 8);
//   * any other expression is a scalar: an integer value is written as int32 into a 4-byte
//     parameter (error when out of range) or int64 into an 8-byte one; a float value as float
//     (4 bytes) or double (8 bytes). Float parameters therefore need float expressions (1.0).
// Argument count or size mismatches and bad configurations are LAUNCH_ERROR whose message names
// the plan line ("line 14: row_finish<256>: ..."). Launch() launches every kernel on `stream`
// and checks cudaGetLastError after each; with sync_each it also synchronizes after each, so
// a fault is attributed to its launch. Movable, owns its scratch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/expression.h"
#include "common/launch_plan.h"
#include "worker/gpu/cuda_module.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/guard_bands.h"

namespace kjudge::runner {

struct PlanLimits {
  int max_threads_per_block = 1024;
  int max_grid[3] = {2147483647, 65535, 65535};
  size_t max_shared_optin = 48 * 1024;  // cudaDeviceProp::sharedMemPerBlockOptin
};

// Sizes a plan's scratch buffers need at these bindings, guards included (for the memory
// check).
absl::StatusOr<size_t> ScratchBytes(const LaunchPlan& plan, const Bindings& bindings);

// A plan's scratch buffers at one set of bindings: allocated (guarded; in shared memory when
// `shared_device` >= 0, for a candidate process to map) and filled with 0xFF bytes.
struct ScratchSet {
  std::vector<DeviceBuffer> buffers;
  std::vector<std::string> names;   // the plan's names, one per buffer
  std::vector<std::string> labels;  // "scratch 'partial' (1024 x f32)", one per buffer
  static absl::StatusOr<ScratchSet> Allocate(const LaunchPlan& plan, const Bindings& bindings,
                                             const GuardPattern& guards, int shared_device);
  std::vector<GuardedBuffer> Guards() const;
  void AddPointers(std::map<std::string, void*>* pointers) const;
};

class PlanExecutor {
 public:
  // Binds to buffers that already exist: `pointers` holds every tensor and every scratch
  // buffer of the plan (the candidate process, whose scratch the judge allocated). Allocates
  // nothing.
  static absl::StatusOr<PlanExecutor> PrepareBound(const LaunchPlan& plan, CudaModule& module,
                                                   const Bindings& bindings,
                                                   const std::map<std::string, void*>& pointers,
                                                   const PlanLimits& limits);
  static absl::StatusOr<PlanExecutor> Prepare(const LaunchPlan& plan, CudaModule& module,
                                              const Bindings& bindings,
                                              const std::map<std::string, void*>& tensors,
                                              const PlanLimits& limits,
                                              const GuardPattern& guards);

  absl::Status Launch(cudaStream_t stream, bool sync_each) const;
  // Zeroes the scratch buffers and waits (before a reference's memory is released).
  absl::Status ScrubScratch(cudaStream_t stream);
  size_t launch_count() const { return launches_.size(); }
  // The scratch buffers, labelled "scratch 'partial' (1024 x f32)", for a guard check.
  std::vector<GuardedBuffer> ScratchGuards() const;

 private:
  struct PreparedLaunch {
    std::string where;  // "line 14: row_finish<256>"
    cudaKernel_t kernel = nullptr;
    dim3 grid;
    dim3 block;
    size_t shared_bytes = 0;
    std::vector<uint64_t> args;  // one 8-byte slot per parameter
  };
  static absl::StatusOr<PreparedLaunch> PrepareLaunch(
      const kjudge::Launch& launch, CudaModule& module, const Bindings& bindings,
      const std::map<std::string, void*>& pointers, const PlanLimits& limits);

  ScratchSet scratch_;
  std::vector<PreparedLaunch> launches_;
};

}  // namespace kjudge::runner
