#include "worker/gpu/message_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

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
  if (fds.size() > kMaxFds) return absl::InvalidArgumentError("too many descriptors in a frame");
  std::string body;
  if (!message.SerializeToString(&body)) return absl::InternalError("serializing a message");
  unsigned char header[8];
  uint64_t n = body.size();
  for (unsigned char& b : header) {
    b = static_cast<unsigned char>(n & 0xFFU);
    n >>= 8U;
  }
  const ssize_t sent = process::SendWithDescriptors(socket_.get(), header, sizeof(header), fds);
  if (sent < 0) return Errno("sending a frame header");
  // A stream socket may take part of the header: the rest goes as plain bytes.
  std::string rest(reinterpret_cast<const char*>(header) + sent, sizeof(header) - sent);
  rest += body;
  size_t done = 0;
  while (done < rest.size()) {
    const ssize_t w = send(socket_.get(), rest.data() + done, rest.size() - done, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Errno("sending a frame");
    }
    done += static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

absl::Status MessageChannel::ReadExactly(char* data, size_t n, Clock::time_point deadline,
                                         std::vector<ScopedFd>* fds) {
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
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t r = recvmsg(socket_.get(), &msg, MSG_CMSG_CLOEXEC);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Errno("receiving");
    }
    if (r == 0) return absl::UnavailableError("the peer closed the channel");
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        ScopedFd owned(fd);
        if (fds != nullptr) fds->push_back(std::move(owned));
      }
    }
    got += static_cast<size_t>(r);
  }
  return absl::OkStatus();
}

absl::Status MessageChannel::Receive(google::protobuf::MessageLite* message,
                                     Clock::time_point deadline, std::vector<ScopedFd>* fds) {
  unsigned char header[8];
  if (fds != nullptr) fds->clear();
  absl::Status s = ReadExactly(reinterpret_cast<char*>(header), sizeof(header), deadline, fds);
  if (!s.ok()) return s;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8U) | header[i];
  if (n > kMaxFrameBytes) {
    return absl::InvalidArgumentError(Cat("a frame of ", n, " bytes is over the limit"));
  }
  std::string body(n, '\0');
  s = ReadExactly(body.data(), body.size(), deadline, fds);
  if (!s.ok()) return s;
  if (!message->ParseFromString(body)) return absl::InvalidArgumentError("an unparsable frame");
  return absl::OkStatus();
}

}  // namespace kjudge::runner
