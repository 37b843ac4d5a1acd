// DeviceBuffer: one cudaMalloc'd allocation (RAII, movable). Stream / Event: RAII wrappers.
//
// Contract: Allocate() of n bytes allocates max(n, 1) bytes; failure to allocate is
// REJECTED when it is cudaErrorMemoryAllocation (the shape does not fit), else per CudaStatus.
// Scrub() zeroes the whole allocation and waits for it (used before freeing reference data so
// a later candidate can never read it). The destructor frees without checking errors.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"

namespace kjudge::runner {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static absl::StatusOr<DeviceBuffer> Allocate(size_t bytes, std::string_view what);

  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* get() const { return ptr_; }
  size_t size() const { return bytes_; }
  absl::Status Scrub(cudaStream_t stream);

 private:
  void Free();
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
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
