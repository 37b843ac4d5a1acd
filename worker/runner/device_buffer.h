// DeviceBuffer: one cudaMalloc'd allocation (RAII, movable). Stream / Event: RAII wrappers.
//
// Contract: Allocate() of n bytes allocates max(n, 1) bytes; failure to allocate is
// REJECTED when it is cudaErrorMemoryAllocation (the shape does not fit), else per CudaStatus.
// AllocateGuarded() of n bytes allocates n + 2 * kGuardBytes (guard_bands.h): get() is the
// data (cudaMalloc base + kGuardBytes, so 256-aligned), size() is n, and the guards before
// get() and from get() + n on hold the pattern's bytes for their addresses (copied in,
// synchronously).
// Scrub() zeroes the whole allocation, guards included, and waits for it (used before freeing
// reference data so a later candidate can never read it). The destructor frees without
// checking errors.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "worker/runner/guard_bands.h"

namespace kjudge::runner {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static absl::StatusOr<DeviceBuffer> Allocate(size_t bytes, std::string_view what);
  static absl::StatusOr<DeviceBuffer> AllocateGuarded(size_t bytes, std::string_view what,
                                                      const GuardPattern& pattern);

  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* get() const { return ptr_; }
  size_t size() const { return bytes_; }
  size_t guard_bytes() const { return guard_; }  // 0 unless AllocateGuarded
  // This buffer as a guard check reports on it, under `label`.
  GuardedBuffer Guarded(std::string label) const;
  absl::Status Scrub(cudaStream_t stream);

 private:
  static absl::StatusOr<DeviceBuffer> AllocateRaw(size_t n, std::string_view what);
  void Free();
  void* base_ = nullptr;  // what cudaMalloc returned (== ptr_ without guards)
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  size_t guard_ = 0;
};

class Stream {
 public:
  static absl::StatusOr<Stream> Create();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();
  cudaStream_t get() const { return stream_; }

 private:
  Stream() = default;
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  static absl::StatusOr<Event> Create();
  Event(Event&& other) noexcept;
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();
  cudaEvent_t get() const { return event_; }

 private:
  Event() = default;
  cudaEvent_t event_ = nullptr;
};

}  // namespace kjudge::runner
