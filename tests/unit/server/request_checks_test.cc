// The one rule for a well-formed SubmitRequest (proto/request_checks.h), shared by server and CLI.
#include "proto/request_checks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kjudge {
namespace {

v1::SubmitRequest Good() {
  v1::SubmitRequest request;
  request.set_problem("level1/19_ReLU");
  request.set_source("__global__ void k() {}\n");
  request.set_filename("relu.cu");
  (*request.mutable_tags())["model"] = "gpt-x";
  return request;
}

std::string Message(const v1::SubmitRequest& request) {
  absl::Status status = CheckSubmitRequest(request, SubmitLimits{});
  EXPECT_TRUE(status.ok() || absl::IsInvalidArgument(status)) << status;
  return std::string(status.message());
}

TEST(RequestChecks, AcceptsAWellFormedRequest) {
  EXPECT_TRUE(CheckSubmitRequest(Good(), SubmitLimits{}).ok());
  v1::SubmitRequest unicode = Good();
  unicode.set_source("// caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n");
  (*unicode.mutable_tags())["note"] = "\xc3\xa9t\xc3\xa9";
  EXPECT_TRUE(CheckSubmitRequest(unicode, SubmitLimits{}).ok());
}

TEST(RequestChecks, ABaselinesOnlyRequestCarriesNothingOfACandidate) {
  v1::SubmitRequest request;
  request.set_problem("level1/19_ReLU");
  request.set_baselines_only(true);
  EXPECT_TRUE(CheckSubmitRequest(request, SubmitLimits{}).ok());
  v1::SubmitRequest with_source = request;
  with_source.set_source("__global__ void k() {}\n");
  EXPECT_TRUE(Message(with_source).starts_with("source: must be empty with baselines_only"));
  v1::SubmitRequest with_plan = request;
  with_plan.set_launch_plan("launch k grid(1) block(1) args()");
  EXPECT_TRUE(Message(with_plan).starts_with("launch_plan: must be empty with baselines_only"));
  v1::SubmitRequest compile_only = request;
  compile_only.set_compile_only(true);
  EXPECT_TRUE(Message(compile_only).starts_with("compile_only: cannot be combined with baselines_only"));
  v1::SubmitRequest no_source = Good();  // without baselines_only a source is required, as before
  no_source.clear_source();
  EXPECT_TRUE(Message(no_source).starts_with("source: empty"));
}

TEST(RequestChecks, FindsTheFirstInvalidUtf8Byte) {
  EXPECT_EQ(FirstInvalidUtf8("plain"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2U);
  EXPECT_EQ(FirstInvalidUtf8("\xc3"), 0U) << "truncated sequence";
  EXPECT_EQ(FirstInvalidUtf8("a\xc0\xaf"), 1U) << "overlong";
  EXPECT_EQ(FirstInvalidUtf8("\xed\xa0\x80"), 0U) << "UTF-16 surrogate";
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0U) << "above U+10FFFF";
  v1::SubmitRequest bad = Good();
  bad.set_source("int x;\n\xfe");
  EXPECT_EQ(Message(bad), "source: invalid UTF-8 at byte offset 7 (byte 0xfe); send UTF-8 text");
}

TEST(RequestChecks, BoundsTagsFilenameAndKeys) {
  v1::SubmitRequest request = Good();
  (*request.mutable_tags())["bad/key"] = "v";
  EXPECT_EQ(Message(request), "tags: tag key 'bad/key' has a character outside [A-Za-z0-9_.:-] at byte offset 3");
  request = Good();
  (*request.mutable_tags())[""] = "v";
  EXPECT_EQ(Message(request), "tags: tag key '' is 0 bytes; keys are 1 to 64 bytes");
  request = Good();
  request.set_filename("a\tb.cu");
  EXPECT_EQ(Message(request),
            "filename: control character (0x9) at byte offset 1; only printable characters are allowed");
  request = Good();
  request.set_idempotency_key(std::string(129, 'i'));
  EXPECT_EQ(Message(request), "idempotency_key: 129 bytes; the limit is 128");
  request = Good();
  request.clear_problem();
  EXPECT_EQ(Message(request), "problem: empty; name a problem (`kjudge problems` lists them)");
  request = Good();
  request.set_source(std::string((1 << 20) + 1, ' '));
  EXPECT_EQ(Message(request), "source: 1048577 bytes; the limit is 1048576");
}

// Issue 25: a tag value could hold U+2028 or U+202E, which reorder or break what another person
// reads on the dashboard, in the CLI or a log.
TEST(RequestChecks, RefusesLineSeparatorsBidiControlsAndInvisibleCharacters) {
  v1::SubmitRequest request = Good();
  (*request.mutable_tags())["note"] = "ab\xe2\x80\xae" "cd";  // U+202E RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(Message(request),
            "tags[note]: bidi control (embedding/override) U+202E at byte offset 2; line/paragraph separators, bidi "
            "controls and invisible format characters are not allowed");
  request = Good();
  (*request.mutable_tags())["note"] = "x\xe2\x80\xa8";  // U+2028 LINE SEPARATOR
  EXPECT_EQ(Message(request),
            "tags[note]: Unicode line/paragraph separator U+2028 at byte offset 1; line/paragraph separators, bidi "
            "controls and invisible format characters are not allowed");
  // Each refused range, at its ends, in a tag value; the offset is the sequence's first byte.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"\xc2\x80", "U+0080"},         {"\xc2\x85", "U+0085"},     {"\xc2\x9f", "U+009F"},
      {"\xc2\xad", "U+00AD"},         {"\xd8\x9c", "U+061C"},     {"\xe1\x85\x9f", "U+115F"},
      {"\xe1\xa0\x8e", "U+180E"},     {"\xe2\x80\x8b", "U+200B"}, {"\xe2\x80\x8e", "U+200E"},
      {"\xe2\x80\x8f", "U+200F"},     {"\xe2\x80\xa9", "U+2029"}, {"\xe2\x80\xaa", "U+202A"},
      {"\xe2\x81\xa0", "U+2060"},     {"\xe2\x81\xa6", "U+2066"}, {"\xe2\x81\xa9", "U+2069"},
      {"\xe2\x81\xaf", "U+206F"},     {"\xe3\x85\xa4", "U+3164"}, {"\xef\xbb\xbf", "U+FEFF"},
      {"\xef\xbe\xa0", "U+FFA0"},     {"\xef\xbf\xb9", "U+FFF9"}, {"\xf3\xa0\x80\x81", "U+E0001"},
      {"\xf3\xa0\x81\xbf", "U+E007F"}};
  for (const auto& [bytes, name] : refused) {
    request = Good();
    (*request.mutable_tags())["note"] = "\xc3\xa9t" + bytes + "e";
    const std::string message = Message(request);
    EXPECT_NE(message.find(" " + name + " at byte offset 3;"), std::string::npos) << name << ": " << message;
    EXPECT_EQ(FirstHiddenCharacter("\xc3\xa9t" + bytes), 3U) << name;
  }
  // Visible neighbours and what scripts and emoji need stay allowed: U+2027, U+202F, U+2065
  // (unassigned), ZWNJ in Persian, a ZWJ emoji sequence with a variation selector, CJK.
  const std::vector<std::string> allowed = {
      "\xe2\x80\xa7", "\xe2\x80\xaf", "\xe2\x81\xa5", "\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x85",
      "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb\xe2\x9d\xa4\xef\xb8\x8f", "\xe6\xbc\xa2\xe5\xad\x97"};
  for (const std::string& text : allowed) {
    request = Good();
    (*request.mutable_tags())["note"] = text;
    EXPECT_TRUE(CheckSubmitRequest(request, SubmitLimits{}).ok()) << Message(request);
    EXPECT_EQ(FirstHiddenCharacter(text), std::nullopt);
  }
  // The same rule for every other stored free-text field.
  request = Good();
  request.set_filename("relu\xe2\x80\xae" "uc.cu");
  EXPECT_TRUE(Message(request).starts_with("filename: bidi control (embedding/override) U+202E at byte offset 4;"))
      << Message(request);
  request = Good();
  request.set_problem("level1/\xe2\x80\x8b" "19_ReLU");
  EXPECT_TRUE(Message(request).starts_with("problem: zero-width space U+200B at byte offset 7;")) << Message(request);
  request = Good();
  request.set_idempotency_key("run-1\xe2\x80\xa8");
  EXPECT_TRUE(
      Message(request).starts_with("idempotency_key: Unicode line/paragraph separator U+2028 at byte offset 5;"))
      << Message(request);
  request = Good();
  request.set_launch_plan("launch k grid(1) block(1) args()\n\xe2\x81\xa7");
  EXPECT_TRUE(Message(request).starts_with("launch_plan: bidi control (isolate) U+2067 at byte offset 33;"))
      << Message(request);
  // Invalid UTF-8 is reported as such, not as a hidden character.
  EXPECT_EQ(FirstHiddenCharacter("a\xe2\x80"), std::nullopt);
}

}  // namespace
}  // namespace kjudge
