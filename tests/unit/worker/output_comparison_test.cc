#include "common/output_comparison.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kjudge {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ComparisonResult Compare(const std::vector<double>& actual, const std::vector<double>& expected,
                         ComparisonTolerance tol = {1e-5, 1e-5, 1e-4},
                         const std::vector<bool>& poisoned = {}) {
  OutputComparator c(tol);
  c.AddTensor("Y", actual, expected, poisoned);
  return c.Result();
}

TEST(OutputComparison, ExactMatchPasses) {
  const ComparisonResult r = Compare({1.0, -2.0, 3.5}, {1.0, -2.0, 3.5});
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_EQ(r.max_abs_error, 0.0);
  EXPECT_EQ(r.rel_l2_error, 0.0);
  EXPECT_EQ(r.detail, "");
  EXPECT_EQ(r.element_count, 3);
}

TEST(OutputComparison, UnwrittenElementsFailAndAreCounted) {
  const ComparisonResult r =
      Compare({1.0, kNaN, kNaN}, {1.0, 2.0, 3.0}, {1e-5, 1e-5, 1e-4}, {false, true, true});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.unwritten_count, 2);
  EXPECT_EQ(r.mismatch_count, 0);  // unwritten elements are not mismatches
  EXPECT_NE(r.detail.find("2 of 3 elements never written (first at flat index 1)"),
            std::string::npos);
}

TEST(OutputComparison, NaNNeverPasses) {
  const ComparisonResult r = Compare({1.0, kNaN}, {1.0, 2.0}, {1e9, 1e9, 1e9});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.nonfinite_count, 1);
  ASSERT_EQ(r.first_mismatches.size(), 1U);
  EXPECT_EQ(r.first_mismatches[0].index, 1);
}

TEST(OutputComparison, InfNeverPassesEvenWhenReferenceIsInf) {
  const ComparisonResult r = Compare({kInf, 1.0}, {kInf, 1.0}, {1e9, 1e9, 1e9});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.nonfinite_count, 1);
}

TEST(OutputComparison, AtolRtolEdgeIsInclusive) {
  // |out - ref| = atol + rtol * |ref| exactly (in binary: 0.5 + 0.25 * 2 = 1).
  EXPECT_TRUE(Compare({3.0}, {2.0}, {0.5, 0.25, 1.0}).passed);
  const ComparisonResult r = Compare({3.0000001}, {2.0}, {0.5, 0.25, 1.0});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatch_count, 1);
  EXPECT_NEAR(r.max_abs_error, 1.0000001, 1e-12);
  EXPECT_NEAR(r.max_rel_error, 0.50000005, 1e-12);
}

TEST(OutputComparison, RelativeL2BoundFailsEvenWhenElementwisePasses) {
  // Every element within atol = 0.1 but the relative L2 error is 0.05 / 1 = 5%.
  const std::vector<double> ref(100, 1.0);
  const std::vector<double> out(100, 1.05);
  const ComparisonResult r = Compare(out, ref, {0.1, 0.0, 0.01});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_NEAR(r.rel_l2_error, 0.05, 1e-12);
  EXPECT_NE(r.detail.find("relative L2 error"), std::string::npos);
}

TEST(OutputComparison, ZeroReferenceUsesRmsAgainstAtol) {
  EXPECT_TRUE(Compare({0.0, 0.0}, {0.0, 0.0}, {1e-6, 0.0, 1e-6}).passed);
  const ComparisonResult small = Compare({1e-7, -1e-7}, {0.0, 0.0}, {1e-6, 0.0, 1e-9});
  EXPECT_TRUE(small.passed);
  EXPECT_NEAR(small.rel_l2_error, 1e-7, 1e-15);
  const ComparisonResult big = Compare({1e-3, 0.0}, {0.0, 0.0}, {1e-4, 0.0, 1e-9});
  EXPECT_FALSE(big.passed);
  EXPECT_NE(big.detail.find("reference is all zero"), std::string::npos);
}

TEST(OutputComparison, AllZeroOutputFailsWhereReferenceIsTinyButNonZero) {
  // KernelBench's hole: a loose atol lets zeros pass elementwise; the L2 bound does not.
  const std::vector<double> ref = {1e-6, -2e-6, 3e-6, 1e-6};
  const std::vector<double> out(4, 0.0);
  const ComparisonResult r = Compare(out, ref, {1e-2, 1e-2, 1e-4});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_NEAR(r.rel_l2_error, 1.0, 1e-12);
}

TEST(OutputComparison, DegenerateConstantOutputFails) {
  const std::vector<double> ref = {-1.0, 0.0, 1.0, 2.0};
  const std::vector<double> out(4, 0.5);
  const ComparisonResult r = Compare(out, ref, {0.1, 0.0, 10.0});  // loose L2 bound
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.degenerate);
  EXPECT_NE(r.detail.find("degenerate output, every element is 0.5"), std::string::npos);
}

TEST(OutputComparison, ConstantReferenceIsNotDegenerate) {
  const std::vector<double> ref(8, 3.0);
  EXPECT_TRUE(Compare(ref, ref).passed);
}

TEST(OutputComparison, ConstantOutputUnderLooseAtolIsDegenerate) {
  // Softmax answered with 1/N everywhere: with a loose atol every element passes and a loose
  // L2 bound lets it through, but the reference varies by far more than rounding noise.
  const std::vector<double> ref = {0.05, 0.15, 0.30, 0.50};
  const std::vector<double> out(4, 0.25);
  const ComparisonResult r = Compare(out, ref, {0.1, 2.0, 10.0});
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.degenerate);
  EXPECT_NE(r.detail.find("every element is 0.25"), std::string::npos);
}

TEST(OutputComparison, NearConstantOutputIsDegenerate) {
  // 1/N plus a tiny ramp, to dodge an exact all-equal test.
  std::vector<double> ref;
  std::vector<double> out;
  for (int i = 0; i < 100; ++i) {
    ref.push_back(std::exp(0.05 * i) / 100.0);
    out.push_back(0.01 + 1e-9 * i);
  }
  const ComparisonResult r = Compare(out, ref, {1.0, 1.0, 10.0});
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.degenerate);
  EXPECT_NE(r.detail.find("(near-)constant"), std::string::npos);
}

TEST(OutputComparison, NearZeroOutputWhereReferenceIsNotIsDegenerate) {
  // Every element within a loose atol of the reference, but the output is ~0 and the
  // reference's RMS is well above atol... with a loose L2 bound too.
  const std::vector<double> ref = {1.0, -1.0, 1.0, -1.0, 1.0, -1.0};
  const std::vector<double> out = {1e-5, -1e-5, 2e-5, 0.0, -2e-5, 1e-5};
  const ComparisonResult r = Compare(out, ref, {0.5, 1.0, 10.0});
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.degenerate);
  EXPECT_NE(r.detail.find("~0"), std::string::npos);
}

TEST(OutputComparison, CorrectOutputsAreNeverDegenerate) {
  // Varying reference, output within rounding noise of it.
  std::vector<double> ref;
  std::vector<double> out;
  for (int i = 0; i < 64; ++i) {
    ref.push_back(std::sin(0.3 * i));
    out.push_back(std::sin(0.3 * i) * (1.0 + 1e-7));
  }
  const ComparisonResult r = Compare(out, ref);
  EXPECT_TRUE(r.passed) << r.detail;
  EXPECT_FALSE(r.degenerate);
  // A reference that is constant up to rounding noise accepts an exactly constant output.
  const std::vector<double> noisy = {1.0, 1.0 + 1e-7, 1.0 - 1e-7, 1.0};
  const ComparisonResult c = Compare(std::vector<double>(4, 1.0), noisy);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_FALSE(c.degenerate);
  // Zeros where the reference is ~0 at the tolerance scale are not degenerate.
  const std::vector<double> tiny = {1e-9, -1e-9, 0.0, 2e-9};
  const ComparisonResult z = Compare(std::vector<double>(4, 0.0), tiny, {1e-5, 1e-5, 2.0});
  EXPECT_TRUE(z.passed) << z.detail;
  EXPECT_FALSE(z.degenerate);
  // A single element is never degenerate.
  EXPECT_FALSE(Compare({2.0}, {2.0}).degenerate);
}

TEST(OutputComparison, DegenerateIsNotReportedForUnwrittenOrNonFiniteOutputs) {
  const std::vector<double> ref = {-1.0, 0.0, 1.0, 2.0};
  const ComparisonResult r = Compare({kNaN, kNaN, kNaN, kNaN}, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.degenerate);
  const ComparisonResult u = Compare({0.5, 0.5, 0.5, 0.5}, ref, {1e-5, 1e-5, 1e-4},
                                     {true, true, true, true});
  EXPECT_FALSE(u.passed);
  EXPECT_FALSE(u.degenerate);
  EXPECT_EQ(u.unwritten_count, 4);
}

// The rule on recorded statistics: what the device-side comparison feeds it (no tensors).
DegenerateStats Stats(int64_t count, double out_min, double out_max, double ref_min,
                      double ref_max, double ref_rms) {
  DegenerateStats s;
  s.count = count;
  s.out_min = out_min;
  s.out_max = out_max;
  s.out_max_abs = std::max(std::fabs(out_min), std::fabs(out_max));
  s.ref_min = ref_min;
  s.ref_max = ref_max;
  s.ref_max_abs = std::max(std::fabs(ref_min), std::fabs(ref_max));
  s.ref_sum_sq = ref_rms * ref_rms * static_cast<double>(count);
  return s;
}

TEST(DegenerateRule, ConstantOutputWhereTheReferenceVaries) {
  const ComparisonTolerance tol{0.1, 0.0, 10.0};
  const DegenerateStats s = Stats(1 << 20, 0.5, 0.5, -1.0, 2.0, 1.0);
  ASSERT_EQ(ClassifyDegenerate(s, tol), DegenerateRule::kConstant);
  EXPECT_EQ(DescribeDegenerate(DegenerateRule::kConstant, s),
            "degenerate output, every element is 0.5 while the reference varies (from -1 to 2).");
  // Near-constant: a span under 1e-3 of the reference's (3) is degenerate, 2e-3 of it is not.
  EXPECT_EQ(ClassifyDegenerate(Stats(100, 0.5, 0.502, -1.0, 2.0, 1.0), tol),
            DegenerateRule::kConstant);
  EXPECT_EQ(ClassifyDegenerate(Stats(100, 0.5, 0.506, -1.0, 2.0, 1.0), tol),
            DegenerateRule::kNone);
  EXPECT_NE(DescribeDegenerate(DegenerateRule::kConstant, Stats(100, 0.5, 0.502, -1.0, 2.0, 1.0))
                .find("(near-)constant"),
            std::string::npos);
}

TEST(DegenerateRule, NearZeroOutputWhereTheReferenceIsNot) {
  const ComparisonTolerance tol{0.5, 1.0, 10.0};
  const DegenerateStats s = Stats(6, -2e-5, 2e-5, -1.0, 1.0, 1.0);
  ASSERT_EQ(ClassifyDegenerate(s, tol), DegenerateRule::kNearZero);
  EXPECT_EQ(DescribeDegenerate(DegenerateRule::kNearZero, s),
            "degenerate output, every element is ~0 (max |out| 2e-05) while the reference's RMS "
            "is 1.");
  // max|out| = 1e-3 * RMS(ref) is still ~0 (inclusive); just above it is not.
  EXPECT_EQ(ClassifyDegenerate(Stats(6, -1e-3, 1e-3, -1.0, 1.0, 1.0), tol),
            DegenerateRule::kNearZero);
  EXPECT_NE(ClassifyDegenerate(Stats(6, -1.001e-3, 1e-3, -1.0, 1.0, 1.0), tol),
            DegenerateRule::kNearZero);
  // A reference whose RMS is within atol is ~0 itself: zeros are fine (RMS = atol too).
  EXPECT_EQ(ClassifyDegenerate(Stats(6, 0.0, 0.0, -0.5, 0.5, 0.5), tol), DegenerateRule::kNone);
  // An all-zero reference never makes the output degenerate.
  EXPECT_EQ(ClassifyDegenerate(Stats(6, 0.0, 0.0, 0.0, 0.0, 0.0), ComparisonTolerance{}),
            DegenerateRule::kNone);
}

TEST(DegenerateRule, ConstantReferenceIsNeverDegenerate) {
  EXPECT_EQ(ClassifyDegenerate(Stats(1000, 3.0, 3.0, 3.0, 3.0, 3.0), {0.0, 0.0, 0.0}),
            DegenerateRule::kNone);
  EXPECT_EQ(ClassifyDegenerate(Stats(1000, -7.0, -7.0, -7.0, -7.0, 7.0), {1e-9, 1e-9, 1e-9}),
            DegenerateRule::kNone);
}

TEST(DegenerateRule, OneElementIsNeverConstantButCanBeNearZero) {
  const ComparisonTolerance tol{1e-5, 1e-5, 1e-4};
  EXPECT_EQ(ClassifyDegenerate(Stats(1, 2.0, 2.0, 2.0, 2.0, 2.0), tol), DegenerateRule::kNone);
  EXPECT_EQ(ClassifyDegenerate(Stats(1, 0.0, 0.0, 2.0, 2.0, 2.0), tol),
            DegenerateRule::kNearZero);
  EXPECT_EQ(ClassifyDegenerate(DegenerateStats{}, tol), DegenerateRule::kNone);  // no elements
}

TEST(DegenerateRule, ReferenceVariesAtTheToleranceBoundaries) {
  // Range 2 against the band atol + rtol * max|ref| = 0.5 + 0.25 * 2 = 1: not more than
  // 2 * band, but it spreads over more than 5% of max|ref| (> atol): it varies.
  EXPECT_EQ(ClassifyDegenerate(Stats(10, 1.0, 1.0, 0.0, 2.0, 1.0), {0.5, 0.25, 10.0}),
            DegenerateRule::kConstant);
  // The band test alone (spread under 5% of max|ref| ~ 100): range 2 = 2 * band does not
  // vary (strict), 2.5 does.
  EXPECT_EQ(ClassifyDegenerate(Stats(10, 101.0, 101.0, 100.0, 102.0, 101.0), {1.0, 0.0, 10.0}),
            DegenerateRule::kNone);
  EXPECT_EQ(ClassifyDegenerate(Stats(10, 101.0, 101.0, 100.0, 102.5, 101.0), {1.0, 0.0, 10.0}),
            DegenerateRule::kConstant);
  // The 5% spread test alone (band 10 from rtol): range 5 = 5% of 100 does not vary, 5.1 does.
  EXPECT_EQ(ClassifyDegenerate(Stats(10, 97.0, 97.0, 95.0, 100.0, 97.0), {0.0, 0.1, 10.0}),
            DegenerateRule::kNone);
  EXPECT_EQ(ClassifyDegenerate(Stats(10, 97.0, 97.0, 94.9, 100.0, 97.0), {0.0, 0.1, 10.0}),
            DegenerateRule::kConstant);
}

TEST(DegenerateRule, SummaryMatchesTheTensors) {
  const std::vector<double> out = {0.5, -0.25, 3.0};
  const std::vector<double> ref = {-1.0, 2.0, 0.0};
  const DegenerateStats s = SummarizeForDegenerate(out, ref);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.out_min, -0.25);
  EXPECT_EQ(s.out_max, 3.0);
  EXPECT_EQ(s.out_max_abs, 3.0);
  EXPECT_EQ(s.ref_min, -1.0);
  EXPECT_EQ(s.ref_max, 2.0);
  EXPECT_EQ(s.ref_max_abs, 2.0);
  EXPECT_EQ(s.ref_sum_sq, 5.0);
  EXPECT_NEAR(s.RefRms(), std::sqrt(5.0 / 3.0), 1e-15);
}

TEST(OutputComparison, FirstMismatchesAreCappedButAllAreCounted) {
  std::vector<double> ref(50, 1.0);
  std::vector<double> out(50, 2.0);
  out[0] = 1.0;
  OutputComparator c({0.0, 0.0, 10.0}, 10);
  c.AddTensor("A", out, ref, {});
  c.AddTensor("B", out, ref, {});
  const ComparisonResult& r = c.Result();
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatch_count, 98);
  ASSERT_EQ(r.first_mismatches.size(), 10U);
  EXPECT_EQ(r.first_mismatches[0].tensor, "A");
  EXPECT_EQ(r.first_mismatches[0].index, 1);
  EXPECT_EQ(r.first_mismatches[0].expected, 1.0);
  EXPECT_EQ(r.first_mismatches[0].actual, 2.0);
  EXPECT_EQ(r.first_mismatches[9].index, 10);
}

TEST(OutputComparison, SizeMismatchFails) {
  const ComparisonResult r = Compare({1.0}, {1.0, 2.0});
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("1 elements produced, 2 expected"), std::string::npos);
}

TEST(OutputComparison, WorstTensorDecidesRelL2) {
  OutputComparator c({1.0, 1.0, 1.0});
  c.AddTensor("good", std::vector<double>{1.0}, std::vector<double>{1.0}, {});
  c.AddTensor("bad", std::vector<double>{1.5}, std::vector<double>{1.0}, {});
  EXPECT_TRUE(c.Result().passed);
  EXPECT_NEAR(c.Result().rel_l2_error, 0.5, 1e-12);
}

// tests/vectors/tolerance.json: the cases every twin of the rule must agree on (the PyTorch
// oracle's compare reads the same file in tests/oracle/test_tolerance_vectors.py).
double VectorValue(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string text = v.get<std::string>();
  if (text == "nan") return kNaN;
  if (text == "inf") return kInf;
  if (text == "-inf") return -kInf;
  ADD_FAILURE() << "not a vector value: " << text;
  return 0.0;
}

TEST(OutputComparison, SharedToleranceVectors) {
  std::ifstream in(KJUDGE_SOURCE_DIR "/tests/vectors/tolerance.json");
  ASSERT_TRUE(in) << "tests/vectors/tolerance.json not found";
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_GE(doc.at("cases").size(), 10U);
  for (const nlohmann::json& c : doc.at("cases")) {
    std::vector<double> out;
    std::vector<double> ref;
    for (const nlohmann::json& v : c.at("out")) out.push_back(VectorValue(v));
    for (const nlohmann::json& v : c.at("ref")) ref.push_back(VectorValue(v));
    const ComparisonTolerance tol{c.at("atol").get<double>(), c.at("rtol").get<double>(),
                                  c.at("rel_l2").get<double>()};
    const ComparisonResult r = Compare(out, ref, tol);
    const std::string name = c.at("name").get<std::string>();
    EXPECT_EQ(r.passed, c.at("pass").get<bool>()) << name << ": " << r.detail;
    EXPECT_EQ(r.mismatch_count, c.at("mismatches").get<int64_t>()) << name;
    if (c.contains("l2")) {
      const double l2 = c.at("l2").get<double>();
      EXPECT_NEAR(r.rel_l2_error, l2, 1e-9 * std::max(1.0, l2)) << name;
      // The device path reduces a tensor to these sums and calls the same decision.
      double diff_sq = 0.0;
      double ref_sq = 0.0;
      for (size_t i = 0; i < out.size(); ++i) {
        diff_sq += (out[i] - ref[i]) * (out[i] - ref[i]);
        ref_sq += ref[i] * ref[i];
      }
      const L2Check sums = CheckRelativeL2(diff_sq, ref_sq, static_cast<int64_t>(out.size()), tol);
      EXPECT_NEAR(sums.error, l2, 1e-9 * std::max(1.0, l2)) << name;
      if (c.at("pass").get<bool>()) {
        EXPECT_TRUE(sums.ok) << name;
      }
    }
  }
}

}  // namespace
}  // namespace kjudge
