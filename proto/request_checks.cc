#include "proto/request_checks.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace kjudge {
namespace {

// A quoted excerpt for messages: at most 32 bytes, control characters and non-ASCII shown as
// '?', so an abusive value can neither flood a message nor forge a log line.
std::string Excerpt(std::string_view text) {
  std::string out(text.substr(0, 32));
  std::replace_if(out.begin(), out.end(), [](char c) { return c < 0x20 || c == 0x7f || (c & 0x80) != 0; }, '?');
  return absl::StrCat("'", out, text.size() > 32 ? "...'" : "'");
}

// Length of the UTF-8 sequence led by `lead`, or 0 when `lead` cannot start one.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

bool ValidSequence(std::string_view text, size_t at, size_t length) {
  if (at + length > text.size()) return false;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[at + i]); };
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return false;
  }
  // Overlong forms, UTF-16 surrogates and code points above U+10FFFF.
  if (length == 3 && byte(0) == 0xE0 && byte(1) < 0xA0) return false;
  if (length == 3 && byte(0) == 0xED && byte(1) >= 0xA0) return false;
  if (length == 4 && byte(0) == 0xF0 && byte(1) < 0x90) return false;
  if (length == 4 && byte(0) == 0xF4 && byte(1) >= 0x90) return false;
  return true;
}

absl::Status CheckUtf8(std::string_view text, const std::string& field) {
  if (std::optional<size_t> bad = FirstInvalidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": invalid UTF-8 at byte offset ", *bad,
                                                   " (byte 0x", absl::Hex(static_cast<unsigned char>(text[*bad])),
                                                   "); send UTF-8 text"));
  }
  return absl::OkStatus();
}

std::optional<size_t> FirstControl(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) return i;
  }
  return std::nullopt;
}

absl::Status CheckLine(std::string_view text, size_t max_bytes, const std::string& field) {
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", text.size(), " bytes; the limit is ", max_bytes));
  }
  if (absl::Status s = CheckUtf8(text, field); !s.ok()) return s;
  if (std::optional<size_t> bad = FirstControl(text)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": control character (0x",
                                                   absl::Hex(static_cast<unsigned char>(text[*bad])),
                                                   ") at byte offset ", *bad,
                                                   "; only printable characters are allowed"));
  }
  return absl::OkStatus();
}

// Source text: control bytes other than tab, newline and CR are refused. NVRTC stops at a NUL
// (it compiles the text before it while the server stores and shows the whole file), and other
// control bytes only hide text from a reader; no CUDA source needs them.
absl::Status CheckSourceText(std::string_view text, const std::string& field) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": control byte 0x", absl::Hex(c, absl::kZeroPad2),
                                                     " at byte offset ", i,
                                                     "; only tab, newline and carriage return are allowed"));
    }
  }
  return absl::OkStatus();
}

// A baselines-only job judges no candidate: nothing of one may be sent with it.
absl::Status CheckBaselinesOnly(const v1::SubmitRequest& request) {
  if (!request.source().empty()) {
    return absl::InvalidArgumentError(
        "source: must be empty with baselines_only (a baselines-only job judges no kernel)");
  }
  if (!request.launch_plan().empty()) {
    return absl::InvalidArgumentError(
        "launch_plan: must be empty with baselines_only (a baselines-only job judges no kernel)");
  }
  if (request.compile_only()) {
    return absl::InvalidArgumentError(
        "compile_only: cannot be combined with baselines_only (baselines are measured on a GPU)");
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t length = SequenceLength(static_cast<unsigned char>(text[at]));
    if (length == 0 || !ValidSequence(text, at, length)) return at;
    at += length;
  }
  return std::nullopt;
}

absl::Status CheckTagKey(std::string_view key, const SubmitLimits& limits, const std::string& field) {
  if (key.empty() || key.size() > limits.max_tag_key_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": tag key ", Excerpt(key), " is ", key.size(),
                                                   " bytes; keys are 1 to ", limits.max_tag_key_bytes, " bytes"));
  }
  const auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '-';
  };
  const auto bad = std::find_if_not(key.begin(), key.end(), allowed);
  if (bad != key.end()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": tag key ", Excerpt(key), " has a character outside [A-Za-z0-9_.:-] at byte offset ",
                                                   bad - key.begin()));
  }
  return absl::OkStatus();
}

absl::Status CheckTags(const google::protobuf::Map<std::string, std::string>& tags, const SubmitLimits& limits,
                       const std::string& field) {
  if (tags.size() > limits.max_tags) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", tags.size(), " tags; the limit is ", limits.max_tags));
  }
  for (const auto& [key, value] : tags) {
    if (absl::Status s = CheckTagKey(key, limits, field); !s.ok()) return s;
    if (absl::Status s = CheckLine(value, limits.max_tag_value_bytes, absl::StrCat(field, "[", key, "]")); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSubmitRequest(const v1::SubmitRequest& request, const SubmitLimits& limits) {
  if (request.problem().empty()) {
    return absl::InvalidArgumentError("problem: empty; name a problem (`kjudge problems` lists them)");
  }
  if (absl::Status s = CheckLine(request.problem(), limits.max_problem_bytes, "problem"); !s.ok()) return s;
  if (request.baselines_only()) {
    if (absl::Status s = CheckBaselinesOnly(request); !s.ok()) return s;
  } else if (request.source().empty()) {
    return absl::InvalidArgumentError("source: empty; send CUDA device code");
  }
  if (request.source().size() > limits.max_source_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("source: ", request.source().size(), " bytes; the limit is ",
                                                   limits.max_source_bytes));
  }
  if (absl::Status s = CheckUtf8(request.source(), "source"); !s.ok()) return s;
  if (absl::Status s = CheckSourceText(request.source(), "source"); !s.ok()) return s;
  if (absl::Status s = CheckUtf8(request.launch_plan(), "launch_plan"); !s.ok()) return s;
  if (absl::Status s = CheckLine(request.filename(), limits.max_filename_bytes, "filename"); !s.ok()) return s;
  if (absl::Status s = CheckLine(request.idempotency_key(), limits.max_idempotency_key_bytes, "idempotency_key");
      !s.ok()) {
    return s;
  }
  return CheckTags(request.tags(), limits, "tags");
}

}  // namespace kjudge
