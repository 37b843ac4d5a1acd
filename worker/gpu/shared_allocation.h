// SharedAllocation: device memory one process allocates and another maps, through CUDA's
// virtual memory management (VMM) with POSIX file-descriptor handles. This is how the judge
// gives a candidate process its tensors without giving it anything else: the candidate's
// address space holds only what was mapped into it, and inputs are mapped read-only, so a
// kernel that writes an input faults (CUDA_ERROR_ILLEGAL_ADDRESS) instead of changing it.
//
// The driver API is reached through cudaGetDriverEntryPointByVersion, so nothing links
// libcuda.so directly and the binaries still start on a host without a driver.
//
// Contract:
//   * SharedAllocation::Create(bytes, device) makes an allocation of at least `bytes`, rounded
//     up to the VMM granularity (2 MiB on Hopper), mapped read-write into the calling process
//     (ptr()); Export() returns a new descriptor for it that another process can import (the
//     caller closes it, or passes it on with SCM_RIGHTS). Out of memory is REJECTED.
//   * MappedAllocation::Import(fd, bytes, device, read_only) maps an exported allocation into
//     the calling process, with read-only or read-write access for `device`; the handle is
//     released once mapped (the mapping keeps the memory alive). Importing does not take
//     ownership of `fd`.
//   * Both unmap and free their address range on destruction (RAII, movable, not copyable).
#pragma once

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace kjudge::runner {

// VMM granularity for `device` (bytes); allocations are multiples of it.
absl::StatusOr<size_t> SharedGranularity(int device);

class SharedAllocation {
 public:
  SharedAllocation() = default;
  static absl::StatusOr<SharedAllocation> Create(size_t bytes, int device);
  SharedAllocation(SharedAllocation&& other) noexcept;
  SharedAllocation& operator=(SharedAllocation&& other) noexcept;
  SharedAllocation(const SharedAllocation&) = delete;
  SharedAllocation& operator=(const SharedAllocation&) = delete;
  ~SharedAllocation();

  void* ptr() const { return reinterpret_cast<void*>(ptr_); }  // NOLINT(performance-no-int-to-ptr)
  size_t size() const { return size_; }
  // A new descriptor for this allocation (close-on-exec; pass it with SCM_RIGHTS).
  absl::StatusOr<int> Export() const;

 private:
  void Free();
  uint64_t handle_ = 0;  // CUmemGenericAllocationHandle
  uint64_t ptr_ = 0;     // CUdeviceptr
  size_t size_ = 0;
};

class MappedAllocation {
 public:
  MappedAllocation() = default;
  static absl::StatusOr<MappedAllocation> Import(int fd, size_t bytes, int device,
                                                 bool read_only);
  MappedAllocation(MappedAllocation&& other) noexcept;
  MappedAllocation& operator=(MappedAllocation&& other) noexcept;
  MappedAllocation(const MappedAllocation&) = delete;
  MappedAllocation& operator=(const MappedAllocation&) = delete;
  ~MappedAllocation();

  void* ptr() const { return reinterpret_cast<void*>(ptr_); }  // NOLINT(performance-no-int-to-ptr)
  size_t size() const { return size_; }

 private:
  void Free();
  uint64_t ptr_ = 0;
  size_t size_ = 0;
};

}  // namespace kjudge::runner
