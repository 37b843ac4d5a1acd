// CudaModule: a cubin loaded with the runtime library API (cudaLibraryLoadData), and the
// kernels in it looked up by their NVRTC name expression.
//
// Contract: Load() copies the program and loads it into the current device's context; Kernel()
// maps a name expression (e.g. "row_finish<256>") to its lowered name and returns the kernel
// handle (cached). The library is unloaded by the destructor (RAII; movable, not copyable).
// A kernel missing from the cubin is LAUNCH_ERROR. Load failures are RUNTIME_ERROR when
// sticky, else INTERNAL_ERROR (a cubin NVRTC produced for this arch must load).
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::runner {

class CudaModule {
 public:
  static absl::StatusOr<CudaModule> Load(const CompiledProgram& program);

  CudaModule(CudaModule&& other) noexcept;
  CudaModule& operator=(CudaModule&& other) noexcept;
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;
  ~CudaModule();

  absl::StatusOr<cudaKernel_t> Kernel(const std::string& name_expression);

 private:
  CudaModule() = default;
  void Reset();

  cudaLibrary_t library_ = nullptr;
  std::map<std::string, std::string> lowered_names_;
  std::map<std::string, cudaKernel_t> kernels_;
};

// The `const void*` form the runtime's launch/attribute calls accept for a cudaKernel_t.
inline const void* KernelFunc(cudaKernel_t kernel) { return static_cast<const void*>(kernel); }

}  // namespace kjudge::runner
