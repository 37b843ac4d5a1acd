// MessageChannel: length-framed protobuf messages over a connected Unix stream socket, with
// file descriptors passed alongside (SCM_RIGHTS). The judge and each candidate process talk
// through one (proto/kjudge/v1/candidate.proto); it is never stdout/stderr, which carry what
// submitted kernels print.
//
// Contract: Send() writes an 8-byte little-endian length, then the serialized message; the
// descriptors in `fds` travel with the length header (the receiver owns its copies; the
// sender keeps its own). Receive() waits until `deadline` (DeadlineExceeded after it;
// Unavailable when the peer closed), refuses a frame over kMaxFrameBytes (a peer that lies
// about a length cannot make us allocate without end) and returns the descriptors that came
// with the frame as owned ScopedFds. The channel owns its socket. Not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <google/protobuf/message_lite.h>

#include "absl/status/statusor.h"
#include "worker/process/unique_fd.h"

namespace kjudge::runner {

// An owned file descriptor: the one RAII type for descriptors in the tree.
using ScopedFd = process::UniqueFd;

class MessageChannel {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kMaxFrameBytes = 256ULL << 20;  // a cubin fits; a lie does not
  static constexpr size_t kMaxFds = 64;

  explicit MessageChannel(ScopedFd socket) : socket_(std::move(socket)) {}

  absl::Status Send(const google::protobuf::MessageLite& message,
                    const std::vector<int>& fds = {});
  // Parses the next frame into `message`; the descriptors that came with it go to `fds`.
  absl::Status Receive(google::protobuf::MessageLite* message, Clock::time_point deadline,
                       std::vector<ScopedFd>* fds = nullptr);
  int fd() const { return socket_.get(); }

 private:
  absl::Status ReadExactly(char* data, size_t n, Clock::time_point deadline,
                           std::vector<ScopedFd>* fds);
  ScopedFd socket_;
};

}  // namespace kjudge::runner
