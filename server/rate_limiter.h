// RateLimiter: a token bucket per API key for submissions.
//
// Contract: Admit takes one token from the caller's bucket (refilled at `rate_per_s`, holding
// at most `burst`) and returns 0, or the milliseconds until a token will be there when the
// bucket is empty. Thread-safe. A rate of 0 disables limiting.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace kjudge::server {

class RateLimiter {
 public:
  RateLimiter(double rate_per_s, double burst) : rate_(rate_per_s), burst_(burst) {}

  int64_t Admit(const std::string& key, std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  double rate() const { return rate_; }

 private:
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point last;
  };
  double rate_;
  double burst_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace kjudge::server
