// libFuzzer target: the dashboard's query parameters (dashboard/query_params.h), text straight
// from a browser (issue 30 point 6). No crash; an accepted tag filter holds only keys and values
// the gRPC tag rules accept; UrlDecode never grows its input; Echo stays within kEchoBytes + 3;
// an accepted date is a whole minute.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "dashboard/query_params.h"
#include "proto/request_checks.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Require(kjudge::dashboard::UrlDecode(text).size() <= text.size());
  Require(kjudge::dashboard::Echo(text).size() <= kjudge::dashboard::kEchoBytes + 3);
  absl::StatusOr<std::map<std::string, std::string>> tags =
      kjudge::dashboard::ParseTags(kjudge::dashboard::UrlDecode(text), "tag");
  if (tags.ok()) {
    const kjudge::SubmitLimits limits;
    Require(tags->size() <= limits.max_tags);
    for (const auto& [key, value] : *tags) {
      Require(!key.empty() && key.size() <= limits.max_tag_key_bytes);
      Require(value.size() <= limits.max_tag_value_bytes);
      Require(!kjudge::FirstInvalidUtf8(value).has_value());
    }
  } else {
    Require(tags.status().message().size() < 2 * kjudge::dashboard::kEchoBytes + 400);
  }
  const std::optional<int64_t> when = kjudge::dashboard::ParseWhen(text);
  if (when.has_value()) Require(*when % 60000 == 0);
  return 0;
}
