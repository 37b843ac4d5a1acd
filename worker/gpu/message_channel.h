// MessageChannel: length-framed protobuf messages over a connected Unix stream socket, with
// file descriptors passed alongside (SCM_RIGHTS). The judge and each candidate process talk
// through one (proto/kjudge/v1/candidate.proto); it is never stdout/stderr, which carry what
// submitted kernels print.
//
// Contract: Send() writes an 8-byte little-endian length, then the serialized message; the
// descriptors in `fds` travel in order, at most kMaxFdsPerSend with the length header and each
// further group of kMaxFdsPerSend with one more byte of the message (a module problem's model
// binds hundreds of buffers, one descriptor each; one sendmsg carries at most SCM_MAX_FD = 253,
// and a Unix stream socket hands the receiver one sendmsg's descriptors per recvmsg), so a
// frame carries up to kMaxFrameFds descriptors if its message has a byte for each group
// (InvalidArgument otherwise). The receiver owns its copies; the sender keeps its own.
// Receive() waits until `deadline` (DeadlineExceeded after it; Unavailable when the peer
// closed), refuses a frame over kMaxFrameBytes (a peer that lies about a length cannot make us
// allocate without end) or with more than kMaxFrameFds descriptors, and returns the descriptors
// that came with the frame, in the order sent, as owned ScopedFds. The channel owns its socket.
// Not thread-safe.
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
  static constexpr size_t kMaxFdsPerSend = 64;   // per sendmsg (the kernel's cap is 253)
  static constexpr size_t kMaxFrameFds = 4096;   // per frame (a model's buffers fit)

  explicit MessageChannel(ScopedFd socket) : socket_(std::move(socket)) {}

  absl::Status Send(const google::protobuf::MessageLite& message,
                    const std::vector<int>& fds = {});
  // Parses the next frame into `message`; the descriptors that came with it go to `fds`.
  absl::Status Receive(google::protobuf::MessageLite* message, Clock::time_point deadline,
                       std::vector<ScopedFd>* fds = nullptr);
  // Waits until a frame has started to arrive (or the peer closed) without reading it: OK then,
  // DeadlineExceeded at `deadline`. Lets a caller do other work (a heartbeat) while it waits,
  // since a Receive() cut by its deadline may have consumed part of a frame.
  absl::Status WaitReadable(Clock::time_point deadline) const;
  int fd() const { return socket_.get(); }

 private:
  // Reads n bytes; the descriptors that arrive go to `fds` (closed when null) and are counted
  // in `received_fds` (the frame's count, across its header and message).
  absl::Status ReadExactly(char* data, size_t n, Clock::time_point deadline,
                           std::vector<ScopedFd>* fds, size_t& received_fds);
  ScopedFd socket_;
};

}  // namespace kjudge::runner
