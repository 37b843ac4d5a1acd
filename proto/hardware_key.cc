#include "proto/hardware_key.h"

#include "absl/strings/str_cat.h"

namespace kjudge {

std::string HardwareKey(const v1::GpuInfo& gpu) {
  if (gpu.compile_only()) {
    return absl::StrCat("compile-only|", gpu.arch(), "|nvrtc ", gpu.nvrtc_version());
  }
  return absl::StrCat(gpu.name(), "|sm ", gpu.sm_count(), "|mem ", gpu.memory_bytes(), "|",
                      gpu.arch(), "|driver ", gpu.driver_version(), "|cudart ",
                      gpu.runtime_version(), "|nvrtc ", gpu.nvrtc_version(), "|cublas ",
                      gpu.cublas_version(),
                      gpu.event_overhead_us() > 0.0 ? "|timing events-calibrated" : "",
                      gpu.torch_version().empty() ? "" : absl::StrCat("|torch ", gpu.torch_version()));
}

}  // namespace kjudge
