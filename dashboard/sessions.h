// Sessions: what a signed-in browser holds instead of its API key.
//
// Contract: Create draws a 256-bit token from the CSPRNG; the browser's cookie carries only
// that token. The key itself stays in this process's memory (never written, never sent back)
// so that every request can re-check it through the same key lookup the server uses: a revoked
// key ends its sessions at once. A session ends at its expiry, on Revoke (sign-out) or when the
// store is full and it is the one closest to expiry. Each session has its own CSRF token for
// the forms it posts. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kjudge::dashboard {

struct Session {
  std::string key_secret;  // re-checked on every request; never leaves the process
  std::string csrf;        // 128-bit token every POST of this session must carry
  int64_t expires_unix_ms = 0;
};

class SessionStore {
 public:
  SessionStore(int64_t lifetime_ms, size_t max_sessions) : lifetime_ms_(lifetime_ms), max_sessions_(max_sessions) {}

  // A new session for `key_secret`; returns its token.
  std::string Create(const std::string& key_secret, int64_t now_ms);
  // The live session behind `token` (nullopt: unknown, signed out or expired).
  std::optional<Session> Find(const std::string& token, int64_t now_ms);
  void Revoke(const std::string& token);
  int64_t lifetime_ms() const { return lifetime_ms_; }

 private:
  const int64_t lifetime_ms_;
  const size_t max_sessions_;
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
};

}  // namespace kjudge::dashboard
