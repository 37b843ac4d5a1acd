#include "worker/gpu/device_buffer.h"

#include <algorithm>
#include <limits>
#include <vector>
#include <string>
#include <utility>

#include "worker/gpu/str_util.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {

absl::StatusOr<DeviceBuffer> DeviceBuffer::AllocateRaw(size_t n, std::string_view what) {
  DeviceBuffer buffer;
  const cudaError_t err = cudaMalloc(&buffer.base_, n);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return MakeRunnerError(v1::REJECTED,
                           Cat("out of device memory allocating ", what, " (", n,
                                        " bytes)"),
                           CudaErrorText(err));
  }
  KJ_RETURN_IF_ERROR(CudaStatus(err, Cat("cudaMalloc(", what, ", ", n, " bytes)")));
  buffer.ptr_ = buffer.base_;
  buffer.bytes_ = n;
  return buffer;
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(size_t bytes, std::string_view what) {
  return AllocateRaw(std::max<size_t>(bytes, 1), what);
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::AllocateGuarded(size_t bytes, std::string_view what,
                                                           const GuardPattern& pattern) {
  if (bytes > std::numeric_limits<size_t>::max() - 2 * kGuardBytes) {
    return MakeRunnerError(v1::REJECTED, Cat(what, ": ", bytes, " bytes cannot be allocated"));
  }
  KJ_ASSIGN_OR_RETURN(DeviceBuffer buffer, AllocateRaw(GuardedBytes(bytes), what));
  buffer.ptr_ = static_cast<std::byte*>(buffer.base_) + kGuardBytes;
  buffer.bytes_ = bytes;
  buffer.guard_ = kGuardBytes;
  KJ_RETURN_IF_ERROR(buffer.FillGuards(what, pattern));
  return buffer;
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::AllocateGuardedShared(size_t bytes,
                                                                 std::string_view what,
                                                                 const GuardPattern& pattern,
                                                                 int device) {
  if (bytes > std::numeric_limits<size_t>::max() / 2) {
    return MakeRunnerError(v1::REJECTED, Cat(what, ": ", bytes, " bytes cannot be allocated"));
  }
  absl::StatusOr<SharedAllocation> shared = SharedAllocation::Create(GuardedBytes(bytes), device);
  if (!shared.ok()) return WithContext(shared.status(), Cat("allocating ", what));
  DeviceBuffer buffer;
  buffer.shared_ = *std::move(shared);
  buffer.base_ = buffer.shared_.ptr();
  buffer.ptr_ = static_cast<std::byte*>(buffer.base_) + kGuardBytes;
  buffer.bytes_ = bytes;
  buffer.guard_ = kGuardBytes;
  KJ_RETURN_IF_ERROR(buffer.FillGuards(what, pattern));
  return buffer;
}

absl::Status DeviceBuffer::FillGuards(std::string_view what, const GuardPattern& pattern) {
  auto* base = static_cast<std::byte*>(base_);
  for (std::byte* at : {base, base + kGuardBytes + bytes_}) {
    const std::vector<std::byte> guard =
        pattern.Bytes(reinterpret_cast<uintptr_t>(at), kGuardBytes);
    KJ_RETURN_IF_ERROR(
        CudaStatus(cudaMemcpy(at, guard.data(), guard.size(), cudaMemcpyHostToDevice),
                   Cat("filling the guards of ", what)));
  }
  // A copy from pageable memory may return before its DMA lands, and the runner's streams do
  // not wait for the legacy stream: wait here, before any kernel can see the buffer.
  return CudaStatus(cudaStreamSynchronize(cudaStreamLegacy), Cat("filling the guards of ", what));
}

GuardedBuffer DeviceBuffer::Guarded(std::string label) const {
  return GuardedBuffer{std::move(label), static_cast<const std::byte*>(ptr_), bytes_, guard_};
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : shared_(std::move(other.shared_)),
      base_(std::exchange(other.base_, nullptr)),
      ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      guard_(std::exchange(other.guard_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Free();
    shared_ = std::move(other.shared_);
    base_ = std::exchange(other.base_, nullptr);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    guard_ = std::exchange(other.guard_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Free(); }

void DeviceBuffer::Free() {
  if (shared()) {
    shared_ = SharedAllocation();  // unmaps and releases
  } else if (base_ != nullptr) {
    cudaFree(base_);
  }
  base_ = nullptr;
  ptr_ = nullptr;
  bytes_ = 0;
  guard_ = 0;
}

absl::Status DeviceBuffer::Scrub(cudaStream_t stream) {
  if (base_ == nullptr) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(
      CudaStatus(cudaMemsetAsync(base_, 0, bytes_ + 2 * guard_, stream), "scrub memset"));
  return CudaStatus(cudaStreamSynchronize(stream), "scrub synchronize");
}

absl::StatusOr<Stream> Stream::Create() {
  Stream s;
  KJ_RETURN_IF_ERROR(
      CudaStatus(cudaStreamCreateWithFlags(&s.stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
  return s;
}
Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

absl::StatusOr<Event> Event::Create() {
  Event e;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&e.event_), "cudaEventCreate"));
  return e;
}
Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
Event::~Event() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

}  // namespace kjudge::runner
