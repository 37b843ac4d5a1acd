// libFuzzer target: the server's rules for bytes it did not make (issue 30 point 6). The input
// is a serialized message as a client or a worker could send it; the first byte picks which:
//   * a SubmitRequest (a client): CheckSubmitRequest must not crash, and an accepted request
//     must hold what the rule promises: problem, filename, idempotency key and tags valid UTF-8,
//     no hidden characters, within SubmitLimits;
//   * a JobResult (a worker, after the runner's sandboxed candidate wrote into it):
//     CapResultText must not crash, every text it caps must end within its cap, still valid
//     UTF-8 where it was, and capping again must cut nothing (idempotent).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "kjudge/v1/kjudge.pb.h"
#include "proto/request_checks.h"
#include "proto/result_caps.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

void CheckAcceptedText(std::string_view text, size_t max_bytes) {
  Require(text.size() <= max_bytes);
  Require(!kjudge::FirstInvalidUtf8(text).has_value());
  Require(!kjudge::FirstHiddenCharacter(text).has_value());
}

void FuzzSubmit(const uint8_t* data, size_t size) {
  kjudge::v1::SubmitRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  const kjudge::SubmitLimits limits;
  if (!kjudge::CheckSubmitRequest(request, limits).ok()) return;
  CheckAcceptedText(request.problem(), limits.max_problem_bytes);
  CheckAcceptedText(request.filename(), limits.max_filename_bytes);
  CheckAcceptedText(request.idempotency_key(), limits.max_idempotency_key_bytes);
  Require(request.source().size() <= limits.max_source_bytes);
  Require(static_cast<size_t>(request.tags().size()) <= limits.max_tags);
  for (const auto& [key, value] : request.tags()) {
    Require(!key.empty() && key.size() <= limits.max_tag_key_bytes);
    CheckAcceptedText(value, limits.max_tag_value_bytes);
  }
}

void CheckCapped(std::string_view before_valid_utf8_probe, const std::string& after, size_t cap) {
  Require(after.size() <= cap);
  if (!kjudge::FirstInvalidUtf8(before_valid_utf8_probe).has_value()) {
    Require(!kjudge::FirstInvalidUtf8(after).has_value());
  }
}

void FuzzResult(const uint8_t* data, size_t size) {
  kjudge::v1::JobResult result;
  if (!result.ParseFromArray(data, static_cast<int>(size))) return;
  const kjudge::v1::JobResult original = result;
  const kjudge::ResultTextCaps caps;
  kjudge::CapResultText(&result, caps);
  CheckCapped(original.message(), result.message(), caps.message);
  CheckCapped(original.compile_log(), result.compile_log(), caps.compile_log);
  CheckCapped(original.cuda_error(), result.cuda_error(), caps.cuda_error);
  CheckCapped(original.candidate_output(), result.candidate_output(), caps.candidate_output);
  Require(static_cast<size_t>(result.tests_size()) <= caps.tests);
  Require(static_cast<size_t>(result.flags_size()) <= caps.flags);
  for (int i = 0; i < result.tests_size(); ++i) {
    const kjudge::v1::TestOutcome& test = result.tests(i);
    CheckCapped(original.tests(i).detail(), test.detail(), caps.test_detail);
    CheckCapped(original.tests(i).shape(), test.shape(), caps.test_shape);
    Require(static_cast<size_t>(test.first_mismatches_size()) <= caps.mismatches_per_test);
  }
  for (int i = 0; i < result.flags_size(); ++i) CheckCapped(original.flags(i), result.flags(i), caps.flag);
  kjudge::v1::JobResult again = result;
  Require(kjudge::CapResultText(&again, caps) == 0);  // idempotent: the server re-caps the judge's
}

}  // namespace

// protobuf logs every string field with invalid UTF-8 it refuses to parse: quiet.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    FuzzSubmit(data + 1, size - 1);
  } else {
    FuzzResult(data + 1, size - 1);
  }
  return 0;
}
