// Result text caps (proto/result_caps.h): what the judge and the server apply to every
// client-visible text of a JobResult.
#include "proto/result_caps.h"

#include <string>

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(ResultCaps, ATextWithinItsCapIsUnchanged) {
  EXPECT_EQ(CapText("short", 5), "short");
  std::string text = "short";
  EXPECT_EQ(CapTextInPlace(&text, 10), 0u);
  EXPECT_EQ(text, "short");
}

TEST(ResultCaps, KeepsTheHeadAndCountsTheBytesCut) {
  // 100 bytes: 60 of the text and the note, which fits in the remaining 40.
  EXPECT_EQ(CapText(std::string(1000, 'x'), 100), std::string(60, 'x') + " ... [940 bytes cut]");
  std::string text(1000, 'y');
  EXPECT_EQ(CapTextInPlace(&text, 100), 940u);
  EXPECT_EQ(text, std::string(60, 'y') + " ... [940 bytes cut]");
  EXPECT_LE(CapText(std::string(1 << 20, 'z'), 4096).size(), 4096u);
  // Capped again (the server after the judge): unchanged, the judge's count kept.
  EXPECT_EQ(CapTextInPlace(&text, 100), 0u);
  EXPECT_EQ(text, std::string(60, 'y') + " ... [940 bytes cut]");
}

TEST(ResultCaps, NeverSplitsAUtf8Character) {
  // "aé€" = 61 C3A9 E282AC after 40 bytes of room for the note: a cut inside é or € moves back
  // to the character's start.
  const std::string text = "a\xc3\xa9\xe2\x82\xac" + std::string(100, 'z');
  EXPECT_EQ(CapText(text, kCapNoteBytes + 2), "a ... [105 bytes cut]");
  EXPECT_EQ(CapText(text, kCapNoteBytes + 4), "a\xc3\xa9 ... [103 bytes cut]");
  EXPECT_EQ(CapText(text, kCapNoteBytes + 5), "a\xc3\xa9 ... [103 bytes cut]");
}

TEST(ResultCaps, EveryClientVisibleTextOfAResultIsBounded) {
  v1::JobResult result;
  result.set_message(std::string(100000, 'm'));
  result.set_compile_log(std::string(1 << 20, 'l'));
  result.set_cuda_error(std::string(5000, 'c'));
  result.set_candidate_output(std::string(100000, 'o'));
  result.set_candidate_output_cut(7);
  for (int i = 0; i < 300; ++i) {
    v1::TestOutcome* test = result.add_tests();
    test->set_detail(std::string(5000, 'd'));
    test->set_shape(std::string(1000, 's'));
    for (int j = 0; j < 40; ++j) test->add_first_mismatches()->set_tensor(std::string(500, 't'));
  }
  for (int i = 0; i < 100; ++i) result.add_flags(std::string(1000, 'f'));
  const ResultTextCaps caps;
  EXPECT_GT(CapResultText(&result), 0u);
  const size_t kept = caps.message - kCapNoteBytes;
  EXPECT_EQ(result.message(), std::string(kept, 'm') + " ... [" + std::to_string(100000 - kept) + " bytes cut]");
  EXPECT_LE(result.compile_log().size(), caps.compile_log);
  EXPECT_LE(result.cuda_error().size(), caps.cuda_error);
  EXPECT_LE(result.candidate_output().size(), caps.candidate_output);
  EXPECT_EQ(result.candidate_output_cut(), static_cast<int64_t>(7 + 100000 - (caps.candidate_output - kCapNoteBytes)));
  EXPECT_EQ(static_cast<size_t>(result.tests_size()), caps.tests);
  for (const v1::TestOutcome& test : result.tests()) {
    EXPECT_LE(test.detail().size(), caps.test_detail);
    EXPECT_LE(test.shape().size(), caps.test_shape);
    EXPECT_EQ(static_cast<size_t>(test.first_mismatches_size()), caps.mismatches_per_test);
    for (const v1::Mismatch& m : test.first_mismatches()) EXPECT_LE(m.tensor().size(), caps.mismatch_tensor);
  }
  EXPECT_EQ(static_cast<size_t>(result.flags_size()), caps.flags);
  for (const std::string& flag : result.flags()) EXPECT_LE(flag.size(), caps.flag);
  EXPECT_LE(result.ByteSizeLong(), 2u << 20);
  // Idempotent: a second pass (the server after the judge) cuts nothing more.
  const std::string once = result.SerializeAsString();
  EXPECT_EQ(CapResultText(&result), 0u);
  EXPECT_EQ(result.SerializeAsString(), once);
}

// Compile feedback (issue 27): a worker's kernel list is cut to the cap, counted in kernels_cut,
// and every name capped; capping twice changes nothing.
TEST(ResultCaps, KernelsAreCutCountedAndTheirNamesCapped) {
  v1::JobResult result;
  result.set_kernels_cut(5);
  for (int i = 0; i < 100; ++i) {
    v1::KernelResources* k = result.add_kernels();
    k->set_name(std::string(i == 0 ? 10000 : 8, 'k'));
    k->add_plan_names(std::string(i == 1 ? 10000 : 4, 'p'));
    k->set_registers(i);
  }
  const ResultTextCaps caps;
  EXPECT_GT(CapResultText(&result, caps), 0u);
  ASSERT_EQ(static_cast<size_t>(result.kernels_size()), caps.kernels);
  EXPECT_EQ(result.kernels_cut(), 5 + 100 - static_cast<int64_t>(caps.kernels));
  EXPECT_LE(result.kernels(0).name().size(), caps.kernel_name);
  EXPECT_LE(result.kernels(1).plan_names(0).size(), caps.kernel_name);
  EXPECT_EQ(result.kernels(63).registers(), 63);
  EXPECT_EQ(CapResultText(&result, caps), 0u);
}

}  // namespace
}  // namespace kjudge
