#include "common/plan_block.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kjudge {
namespace {

constexpr std::string_view kMarker = "kjudge-plan";

struct BlockComment {
  size_t body_begin = 0;  // just past "/*"
  size_t body_end = 0;    // at "*/" (or end of source when unclosed)
  bool closed = false;
};

int LineAt(std::string_view source, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < source.size(); ++i) {
    if (source[i] == '\n') ++line;
  }
  return line;
}

size_t LineStart(std::string_view source, size_t offset) {
  const size_t nl = offset == 0 ? std::string_view::npos : source.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// "<line>:<column>" of a byte offset (columns count bytes, 1-based).
std::string PosText(std::string_view source, size_t offset) {
  return absl::StrCat(LineAt(source, offset), ":", offset - LineStart(source, offset) + 1);
}

size_t SkipQuoted(std::string_view s, size_t i) {
  const char quote = s[i++];
  while (i < s.size() && s[i] != quote && s[i] != '\n') {
    i += s[i] == '\\' ? 2 : 1;
  }
  return i + 1;
}

// Every /* */ comment outside string literals and // comments, in order.
std::vector<BlockComment> FindBlockComments(std::string_view s) {
  std::vector<BlockComment> comments;
  size_t i = 0;
  while (i < s.size()) {
    if (s.substr(i).starts_with("//")) {
      const size_t nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl + 1;
    } else if (s.substr(i).starts_with("/*")) {
      BlockComment c;
      c.body_begin = i + 2;
      const size_t close = s.find("*/", c.body_begin);
      c.closed = close != std::string_view::npos;
      c.body_end = c.closed ? close : s.size();
      comments.push_back(c);
      i = c.closed ? close + 2 : s.size();
    } else if (s[i] == '"' || s[i] == '\'') {
      i = SkipQuoted(s, i);
    } else {
      ++i;
    }
  }
  return comments;
}

// The offset just past the marker when the comment body starts with it, else npos.
size_t MarkerEnd(std::string_view source, const BlockComment& c) {
  size_t i = c.body_begin;
  while (i < c.body_end && absl::ascii_isspace(source[i])) ++i;
  if (!source.substr(i, c.body_end - i).starts_with(kMarker)) return std::string_view::npos;
  const size_t end = i + kMarker.size();
  if (end < c.body_end && !absl::ascii_isspace(source[end])) return std::string_view::npos;
  return end;
}

// The plan text of a marked block, positioned so that line:column counted from `first_line`
// are the file's: when the marker line has nothing after the marker, the plan starts on the
// next line; otherwise the marker and what precedes it on its line become spaces.
PlanBlock ExtractPlan(std::string_view source, size_t marker_end, size_t body_end) {
  size_t i = marker_end;
  while (i < body_end && (source[i] == ' ' || source[i] == '\t' || source[i] == '\r')) ++i;
  PlanBlock block;
  if (i < body_end && source[i] == '\n') {
    block.first_line = LineAt(source, i) + 1;
    block.text = std::string(source.substr(i + 1, body_end - i - 1));
    return block;
  }
  const size_t line_start = LineStart(source, marker_end);
  block.first_line = LineAt(source, marker_end);
  block.text = std::string(marker_end - line_start, ' ');
  block.text += source.substr(marker_end, body_end - marker_end);
  return block;
}

}  // namespace

absl::StatusOr<std::optional<PlanBlock>> FindPlanBlock(std::string_view source) {
  std::optional<PlanBlock> found;
  int found_line = 0;
  for (const BlockComment& c : FindBlockComments(source)) {
    const size_t marker_end = MarkerEnd(source, c);
    if (marker_end == std::string_view::npos) continue;
    const size_t open = c.body_begin - 2;
    const int line = LineAt(source, open);
    if (!c.closed) {
      return absl::InvalidArgumentError(absl::StrCat(
          PosText(source, open), ": the '/* kjudge-plan' block starting on line ", line,
          " is not closed; expected '*/' after the launch plan"));
    }
    if (found.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          PosText(source, open), ": a second '/* kjudge-plan' block (the first starts on line ", found_line,
          "); expected exactly one launch plan per file"));
    }
    found = ExtractPlan(source, marker_end, c.body_end);
    found_line = line;
  }
  return found;
}

}  // namespace kjudge
