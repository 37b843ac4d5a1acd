// Query parameters of dashboard requests: text straight from a browser or a script, so hostile.
//
// Contract: pure functions, thread-safe, never throw; fuzzed by tests/fuzz/fuzz_dashboard_query.cc.
//   HexDigit: the value of a hex digit, -1 for any other character.
//   UrlDecode: '+' -> ' ', "%hh" -> that byte; anything else (a bare or short '%') unchanged.
//   Echo: at most kEchoBytes of a bad parameter (then "...") for an error message.
//   ParseTags: "model=a,run=b" -> {model: a, run: b}, checked by the rules gRPC applies to tags
//     (proto/request_checks.h CheckTags), so nothing else reaches a query; InvalidArgument
//     naming `field` and echoing at most kEchoBytes of the text otherwise.
//   ParseWhen: "2026-11-23", "2026-11-23 08:30" or "2026-11-23T08:30" (UTC) -> Unix ms; 0 for
//     ""; nullopt for anything else, including times before 1970 or from the year 10000 on
//     (absl::ParseTime also takes "infinite-future", found by the fuzzer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kjudge::dashboard {

inline constexpr size_t kEchoBytes = 200;

int HexDigit(char c);
std::string UrlDecode(absl::string_view text);
std::string Echo(const std::string& text);
absl::StatusOr<std::map<std::string, std::string>> ParseTags(const std::string& text, const std::string& field);
std::optional<int64_t> ParseWhen(const std::string& text);

}  // namespace kjudge::dashboard
