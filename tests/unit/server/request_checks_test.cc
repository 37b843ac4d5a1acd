// The one rule for a well-formed SubmitRequest (proto/request_checks.h), shared by server and CLI.
#include "proto/request_checks.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kjudge
