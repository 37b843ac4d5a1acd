#include "server/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace kjudge::server {

int64_t RateLimiter::Admit(const std::string& key, std::chrono::steady_clock::time_point now) {
  if (rate_ <= 0) return 0;
  std::lock_guard lock(mutex_);
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{burst_, now});
  Bucket& bucket = it->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
  bucket.tokens = std::min(burst_, bucket.tokens + std::max(0.0, elapsed) * rate_);
  bucket.last = now;
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return 0;
  }
  return static_cast<int64_t>(std::ceil((1.0 - bucket.tokens) / rate_ * 1000.0));
}

}  // namespace kjudge::server
