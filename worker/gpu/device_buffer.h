// DeviceBuffer: one cudaMalloc'd allocation (RAII, movable). Stream / Event: RAII wrappers.
//
// Contract: Allocate() of n bytes allocates max(n, 1) bytes; failure to allocate is
// REJECTED when it is cudaErrorMemoryAllocation (the shape does not fit), else per CudaStatus.
// AllocateGuarded() of n bytes allocates n + 2 * kGuardBytes (guard_bands.h): get() is the
// data (cudaMalloc base + kGuardBytes, so 256-aligned), size() is n, and the guards before
// get() and from get() + n on hold the pattern's bytes for their addresses (copied in,
// synchronously).
// AllocateGuardedShared() is AllocateGuarded() in memory another process can map
// (shared_allocation.h: CUDA VMM, rounded up to the granularity): Export() gives the descriptor
// and SharedLayout() where the data sits in it. The judge allocates everything a candidate may
// touch this way; the candidate process maps exactly these allocations and nothing else.
// Scrub() zeroes the whole allocation, guards included, and waits for it (used before freeing
// reference data so a later candidate can never read it). The destructor frees without
// checking errors.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "worker/gpu/guard_bands.h"
#include "worker/gpu/shared_allocation.h"

namespace kjudge::runner {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static absl::StatusOr<DeviceBuffer> Allocate(size_t bytes, std::string_view what);
  static absl::StatusOr<DeviceBuffer> AllocateGuarded(size_t bytes, std::string_view what,
                                                      const GuardPattern& pattern);
  static absl::StatusOr<DeviceBuffer> AllocateGuardedShared(size_t bytes, std::string_view what,
                                                            const GuardPattern& pattern,
                                                            int device);

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
  bool shared() const { return shared_.size() != 0; }
  // For a shared buffer: a new descriptor of the allocation (the caller closes it).
  absl::StatusOr<int> Export() const { return shared_.Export(); }
  // For a shared buffer: the whole allocation's size and the data's offset in it.
  size_t alloc_bytes() const { return shared_.size(); }
  size_t data_offset() const {
    return static_cast<size_t>(static_cast<const std::byte*>(ptr_) -
                               static_cast<const std::byte*>(base_));
  }

 private:
  static absl::StatusOr<DeviceBuffer> AllocateRaw(size_t n, std::string_view what);
  absl::Status FillGuards(std::string_view what, const GuardPattern& pattern);
  void Free();
  SharedAllocation shared_;  // set for AllocateGuardedShared (then base_ is its address)
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
