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
//   - every other connection goes to gRPC (grpc::AddInsecureChannelFromFd), where the server's
//     channel args (idle and age limits, stream caps, keepalive) apply as for its own listener.
// Connections that never send anything are closed by the idle limit (--max-connection-idle-s).
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
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

  // Starts the accept thread, which hands connections to `server` (started, plaintext) until
  // Stop. `descriptor_limit` is RLIMIT_NOFILE's soft limit; the reserve is derived from it.
  void Start(grpc::Server* server, int64_t descriptor_limit);
  // Stops accepting, joins the thread and closes the listening sockets. Connections already
  // handed to gRPC are gRPC's. Idempotent; the destructor calls it.
  void Stop();

  int port() const { return port_; }
  // Connections closed at accept because descriptors ran short (for the log and tests).
  int64_t shed() const { return shed_.load(); }

 private:
  TcpListener() = default;
  void Loop();
  // Accepts until the queue is empty (false) or accept4 failed for lack of resources (true).
  bool AcceptAll(int listen_fd);
  void Shed(int fd);

  std::vector<int> listen_fds_;
  int wake_fd_ = -1;  // eventfd: Stop writes it to end poll()
  int port_ = 0;
  int shed_from_ = 0;  // an accepted descriptor numbered at least this is closed at once
  grpc::Server* server_ = nullptr;
  std::atomic<int64_t> shed_{0};
  int64_t last_warning_ms_ = 0;
  std::thread thread_;
};

}  // namespace kjudge::server
