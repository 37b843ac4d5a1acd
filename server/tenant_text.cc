#include "server/tenant_text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace kjudge::server {
namespace {

constexpr std::string_view kWorkerPrefix = "w-";
constexpr size_t kWorkerHex = 16;  // worker_registry.cc: "w-%016x"
constexpr std::string_view kKeyPrefix = "kj_";
constexpr size_t kKeyHex = 8;  // api_keys.cc: "kj_" + 4 random bytes as hex

bool IsWordChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Whether an id (`prefix` + `hex` lowercase hex digits, not part of a longer word) starts at `at`.
bool IdAt(std::string_view text, size_t at, std::string_view prefix, size_t hex) {
  if (at > 0 && IsWordChar(text[at - 1])) return false;
  if (text.size() - at < prefix.size() + hex || text.substr(at, prefix.size()) != prefix) return false;
  for (size_t i = 0; i < hex; ++i) {
    const char c = text[at + prefix.size() + i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  const size_t end = at + prefix.size() + hex;
  return end == text.size() || !IsWordChar(text[end]);
}

}  // namespace

std::string RedactForTenant(std::string_view text, std::string_view own_key_id) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (IdAt(text, i, kWorkerPrefix, kWorkerHex)) {
      // "worker w-..." reads "the worker"; a bare id "a worker".
      if (absl::EndsWith(out, "worker ") || absl::EndsWith(out, "Worker ")) {
        const bool capital = out[out.size() - 7] == 'W';
        out.resize(out.size() - 7);  // "worker "
        out += capital ? "The worker" : "the worker";
      } else {
        out += "a worker";
      }
      i += kWorkerPrefix.size() + kWorkerHex;
      continue;
    }
    if (IdAt(text, i, kKeyPrefix, kKeyHex)) {
      const std::string_view id = text.substr(i, kKeyPrefix.size() + kKeyHex);
      out += id == own_key_id ? id : std::string_view("a key");
      i += id.size();
      continue;
    }
    out += text[i++];
  }
  return out;
}

void RedactJobForTenant(v1::Job* job, std::string_view own_key_id) {
  job->clear_worker();
  if (job->has_result() && !job->result().message().empty()) {
    job->mutable_result()->set_message(RedactForTenant(job->result().message(), own_key_id));
  }
}

}  // namespace kjudge::server
