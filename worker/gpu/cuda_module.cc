#include "worker/gpu/cuda_module.h"

#include <utility>

#include "worker/gpu/str_util.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {

absl::StatusOr<CudaModule> CudaModule::Load(const CompiledProgram& program) {
  CudaModule module;
  module.lowered_names_ = program.lowered_names;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLibraryLoadData(&module.library_, program.cubin.data(),
                                                    nullptr, nullptr, 0, nullptr, nullptr, 0),
                                "cudaLibraryLoadData"));
  return module;
}

CudaModule::CudaModule(CudaModule&& other) noexcept
    : library_(std::exchange(other.library_, nullptr)),
      lowered_names_(std::move(other.lowered_names_)),
      kernels_(std::move(other.kernels_)) {}

CudaModule& CudaModule::operator=(CudaModule&& other) noexcept {
  if (this != &other) {
    Reset();
    library_ = std::exchange(other.library_, nullptr);
    lowered_names_ = std::move(other.lowered_names_);
    kernels_ = std::move(other.kernels_);
  }
  return *this;
}

CudaModule::~CudaModule() { Reset(); }

void CudaModule::Reset() {
  if (library_ != nullptr) cudaLibraryUnload(library_);
  library_ = nullptr;
  kernels_.clear();
}

absl::StatusOr<cudaKernel_t> CudaModule::Kernel(const std::string& name_expression) {
  if (auto it = kernels_.find(name_expression); it != kernels_.end()) return it->second;
  const auto lowered = lowered_names_.find(name_expression);
  if (lowered == lowered_names_.end()) {
    return MakeRunnerError(v1::LAUNCH_ERROR,
                           Cat("kernel `", name_expression, "` was not compiled"));
  }
  cudaKernel_t kernel = nullptr;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaLibraryGetKernel(&kernel, library_, lowered->second.c_str()),
                                Cat("looking up kernel `", name_expression, "`"),
                                v1::LAUNCH_ERROR));
  kernels_[name_expression] = kernel;
  return kernel;
}

}  // namespace kjudge::runner
