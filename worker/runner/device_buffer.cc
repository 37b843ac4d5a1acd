#include "worker/runner/device_buffer.h"

#include <algorithm>
#include <utility>

#include "worker/runner/str_util.h"
#include "worker/runner/runner_error.h"

namespace kjudge::runner {

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(size_t bytes, std::string_view what) {
  DeviceBuffer buffer;
  const size_t n = std::max<size_t>(bytes, 1);
  const cudaError_t err = cudaMalloc(&buffer.ptr_, n);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return MakeRunnerError(v1::REJECTED,
                           Cat("out of device memory allocating ", what, " (", n,
                                        " bytes)"),
                           CudaErrorText(err));
  }
  KJ_RETURN_IF_ERROR(CudaStatus(err, Cat("cudaMalloc(", what, ", ", n, " bytes)")));
  buffer.bytes_ = n;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Free();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Free(); }

void DeviceBuffer::Free() {
  if (ptr_ != nullptr) cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

absl::Status DeviceBuffer::Scrub(cudaStream_t stream) {
  if (ptr_ == nullptr) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemsetAsync(ptr_, 0, bytes_, stream), "scrub memset"));
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
