// ClockMonitor: the SM clock of the runner's GPU, read through NVML, for throttling detection
// during timing (nvbench style: a sample taken while the SM clock is under 75% of its maximum
// is discarded and reported).
//
// Contract: NVML is loaded at run time with dlopen("libnvidia-ml.so.1") (it ships with the
// driver; there is no link-time dependency). Open() never fails: when the library, a symbol,
// nvmlInit or the device is missing, available() is false and reason() says why, and the
// readings are 0. The device is found by the CUDA device's PCI bus id (so CUDA_VISIBLE_DEVICES
// does not confuse it), falling back to the same index. SmClockMhz() is the current SM clock
// (0 on error); max_sm_clock_mhz() is nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM).
#pragma once

#include <memory>
#include <string>

namespace kjudge::runner {

class ClockMonitor {
 public:
  static std::unique_ptr<ClockMonitor> Open(int cuda_device);
  ClockMonitor(const ClockMonitor&) = delete;
  ClockMonitor& operator=(const ClockMonitor&) = delete;
  ClockMonitor(ClockMonitor&&) = delete;
  ClockMonitor& operator=(ClockMonitor&&) = delete;
  ~ClockMonitor();

  bool available() const { return device_ != nullptr && max_sm_mhz_ > 0; }
  const std::string& reason() const { return reason_; }
  int max_sm_clock_mhz() const { return max_sm_mhz_; }
  int SmClockMhz() const;

 private:
  ClockMonitor() = default;
  using GetClockFn = int (*)(void*, int, unsigned int*);
  void* library_ = nullptr;
  void* device_ = nullptr;
  bool initialised_ = false;
  int (*shutdown_)() = nullptr;
  GetClockFn get_clock_ = nullptr;
  int max_sm_mhz_ = 0;
  std::string reason_;
};

}  // namespace kjudge::runner
