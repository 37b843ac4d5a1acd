// Control bytes in a submitted source (proto/request_checks.h, CheckSubmitRequest): NVRTC stops
// at a NUL while the server would store and show the whole file, so every control byte but tab,
// newline and CR is refused with its offset, by the one rule the server and the CLI share.
#include <string>

#include <gtest/gtest.h>

#include "proto/request_checks.h"

namespace kjudge {
namespace {

v1::SubmitRequest WithSource(std::string source) {
  v1::SubmitRequest request;
  request.set_problem("level1/19_ReLU");
  request.set_source(std::move(source));
  return request;
}

TEST(SourceChecks, TabNewlineAndCarriageReturnAreText) {
  EXPECT_TRUE(CheckSubmitRequest(WithSource("__global__ void k() {\r\n\treturn;\n}\n"), SubmitLimits{}).ok());
}

TEST(SourceChecks, ANulByteIsRefusedWithItsOffset) {
  std::string source = "__global__ void k() {}\n";
  const size_t offset = source.size();
  source += std::string(1, '\0') + "// hidden from NVRTC\n";
  const absl::Status status = CheckSubmitRequest(WithSource(source), SubmitLimits{});
  ASSERT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_EQ(status.message(), "source: control byte 0x00 at byte offset " + std::to_string(offset) +
                                  "; only tab, newline and carriage return are allowed");
}

TEST(SourceChecks, EveryOtherControlByteIsRefused) {
  for (int c = 0; c < 0x20; ++c) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    SCOPED_TRACE(c);
    const absl::Status status =
        CheckSubmitRequest(WithSource("int x;" + std::string(1, static_cast<char>(c)) + "\n"), SubmitLimits{});
    ASSERT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_NE(status.message().find("at byte offset 6"), std::string::npos) << status;
  }
  const absl::Status del = CheckSubmitRequest(WithSource("int x;\x7f\n"), SubmitLimits{});
  EXPECT_NE(del.message().find("control byte 0x7f at byte offset 6"), std::string::npos) << del;
  // UTF-8 text (continuation bytes are >= 0x80) stays accepted.
  EXPECT_TRUE(CheckSubmitRequest(WithSource("// caf\xc3\xa9 \xe2\x82\xac\n"), SubmitLimits{}).ok());
}

}  // namespace
}  // namespace kjudge
