// CuptiLibrary: the few CUPTI Activity API entry points the runner uses (to calibrate the
// overhead of CUDA events, event_overhead.h), loaded at run time.
//
// Contract: Open() dlopens "libcupti.so.13", then "libcupti.so", then the toolkit's
// /usr/local/cuda/{lib64,extras/CUPTI/lib64}/libcupti.so.13 (CUPTI ships with the CUDA
// toolkit, not the driver, so a runner must start and judge without it: the caller treats a
// failure as "not calibrated", never as fatal). It fails with a status naming what is missing
// when the library or a symbol cannot be found, or when the build had no CUPTI headers. The
// library stays loaded for the life of the process (CUPTI keeps worker threads; unloading it
// under them is unsafe). CUPTI's activity buffers are process-wide: RegisterCallbacks replaces
// whatever was registered before, so only one user at a time (the fidelity benchmark registers
// its own tracer after the calibration is done).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kjudge::runner {

// One device activity (a memcpy or a kernel) as CUPTI timed it, in device nanoseconds.
struct DeviceInterval {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

class CuptiLibrary {
 public:
  using RequestFn = void (*)(uint8_t** buffer, size_t* size, size_t* max_records);
  using CompleteFn = void (*)(void* context, uint32_t stream_id, uint8_t* buffer, size_t size,
                              size_t valid_size);

  static absl::StatusOr<CuptiLibrary> Open();

  absl::Status RegisterCallbacks(RequestFn request, CompleteFn complete) const;
  absl::Status EnableMemcpy(bool on) const;
  absl::Status FlushAll() const;
  // Appends the memcpy records of a completed buffer to `out` (other kinds are skipped).
  void CollectMemcpys(uint8_t* buffer, size_t valid_size, std::vector<DeviceInterval>* out) const;

 private:
  CuptiLibrary() = default;
  absl::Status Check(int result, const char* call) const;

  using RegisterFn = int (*)(RequestFn, CompleteFn);
  using KindFn = int (*)(int);
  using FlushFn = int (*)(uint32_t);
  using NextRecordFn = int (*)(uint8_t*, size_t, void**);
  using ResultStringFn = int (*)(int, const char**);
  RegisterFn register_ = nullptr;
  KindFn enable_ = nullptr;
  KindFn disable_ = nullptr;
  FlushFn flush_ = nullptr;
  NextRecordFn next_record_ = nullptr;
  ResultStringFn result_string_ = nullptr;
};

}  // namespace kjudge::runner
