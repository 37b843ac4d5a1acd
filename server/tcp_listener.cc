#include "server/tcp_listener.h"

#include <arpa/inet.h>
#include <grpcpp/server_posix.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/log.h"

namespace kjudge::server {
namespace {

constexpr int kBacklog = 4096;           // the kernel caps it at net.core.somaxconn
constexpr int kRetryAfterEmfileMs = 100;  // how long to wait before accepting again without descriptors
constexpr int64_t kWarnEveryMs = 10000;   // at most one shedding warning per 10 s

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct HostPort {
  std::string host;  // "" = every local address
  std::string port;
};

absl::StatusOr<HostPort> SplitHostPort(const std::string& listen) {
  const auto malformed = [&] {
    return absl::InvalidArgumentError("--listen wants HOST:PORT (e.g. 127.0.0.1:50051 or [::]:50051), got '" +
                                      listen + "'");
  };
  HostPort out;
  if (!listen.empty() && listen[0] == '[') {
    const size_t close = listen.find("]:");
    if (close == std::string::npos) return malformed();
    out.host = listen.substr(1, close - 1);
    out.port = listen.substr(close + 2);
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos || listen.find(':') != colon) return malformed();
    out.host = listen.substr(0, colon);
    out.port = listen.substr(colon + 1);
  }
  if (out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) return malformed();
  return out;
}

int BoundPort(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
}

std::string PeerName(const sockaddr_storage& peer) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (peer.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(peer);
    inet_ntop(AF_INET, &v4.sin_addr, host, sizeof(host));
    port = ntohs(v4.sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  const auto& v6 = reinterpret_cast<const sockaddr_in6&>(peer);
  inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof(host));
  port = ntohs(v6.sin6_port);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

// One listening socket; -errno on failure. SO_REUSEADDR (a restart may bind while old
// connections sit in TIME_WAIT) but never SO_REUSEPORT (two servers would split the clients).
int ListenOn(const addrinfo& address, bool v6_only) {
  const int fd = socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, address.ai_protocol);
  if (fd < 0) return -errno;
  const int one = 1;
  const int v6_only_value = v6_only ? 1 : 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (address.ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6_only_value, sizeof(v6_only_value));
  if (bind(fd, address.ai_addr, address.ai_addrlen) != 0 || listen(fd, kBacklog) != 0) {
    const int error = errno;
    close(fd);
    return -error;
  }
  return fd;
}

}  // namespace

std::string PortInUseMessage(const std::string& listen) {
  return "port " + listen +
         " is already in use (another kjudge-server?): stop it, or choose another address with --listen HOST:PORT";
}

absl::StatusOr<std::unique_ptr<TcpListener>> TcpListener::Bind(const std::string& listen) {
  absl::StatusOr<HostPort> host_port = SplitHostPort(listen);
  if (!host_port.ok()) return host_port.status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int resolved = getaddrinfo(host_port->host.empty() ? nullptr : host_port->host.c_str(),
                                   host_port->port.c_str(), &hints, &found);
  if (resolved != 0) {
    return absl::InvalidArgumentError("cannot resolve the --listen host '" + host_port->host +
                                      "': " + gai_strerror(resolved));
  }
  bool has_v4 = false;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) has_v4 |= a->ai_family == AF_INET;
  std::unique_ptr<TcpListener> listener(new TcpListener());
  std::string last_error;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    // With an IPv4 address in the list too, the IPv6 socket must not claim the IPv4 port.
    const int fd = ListenOn(*a, has_v4);
    if (fd == -EADDRINUSE) {
      freeaddrinfo(found);
      return absl::FailedPreconditionError(PortInUseMessage(listen));
    }
    if (fd < 0) {
      last_error = std::strerror(-fd);
      continue;  // e.g. ::1 on a host without IPv6: the other addresses still serve
    }
    listener->listen_fds_.push_back(fd);
  }
  freeaddrinfo(found);
  if (listener->listen_fds_.empty()) {
    return absl::UnavailableError("cannot listen on " + listen + ": " + last_error);
  }
  listener->port_ = BoundPort(listener->listen_fds_.front());
  listener->wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (listener->wake_fd_ < 0) return absl::UnavailableError(std::string("eventfd: ") + std::strerror(errno));
  return listener;
}

TcpListener::~TcpListener() {
  Stop();
  for (const int fd : listen_fds_) close(fd);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void TcpListener::Start(grpc::Server* server, const Limits& limits) {
  server_ = server;
  limits_ = limits;
  // Keep 1/16 of the descriptors (at least 32) for everything that is not a new connection.
  const int64_t reserve = std::max<int64_t>(32, limits.descriptor_limit / 16);
  shed_from_ = static_cast<int>(std::min<int64_t>(limits.descriptor_limit - reserve, 1 << 30));
  thread_ = std::thread([this] { Loop(); });
}

void TcpListener::Stop() {
  if (!thread_.joinable()) return;
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
  while (!pending_.empty()) ClosePending(pending_.begin());
}

void TcpListener::Loop() {
  std::vector<pollfd> polled;
  const size_t fixed = listen_fds_.size() + 1;  // the listening sockets, then the wake fd
  for (;;) {
    polled.clear();
    for (const int fd : listen_fds_) polled.push_back(pollfd{fd, POLLIN, 0});
    polled.push_back(pollfd{wake_fd_, POLLIN, 0});
    for (const Pending& p : pending_) polled.push_back(pollfd{p.fd, POLLIN, 0});
    // Wake for the oldest pending connection's deadline (the list is in deadline order).
    const int timeout =
        pending_.empty() ? -1 : static_cast<int>(std::clamp<int64_t>(pending_.front().deadline_ms - NowMs(), 0, 60000));
    if (poll(polled.data(), polled.size(), timeout) < 0 && errno != EINTR) {
      spdlog::error("accept loop: poll failed: {}", std::strerror(errno));
    }
    if (polled[fixed - 1].revents != 0) return;
    // Pending connections first: handing over or closing them frees room for the new ones.
    ServicePending(std::vector<pollfd>(polled.begin() + static_cast<std::ptrdiff_t>(fixed), polled.end()), NowMs());
    bool starved = false;
    for (size_t i = 0; i + 1 < fixed; ++i) {
      if (polled[i].revents != 0) starved |= AcceptAll(polled[i].fd);
    }
    if (starved) {
      // The pending connections stay queued in the kernel; wait (or stop) before trying again.
      pollfd wake{wake_fd_, POLLIN, 0};
      if (poll(&wake, 1, kRetryAfterEmfileMs) > 0) return;
    }
  }
}

void TcpListener::ServicePending(const std::vector<pollfd>& ready, int64_t now_ms) {
  // `ready` was built from pending_ in order; connections accepted since are not in it.
  auto it = pending_.begin();
  for (const pollfd& p : ready) {
    while (it != pending_.end() && it->fd != p.fd) ++it;  // one may have been shed meanwhile
    if (it == pending_.end()) return;
    const auto current = it++;
    if (p.revents == 0) {
      if (current->deadline_ms <= now_ms) {
        ++silent_closed_;
        ClosePending(current);
      }
      continue;
    }
    char byte = 0;
    const ssize_t peeked = recv(current->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked > 0) {
      // The first bytes are here (the HTTP/2 preface for a gRPC client): gRPC's from now on.
      const int fd = current->fd;
      if (--pending_per_address_[current->address] == 0) pending_per_address_.erase(current->address);
      pending_.erase(current);
      grpc::AddInsecureChannelFromFd(server_, fd);
    } else if (peeked == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      ClosePending(current);  // hung up before saying anything
    }
  }
}

void TcpListener::ClosePending(std::list<Pending>::iterator it) {
  close(it->fd);
  if (--pending_per_address_[it->address] == 0) pending_per_address_.erase(it->address);
  pending_.erase(it);
}

bool TcpListener::ShedOldestPending() {
  if (pending_.empty()) return false;
  ClosePending(pending_.begin());
  const int64_t total = shed_.fetch_add(1) + 1;
  Warn("descriptors are short: closing the oldest connections that have not sent anything yet (" +
       std::to_string(total) + " connections shed so far, " + std::to_string(silent_closed_) +
       " closed silent after " + std::to_string(limits_.first_bytes_timeout_ms) + " ms, " +
       std::to_string(capped_) + " over the per-address cap)");
  return true;
}

bool TcpListener::AcceptAll(int listen_fd) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof(peer);
    const int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &peer_length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      const int error = errno;
      // Out of descriptors: a silent connection gives its place to the one waiting in the queue.
      if ((error == EMFILE || error == ENFILE) && ShedOldestPending()) continue;
      Warn(std::string("accept failed: ") + std::strerror(error) + "; retrying every " +
           std::to_string(kRetryAfterEmfileMs) + " ms (raise LimitNOFILE / ulimit -n if this persists)");
      return true;
    }
    if (fd >= shed_from_ && !ShedOldestPending()) {
      Shed(fd);  // every descriptor is held by connections gRPC serves: the new one goes
      continue;
    }
    // The per-address cap's key: the address bytes without the port.
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&peer);
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&peer);
    std::string address = peer.ss_family == AF_INET
                              ? std::string(reinterpret_cast<const char*>(&v4->sin_addr), sizeof(v4->sin_addr))
                              : std::string(reinterpret_cast<const char*>(&v6->sin6_addr), sizeof(v6->sin6_addr));
    int& held = pending_per_address_[address];
    if (held >= limits_.max_pending_per_address) {
      close(fd);
      ++capped_;
      Warn("connections from " + PeerName(peer) + " closed at accept: that address already has " +
           std::to_string(held) + " connections that have sent nothing (--max-pending-per-address)");
      continue;
    }
    ++held;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    // gRPC names such a connection "fd:N" (what ServerContext::peer() returns): log the address
    // it stands for, so a peer in other log lines can be traced back.
    if (spdlog::should_log(spdlog::level::debug)) spdlog::debug("connection fd:{} from {}", fd, PeerName(peer));
    pending_.push_back(Pending{fd, NowMs() + limits_.first_bytes_timeout_ms, std::move(address)});
  }
}

void TcpListener::Shed(int fd) {
  close(fd);
  const int64_t total = shed_.fetch_add(1) + 1;
  Warn("descriptors are short (connection got descriptor " + std::to_string(fd) + ", the reserve starts at " +
       std::to_string(shed_from_) + ") and every connection has already spoken: closed new connections at once, " +
       std::to_string(total) + " so far; idle connections close after --max-connection-idle-s");
}

void TcpListener::Warn(const std::string& message) {
  const int64_t now = NowMs();
  if (now - last_warning_ms_ < kWarnEveryMs) return;
  last_warning_ms_ = now;
  spdlog::warn("{}", message);
}

}  // namespace kjudge::server
