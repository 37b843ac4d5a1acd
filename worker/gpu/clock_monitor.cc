#include "worker/gpu/clock_monitor.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <array>

#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

// The few NVML declarations used here (nvml.h is not needed at build time).
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
using InitFn = int (*)();
using ShutdownFn = int (*)();
using HandleByBusIdFn = int (*)(const char*, void**);
using HandleByIndexFn = int (*)(unsigned int, void**);
using ClockFn = int (*)(void*, int, unsigned int*);

template <typename Fn>
Fn Symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

}  // namespace

std::unique_ptr<ClockMonitor> ClockMonitor::Open(int cuda_device) {
  std::unique_ptr<ClockMonitor> m(new ClockMonitor());
  m->library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (m->library_ == nullptr) {
    const char* err = dlerror();
    m->reason_ = Cat("NVML not loaded: ", err != nullptr ? err : "dlopen failed");
    return m;
  }
  auto init = Symbol<InitFn>(m->library_, "nvmlInit_v2");
  m->shutdown_ = Symbol<ShutdownFn>(m->library_, "nvmlShutdown");
  auto by_bus = Symbol<HandleByBusIdFn>(m->library_, "nvmlDeviceGetHandleByPciBusId_v2");
  auto by_index = Symbol<HandleByIndexFn>(m->library_, "nvmlDeviceGetHandleByIndex_v2");
  m->get_clock_ = Symbol<ClockFn>(m->library_, "nvmlDeviceGetClockInfo");
  auto get_max = Symbol<ClockFn>(m->library_, "nvmlDeviceGetMaxClockInfo");
  if (init == nullptr || m->shutdown_ == nullptr || m->get_clock_ == nullptr ||
      get_max == nullptr || (by_bus == nullptr && by_index == nullptr)) {
    m->reason_ = "NVML is missing a needed symbol";
    return m;
  }
  if (const int rc = init(); rc != kNvmlSuccess) {
    m->reason_ = Cat("nvmlInit_v2 failed (", rc, ")");
    return m;
  }
  m->initialised_ = true;
  std::array<char, 64> bus{};
  void* device = nullptr;
  if (by_bus != nullptr &&
      cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), cuda_device) ==
          cudaSuccess) {
    if (by_bus(bus.data(), &device) != kNvmlSuccess) device = nullptr;
  } else {
    (void)cudaGetLastError();
  }
  if (device == nullptr && by_index != nullptr &&
      by_index(static_cast<unsigned int>(cuda_device), &device) != kNvmlSuccess) {
    device = nullptr;
  }
  if (device == nullptr) {
    m->reason_ = Cat("NVML does not know CUDA device ", cuda_device, " (PCI ", bus.data(), ")");
    return m;
  }
  unsigned int max_mhz = 0;
  if (get_max(device, kNvmlClockSm, &max_mhz) != kNvmlSuccess || max_mhz == 0) {
    m->reason_ = "nvmlDeviceGetMaxClockInfo(SM) failed";
    return m;
  }
  m->device_ = device;
  m->max_sm_mhz_ = static_cast<int>(max_mhz);
  return m;
}

ClockMonitor::~ClockMonitor() {
  if (initialised_ && shutdown_ != nullptr) shutdown_();
  if (library_ != nullptr) dlclose(library_);
}

int ClockMonitor::SmClockMhz() const {
  if (device_ == nullptr) return 0;
  unsigned int mhz = 0;
  if (get_clock_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return static_cast<int>(mhz);
}

}  // namespace kjudge::runner
