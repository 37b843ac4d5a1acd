// Request checks: the one rule for what a well-formed SubmitRequest is, shared by the server
// (which refuses a malformed request with INVALID_ARGUMENT before storing anything) and the
// `kjudge` CLI (which checks before sending, so a person sees the same message without a
// round trip, and invalid UTF-8 never reaches protobuf's own, less helpful, parse error).
//
// Contract: every error is INVALID_ARGUMENT and names the field and, where it applies, the
// position (byte offset, tag key) and the limit; the first problem found is reported.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge {

struct SubmitLimits {
  size_t max_source_bytes = 1 << 20;
  size_t max_tags = 16;
  size_t max_tag_key_bytes = 64;
  size_t max_tag_value_bytes = 256;
  size_t max_filename_bytes = 255;
  size_t max_idempotency_key_bytes = 128;
  size_t max_problem_bytes = 128;
};

// The byte offset of the first byte that is not part of valid UTF-8, or nullopt.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

// The byte offset of the first code point that reorders or hides text without showing itself
// (C1 controls, Unicode line/paragraph separators U+2028/U+2029, bidi controls U+061C,
// U+200E/U+200F, U+202A-U+202E, U+2066-U+2069, zero-width and other invisible format characters,
// tag characters U+E0000-U+E007F), or nullopt. Stops (nullopt) at invalid UTF-8.
std::optional<size_t> FirstHiddenCharacter(std::string_view text);

// Tag keys: 1..max_tag_key_bytes of [A-Za-z0-9_.:-] (also what ListJobs/GetStats filters take).
absl::Status CheckTagKey(std::string_view key, const SubmitLimits& limits, const std::string& field);
// Tags: count, key charset and length, value length, UTF-8, no control characters and none of
// FirstHiddenCharacter's (the same rule holds for problem, filename and idempotency_key; the
// launch plan may hold newlines but none of FirstHiddenCharacter's either).
absl::Status CheckTags(const google::protobuf::Map<std::string, std::string>& tags, const SubmitLimits& limits,
                       const std::string& field);

// A source is required, unless baselines_only: then source and launch_plan must be empty and
// compile_only false.
absl::Status CheckSubmitRequest(const v1::SubmitRequest& request, const SubmitLimits& limits);

}  // namespace kjudge
