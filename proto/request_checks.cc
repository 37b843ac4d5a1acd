#include "proto/request_checks.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
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

// Code points that change how the text around them is shown, or hide text, without showing
// themselves: in a stored field another person reads (dashboard, CLI, logs) they can reorder
// what is seen ("Trojan Source" bidi overrides), break a line where a reader's tool sees none
// (U+2028/U+2029 end a line in JavaScript and some terminals), or make two strings look alike or
// smuggle invisible text (zero-width and tag characters). ZWNJ/ZWJ (U+200C/U+200D) stay allowed:
// scripts and emoji need them and they neither reorder nor hide text.
struct HiddenRange {
  char32_t first;
  char32_t last;
  const char* what;
};
constexpr HiddenRange kHidden[] = {
    {0x0080, 0x009F, "C1 control character"},
    {0x00AD, 0x00AD, "invisible soft hyphen"},
    {0x061C, 0x061C, "bidi control (ARABIC LETTER MARK)"},
    {0x115F, 0x1160, "invisible Hangul filler"},
    {0x180E, 0x180E, "invisible format character"},
    {0x200B, 0x200B, "zero-width space"},
    {0x200E, 0x200F, "bidi control (LRM/RLM)"},
    {0x2028, 0x2029, "Unicode line/paragraph separator"},
    {0x202A, 0x202E, "bidi control (embedding/override)"},
    {0x2060, 0x2064, "invisible format character"},
    {0x2066, 0x2069, "bidi control (isolate)"},
    {0x206A, 0x206F, "invisible format character"},
    {0x3164, 0x3164, "invisible Hangul filler"},
    {0xFEFF, 0xFEFF, "zero-width no-break space (BOM)"},
    {0xFFA0, 0xFFA0, "invisible Hangul filler"},
    {0xFFF9, 0xFFFB, "interlinear annotation character"},
    {0xE0000, 0xE007F, "invisible tag character"},
};

const HiddenRange* HiddenKind(char32_t code_point) {
  for (const HiddenRange& range : kHidden) {
    if (code_point >= range.first && code_point <= range.last) return &range;
  }
  return nullptr;
}

// The code point of the valid UTF-8 sequence of `length` bytes at `at`.
char32_t Decode(std::string_view text, size_t at, size_t length) {
  const auto byte = [&](size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(text[at + i])); };
  if (length == 1) return byte(0);
  char32_t code_point = byte(0) & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) code_point = (code_point << 6) | (byte(i) & 0x3F);
  return code_point;
}

// Refuses the characters of kHidden; `text` must be valid UTF-8 (checked before).
absl::Status CheckNoHidden(std::string_view text, const std::string& field) {
  if (std::optional<size_t> at = FirstHiddenCharacter(text)) {
    const size_t length = SequenceLength(static_cast<unsigned char>(text[*at]));
    const char32_t code_point = Decode(text, *at, length);
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", HiddenKind(code_point)->what, " U+",
        absl::AsciiStrToUpper(absl::StrCat(absl::Hex(static_cast<uint32_t>(code_point), absl::kZeroPad4))),
        " at byte offset ", *at,
        "; line/paragraph separators, bidi controls and invisible format characters are not allowed"));
  }
  return absl::OkStatus();
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
  return CheckNoHidden(text, field);
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

std::optional<size_t> FirstHiddenCharacter(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t length = SequenceLength(static_cast<unsigned char>(text[at]));
    if (length == 0 || !ValidSequence(text, at, length)) return std::nullopt;  // not UTF-8: CheckUtf8's case
    if (length > 1 && HiddenKind(Decode(text, at, length)) != nullptr) return at;
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
  if (absl::Status s = CheckNoHidden(request.launch_plan(), "launch_plan"); !s.ok()) return s;
  if (absl::Status s = CheckLine(request.filename(), limits.max_filename_bytes, "filename"); !s.ok()) return s;
  if (absl::Status s = CheckLine(request.idempotency_key(), limits.max_idempotency_key_bytes, "idempotency_key");
      !s.ok()) {
    return s;
  }
  return CheckTags(request.tags(), limits, "tags");
}

}  // namespace kjudge
