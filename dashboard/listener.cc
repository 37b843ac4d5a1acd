#include "dashboard/listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kjudge::dashboard {
namespace {

using Clock = std::chrono::steady_clock;

int Millis(Clock::duration d) {
  return static_cast<int>(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(d).count()));
}

void AddressOf(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int rc = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                      : getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    port = ntohs(in6->sin6_port);
  }
  ip = text;
}

// A socket stream whose reads all stop at the current request's deadline, however slowly the
// peer trickles bytes (cpp-httplib's own stream restarts its timeout on every byte).
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int fd, const ListenerLimits& limits) : fd_(fd), limits_(limits) {}

  void StartRequest() { deadline_ = Clock::now() + limits_.request_deadline; }
  bool HasBuffered() const { return offset_ < buffer_size_; }

  bool is_readable() const override { return HasBuffered() || WaitFor(POLLIN, ReadWait()); }
  bool is_writable() const override { return WaitFor(POLLOUT, Millis(limits_.read_timeout)); }

  ssize_t read(char* ptr, size_t size) override {
    if (!HasBuffered()) {
      if (!WaitFor(POLLIN, ReadWait())) return -1;
      const ssize_t n = ::recv(fd_, buffer_, sizeof(buffer_), 0);
      if (n <= 0) return n < 0 ? -1 : 0;
      offset_ = 0;
      buffer_size_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, buffer_size_ - offset_);
    std::memcpy(ptr, buffer_ + offset_, n);
    offset_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    return ::send(fd_, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { AddressOf(fd_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { AddressOf(fd_, false, ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  // One read waits at most read_timeout, and never past the request's deadline.
  int ReadWait() const { return std::min(Millis(limits_.read_timeout), Millis(deadline_ - Clock::now())); }

  bool WaitFor(short events, int timeout_ms) const {
    if (timeout_ms <= 0) return false;
    pollfd p{fd_, events, 0};
    int rc = 0;
    do {
      rc = ::poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    return rc > 0 && (p.revents & (events | POLLHUP | POLLERR)) != 0;
  }

  int fd_;
  const ListenerLimits& limits_;
  Clock::time_point deadline_ = Clock::now();
  char buffer_[4096];
  size_t offset_ = 0, buffer_size_ = 0;
};

// Raises the listen backlog once bound (cpp-httplib listens with a fixed 5).
template <class Base>
class Backlogged : public Base {
 public:
  using Base::Base;
  absl::Status BindWithBacklog(const std::string& host, int port, int backlog) {
    if (!this->bind_to_port(host, port)) return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port, " (port in use?)"));
    if (::listen(this->svr_sock_, backlog) != 0) {
      return absl::InternalError(absl::StrCat("cannot set the listen backlog to ", backlog, ": ", std::strerror(errno)));
    }
    return absl::OkStatus();
  }
};

class DeadlineServer : public Backlogged<httplib::Server> {
 public:
  explicit DeadlineServer(const ListenerLimits& limits) : limits_(limits) {}

 private:
  // Replaces cpp-httplib's per-connection loop: the same keep-alive handling, over a stream
  // whose reads stop at each request's deadline.
  bool process_and_close_socket(socket_t sock) override {
    DeadlineStream stream(sock, limits_);
    bool ok = true;
    for (size_t served = 0; served < keep_alive_max_count_; ++served) {
      if (!stream.HasBuffered() && !WaitForRequest(sock)) break;
      stream.StartRequest();
      bool closed = false;
      ok = process_request(stream, served + 1 == keep_alive_max_count_, closed, nullptr);
      if (!ok || closed) break;
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  // Waits for the next request's first byte, giving up after keep_alive_idle or once the
  // server stops.
  bool WaitForRequest(int sock) const {
    const Clock::time_point until = Clock::now() + limits_.keep_alive_idle;
    while (svr_sock_ != INVALID_SOCKET) {
      const int left = Millis(until - Clock::now());
      if (left <= 0) return false;
      pollfd p{sock, POLLIN, 0};
      const int rc = ::poll(&p, 1, std::min(left, 100));
      if (rc > 0) return (p.revents & POLLIN) != 0;
      if (rc < 0 && errno != EINTR) return false;
    }
    return false;
  }

  const ListenerLimits limits_;
};

void Configure(httplib::Server& server, const ListenerLimits& limits) {
  const size_t threads = limits.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  const auto read_s = std::chrono::duration_cast<std::chrono::microseconds>(limits.read_timeout).count();
  server.set_read_timeout(read_s / 1000000, read_s % 1000000);
  server.set_write_timeout(read_s / 1000000, read_s % 1000000);
  server.set_keep_alive_timeout(std::max<time_t>(1, std::chrono::duration_cast<std::chrono::seconds>(limits.keep_alive_idle).count()));
  server.set_keep_alive_max_count(100);
  server.set_payload_max_length(limits.max_body_bytes);
  server.set_tcp_nodelay(true);  // else small pages wait ~40 ms on delayed ACKs
}

}  // namespace

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeServer(const ListenerLimits& limits, const std::string& tls_cert,
                                                             const std::string& tls_key) {
  std::unique_ptr<httplib::Server> server;
  if (tls_cert.empty()) {
    server = std::make_unique<DeadlineServer>(limits);
  } else {
    server = std::make_unique<Backlogged<httplib::SSLServer>>(tls_cert.c_str(), tls_key.c_str());
    if (!server->is_valid()) return absl::InvalidArgumentError("cannot load --tls-cert/--tls-key (PEM certificate and key expected)");
  }
  Configure(*server, limits);
  return server;
}

absl::Status Bind(httplib::Server& server, const std::string& host, int port, const ListenerLimits& limits) {
  if (auto* plain = dynamic_cast<DeadlineServer*>(&server)) return plain->BindWithBacklog(host, port, limits.backlog);
  if (auto* tls = dynamic_cast<Backlogged<httplib::SSLServer>*>(&server)) return tls->BindWithBacklog(host, port, limits.backlog);
  return absl::InvalidArgumentError("Bind takes a server from MakeServer");
}

}  // namespace kjudge::dashboard
