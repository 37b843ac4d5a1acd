// libFuzzer target: ptxas' -v report parser (worker/compiler/ptxas_report.h) over arbitrary logs.
// Besides not crashing: at most the cap of kernels, every name already safe, numbers >= 0 where
// they must be, the returned log no longer than the input, and splitting that log again never
// makes it longer. The same bytes read as a cubin (LaunchBoundsFromCubin): safe names, bounds
// within [0, 1025].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "worker/compiler/ptxas_report.h"

namespace {
void Require(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kjudge::compiler;
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  const PtxasReport report = SplitPtxasReport(log, 8);
  Require(report.kernels.size() <= 8);
  Require(report.kernels_cut >= 0);
  Require(report.log.size() <= log.size() + 1);
  for (const KernelResources& k : report.kernels) {
    Require(SafeKernelName(k.name) == k.name);
    Require(k.registers >= 0 && k.max_threads_per_block >= 0 && k.max_threads_per_block <= 1024);
  }
  const PtxasReport again = SplitPtxasReport(report.log, 8);
  Require(again.log.size() <= report.log.size() + 1);
  for (const auto& [name, threads] : LaunchBoundsFromCubin(log)) {
    Require(SafeKernelName(name) == name && threads >= 0 && threads <= 1025);
  }
  return 0;
}
