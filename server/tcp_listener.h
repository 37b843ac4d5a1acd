// TcpListener: kjudge-server's own accept loop for plaintext gRPC.
//
// Why not gRPC's listener: in gRPC 1.51 (Debian 12) one accept4() failure with EMFILE makes the
// listener stop for good (src/core/lib/iomgr/tcp_server_posix.cc, on_read: "goto error" without
// re-arming the read notification), so idle connections that exhaust the descriptors lock every
// client and worker out until the server restarts. This loop accepts the connections itself:
//   - it binds without SO_REUSEPORT, so a second server on a port in use fails at Bind;
//   - on EMFILE/ENFILE it waits a little and tries again instead of giving up;
//   - when the accepted descriptor's number shows that fewer than `reserve` descriptors are left
//     (Linux hands out the lowest free number), it closes the new connection at once, keeping
//     the reserve for SQLite, gRPC itself and the calls in flight;
//   - a new connection first waits in this loop's own poll set ("pending") until its first bytes
//     arrive (seen with MSG_PEEK, so gRPC still reads them: the HTTP/2 preface); only then does
//     it go to gRPC (grpc::AddInsecureChannelFromFd), where the server's channel args (idle and
//     age limits, stream caps, keepalive) apply as for its own listener. A pending connection
//     that stays silent past `first_bytes_timeout_ms` is closed, so silent connections cost a
//     descriptor for seconds, not for gRPC's idle limit;
//   - when descriptors run short, the OLDEST pending connection is closed to make room for the
//     new one (a client that is talking gets through; a flood of silent sockets pushes out its
//     own oldest members); only when nothing is pending is the new connection closed;
//   - one address may hold at most `max_pending_per_address` pending connections; beyond that
//     its new connections are closed at accept.
// What this does not cover: a peer that sends bytes and then stays silent goes to gRPC and holds
// its descriptor until the idle limit (--max-connection-idle-s). TLS is served by gRPC's own
// listener (gRPC 1.51 cannot take an accepted descriptor for TLS); see serve.cc.
#pragma once

#include <grpcpp/grpcpp.h>
#include <poll.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <list>
#include <map>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace kjudge::server {

// The one message for a port that another process holds (both listeners print it).
std::string PortInUseMessage(const std::string& listen);

class TcpListener {
 public:
  // Resolves HOST:PORT ("127.0.0.1:50051", "0.0.0.0:50051", "[::]:50051", "localhost:50051")
  // and listens on every address it names. Errors: InvalidArgument for a malformed address,
  // FailedPrecondition with PortInUseMessage when the port is taken, Unavailable otherwise.
  static absl::StatusOr<std::unique_ptr<TcpListener>> Bind(const std::string& listen);
  ~TcpListener();
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;

  struct Limits {
    int64_t descriptor_limit = 1024;    // RLIMIT_NOFILE's soft limit; the reserve is derived from it
    int first_bytes_timeout_ms = 10000;  // a pending connection silent this long is closed
    int max_pending_per_address = 64;   // pending connections one peer address may hold
  };
  // Starts the accept thread, which hands connections to `server` (started, plaintext) until
  // Stop.
  void Start(grpc::Server* server, const Limits& limits);
  // Stops accepting, joins the thread and closes the listening sockets. Connections already
  // handed to gRPC are gRPC's. Idempotent; the destructor calls it.
  void Stop();

  int port() const { return port_; }
  // Connections closed because descriptors ran short (new ones, or the oldest pending ones).
  int64_t shed() const { return shed_.load(); }

 private:
  // An accepted connection that has sent nothing yet.
  struct Pending {
    int fd;
    int64_t deadline_ms;  // steady clock
    std::string address;  // the peer's address bytes (no port): the per-address cap's key
  };
  TcpListener() = default;
  void Loop();
  // Accepts until the queue is empty (false) or accept4 failed for lack of resources with
  // nothing pending left to close (true).
  bool AcceptAll(int listen_fd);
  // Hands over pending connections that have sent bytes, closes those that hung up or stayed
  // silent past their deadline. `ready` holds poll()'s answer for each pending fd, in order.
  void ServicePending(const std::vector<pollfd>& ready, int64_t now_ms);
  void ClosePending(std::list<Pending>::iterator it);
  // Closes the oldest pending connection to free a descriptor; false when none is pending.
  bool ShedOldestPending();
  void Shed(int fd);
  void Warn(const std::string& message);

  std::vector<int> listen_fds_;
  int wake_fd_ = -1;  // eventfd: Stop writes it to end poll()
  int port_ = 0;
  int shed_from_ = 0;  // an accepted descriptor numbered at least this means descriptors are short
  Limits limits_;
  std::list<Pending> pending_;  // oldest first (deadlines ascend in this order)
  std::map<std::string, int> pending_per_address_;
  int64_t silent_closed_ = 0;  // pending connections closed at their deadline
  int64_t capped_ = 0;         // connections closed for the per-address cap
  grpc::Server* server_ = nullptr;
  std::atomic<int64_t> shed_{0};
  int64_t last_warning_ms_ = 0;
  std::thread thread_;
};

}  // namespace kjudge::server
