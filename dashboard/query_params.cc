#include "dashboard/query_params.h"

#include <utility>

#include <google/protobuf/map.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "proto/request_checks.h"

namespace kjudge::dashboard {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string UrlDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 && HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string Echo(const std::string& text) {
  return text.size() <= kEchoBytes ? text : text.substr(0, kEchoBytes) + "...";
}

absl::StatusOr<std::map<std::string, std::string>> ParseTags(const std::string& text, const std::string& field) {
  std::map<std::string, std::string> tags;
  google::protobuf::Map<std::string, std::string> checked;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.first.empty() || part.find('=') == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(field, "='", Echo(text), "' is not KEY=VALUE[,KEY=VALUE] (e.g. model=my-model)"));
    }
    tags[kv.first] = kv.second;
    checked[kv.first] = kv.second;
  }
  if (absl::Status s = CheckTags(checked, SubmitLimits{}, field); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(s.message(), " (tag keys are 1 to 64 of A-Z a-z 0-9 _ . : -; "
                                                   "values are up to 256 bytes of UTF-8 text without control characters)"));
  }
  return tags;
}

namespace {
// 10000-01-01T00:00Z: the first instant a four-digit year cannot write.
constexpr absl::Time kYear10000 = absl::FromUnixSeconds(253402300800);
}  // namespace

std::optional<int64_t> ParseWhen(const std::string& text) {
  if (text.empty()) return 0;
  absl::Time t;
  std::string err;
  for (const char* format : {"%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    // absl also accepts "infinite-future"/"infinite-past" with any format, and years past 9999.
    if (absl::ParseTime(format, text, absl::UTCTimeZone(), &t, &err)) {
      if (t < absl::UnixEpoch() || t >= kYear10000) return std::nullopt;
      return absl::ToUnixMillis(t);
    }
  }
  return std::nullopt;
}

}  // namespace kjudge::dashboard
