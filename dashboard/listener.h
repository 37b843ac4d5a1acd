// Listener: the dashboard's HTTP(S) server, hardened against clients that connect and then
// hold a connection without finishing a request (slow-loris, silent sockets).
//
// Contract: Bind binds host:port with a listen backlog of `backlog` and serves requests on
// `threads` threads (cpp-httplib's default is 8 threads and a backlog of 5, which 8 trickling
// connections fill). On plain HTTP every request - request line, headers and body - must
// arrive within `request_deadline` of the server starting to wait for it, and each read within
// `read_timeout`; a connection idle between requests is closed after `keep_alive_idle`. So one
// connection holds a thread for at most keep_alive_idle + request_deadline, whatever it sends.
// Under TLS (cpp-httplib's SSLServer does its own reads) only the per-read timeout, idle timeout,
// thread count and backlog apply.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace kjudge::dashboard {

struct ListenerLimits {
  size_t threads = 256;  // mostly blocked in poll(): cheap; a thread per held connection
  int backlog = 1024;
  std::chrono::milliseconds read_timeout{5000};
  std::chrono::milliseconds request_deadline{10000};
  std::chrono::milliseconds keep_alive_idle{5000};
  size_t max_body_bytes = 64 * 1024;  // the dashboard only takes small forms
};

// A server ready for routes, not yet bound. `tls_cert`/`tls_key` empty: plain HTTP.
absl::StatusOr<std::unique_ptr<httplib::Server>> MakeServer(const ListenerLimits& limits, const std::string& tls_cert,
                                                             const std::string& tls_key);
// Binds `server` (from MakeServer) to host:port with the limits' backlog.
absl::Status Bind(httplib::Server& server, const std::string& host, int port, const ListenerLimits& limits);

}  // namespace kjudge::dashboard
