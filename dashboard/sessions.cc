#include "dashboard/sessions.h"

#include <algorithm>

#include "dashboard/web_security.h"

namespace kjudge::dashboard {

std::string SessionStore::Create(const std::string& key_secret, int64_t now_ms) {
  std::string token = RandomHex(32);
  std::lock_guard<std::mutex> lock(mutex_);
  // Expired sessions go first; a full store then drops the session closest to its expiry, so
  // memory stays bounded whatever sign-ins arrive.
  std::erase_if(sessions_, [now_ms](const auto& entry) { return entry.second.expires_unix_ms <= now_ms; });
  if (sessions_.size() >= max_sessions_ && !sessions_.empty()) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](const auto& a, const auto& b) {
      return a.second.expires_unix_ms < b.second.expires_unix_ms;
    });
    sessions_.erase(oldest);
  }
  sessions_[token] = Session{key_secret, RandomHex(16), now_ms + lifetime_ms_};
  return token;
}

std::optional<Session> SessionStore::Find(const std::string& token, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sessions_.find(token);
  if (it == sessions_.end()) return std::nullopt;
  if (it->second.expires_unix_ms <= now_ms) {
    sessions_.erase(it);
    return std::nullopt;
  }
  return it->second;
}

void SessionStore::Revoke(const std::string& token) {
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.erase(token);
}

}  // namespace kjudge::dashboard
