#include "worker/gpu/message_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <utility>

#include "common/status_macros.h"
#include "worker/gpu/str_util.h"
#include "worker/process/descriptor_passing.h"

namespace kjudge::runner {
namespace {

absl::Status Errno(std::string_view what) {
  return absl::UnavailableError(Cat(what, ": ", std::strerror(errno)));
}

int MsUntil(MessageChannel::Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - MessageChannel::Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1000));
}

}  // namespace

absl::Status MessageChannel::Send(const google::protobuf::MessageLite& message,
                                  const std::vector<int>& fds) {
  if (fds.size() > kMaxFrameFds) {
    return absl::InvalidArgumentError(
        Cat(fds.size(), " descriptors in a frame (at most ", kMaxFrameFds, ")"));
  }
  std::string frame(8, '\0');
  if (!message.AppendToString(&frame)) return absl::InternalError("serializing a message");
  uint64_t n = frame.size() - 8;
  for (int i = 0; i < 8; ++i) {
    frame[i] = static_cast<char>(n & 0xFFU);
    n >>= 8U;
  }
  const size_t groups = (fds.size() + kMaxFdsPerSend - 1) / kMaxFdsPerSend;
  if (groups > 1 && frame.size() - 8 < groups - 1) {
    return absl::InvalidArgumentError(Cat(fds.size(), " descriptors need a message of at least ",
                                          groups - 1, " bytes to travel with"));
  }
  // Group 0 travels with the 8 header bytes, group g >= 1 with message byte g - 1 (frame byte
  // 7 + g); the rest goes as plain bytes. A stream socket may take part of a piece: the rest of
  // it follows as plain bytes (the descriptors went with its first byte).
  size_t done = 0;
  const auto send_plain = [&](size_t end) -> absl::Status {
    while (done < end) {
      const ssize_t w = send(socket_.get(), frame.data() + done, end - done, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return Errno("sending a frame");
      done += static_cast<size_t>(w);
    }
    return absl::OkStatus();
  };
  for (size_t g = 0; g < std::max<size_t>(groups, 1); ++g) {
    const size_t piece_end = g == 0 ? 8 : 8 + g;
    const size_t first = std::min(g * kMaxFdsPerSend, fds.size());
    const size_t count = std::min(kMaxFdsPerSend, fds.size() - first);
    const ssize_t sent =
        process::SendWithDescriptors(socket_.get(), frame.data() + done, piece_end - done,
                                     std::span<const int>(fds.data() + first, count));
    if (sent <= 0) return Errno("sending a frame with descriptors");
    done += static_cast<size_t>(sent);
    KJ_RETURN_IF_ERROR(send_plain(piece_end));
  }
  KJ_RETURN_IF_ERROR(send_plain(frame.size()));
  return absl::OkStatus();
}

absl::Status MessageChannel::WaitReadable(Clock::time_point deadline) const {
  for (;;) {
    pollfd p{socket_.get(), POLLIN, 0};
    const int ready = poll(&p, 1, MsUntil(deadline));
    if (ready < 0 && errno != EINTR) return Errno("poll");
    if (ready > 0) return absl::OkStatus();  // data, or a hang-up Receive() will report
    if (Clock::now() >= deadline) return absl::DeadlineExceededError("no message in time");
  }
}

absl::Status MessageChannel::ReadExactly(char* data, size_t n, Clock::time_point deadline,
                                         std::vector<ScopedFd>* fds, size_t& received_fds) {
  size_t got = 0;
  while (got < n) {
    pollfd p{socket_.get(), POLLIN, 0};
    const int ready = poll(&p, 1, MsUntil(deadline));
    if (ready < 0 && errno != EINTR) return Errno("poll");
    if (ready <= 0) {
      if (Clock::now() >= deadline) return absl::DeadlineExceededError("no message in time");
      continue;
    }
    iovec iov{data + got, n - got};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerSend)];
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t r = recvmsg(socket_.get(), &msg, MSG_CMSG_CLOEXEC);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Errno("receiving");
    }
    if (r == 0) return absl::UnavailableError("the peer closed the channel");
    size_t arrived = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        ScopedFd owned(fd);  // closed here unless the caller takes it
        if (fds != nullptr) fds->push_back(std::move(owned));
        ++arrived;
      }
    }
    received_fds += arrived;
    if ((msg.msg_flags & MSG_CTRUNC) != 0) {
      return absl::InvalidArgumentError(
          Cat("descriptors lost in transit (more than ", kMaxFdsPerSend, " in one send)"));
    }
    if (received_fds > kMaxFrameFds) {
      return absl::InvalidArgumentError(
          Cat("more than ", kMaxFrameFds, " descriptors in one frame"));
    }
    got += static_cast<size_t>(r);
  }
  return absl::OkStatus();
}

absl::Status MessageChannel::Receive(google::protobuf::MessageLite* message,
                                     Clock::time_point deadline, std::vector<ScopedFd>* fds) {
  unsigned char header[8];
  if (fds != nullptr) fds->clear();
  size_t received_fds = 0;
  absl::Status s =
      ReadExactly(reinterpret_cast<char*>(header), sizeof(header), deadline, fds, received_fds);
  if (!s.ok()) return s;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8U) | header[i];
  if (n > kMaxFrameBytes) {
    return absl::InvalidArgumentError(Cat("a frame of ", n, " bytes is over the limit"));
  }
  std::string body(n, '\0');
  s = ReadExactly(body.data(), body.size(), deadline, fds, received_fds);
  if (!s.ok()) return s;
  if (!message->ParseFromString(body)) return absl::InvalidArgumentError("an unparsable frame");
  return absl::OkStatus();
}

}  // namespace kjudge::runner
