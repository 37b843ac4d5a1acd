// OutputComparison: the host-side rules that decide whether a candidate's output tensors match
// the trusted reference's (docs/architecture.md, steps 3 and 4). Pure C++, no CUDA, so CI tests
// every rule.
//
// Contract, per output tensor (values already converted to double; `poisoned[i]` says that
// element i still holds the poison bit pattern it was filled with before the candidate ran):
//   * a poisoned element is UNWRITTEN: counted in unwritten_count, never a pass, and left out
//     of the error statistics;
//   * a NaN or Inf in either actual or expected never passes (counted in nonfinite_count and
//     as a mismatch);
//   * element i passes iff |actual - expected| <= atol + rtol * |expected|;
//   * the tensor's relative L2 error ||actual - expected|| / ||expected|| must be <= rel_l2;
//     when ||expected|| == 0 the bound is instead RMS(actual - expected) <= atol, and
//     rel_l2_error reports that RMS;
//   * a degenerate output fails and is flagged (degenerate = true, with its own sentence in
//     detail), even when a loose atol or L2 bound would let it through. Checked only when every
//     element was written and finite. Degenerate means either
//       - (near-)constant: >= 2 elements whose range (max - min) is at most
//         kDegenerateRelativeRange (1e-3) of the reference's range, while the reference varies:
//         its range exceeds 2 * (atol + rtol * max|ref|) (no constant is within tolerance
//         everywhere) or, when max|ref| > atol, kDegenerateVaryingSpread (5%) of max|ref| (far
//         beyond rounding noise);
//         a constant reference (range 0) never makes an output degenerate; or
//       - (checked first) all ~0 where the reference is not: max|out| <= kDegenerateNearZero (1e-3) * RMS(ref)
//         while RMS(ref) > atol.
//     The rule reads only summary statistics (DegenerateStats: count, min/max/max|.| of the
//     output, min/max/max|.|/sum of squares of the reference): ClassifyDegenerate() is the one
//     rule, used here and by the runner's device-side comparison (worker/judge/
//     device_utilities.h reduces bench-shape outputs to the same statistics), and
//     DescribeDegenerate() its sentence, so both paths fail the same outputs with the same words.
// Statistics over all tensors: max abs error, max rel error (over elements with expected != 0),
// max rel L2 error, mismatch count, and the first `max_reported` mismatches in tensor order.
// Precedence of the failure detail: unwritten, then non-finite, then elementwise/L2/degenerate.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge {

inline constexpr double kDegenerateRelativeRange = 1e-3;
inline constexpr double kDegenerateNearZero = 1e-3;
inline constexpr double kDegenerateVaryingSpread = 0.05;

struct ComparisonTolerance {
  double atol = 0.0;
  double rtol = 0.0;
  double rel_l2 = 0.0;
};

// Summary of one output tensor and its reference over `count` elements, each written and
// finite in both (the degenerate rule is only applied when every element is).
struct DegenerateStats {
  int64_t count = 0;
  double out_min = 0.0;
  double out_max = 0.0;
  double out_max_abs = 0.0;
  double ref_min = 0.0;
  double ref_max = 0.0;
  double ref_max_abs = 0.0;
  double ref_sum_sq = 0.0;
  double OutRange() const { return out_max - out_min; }
  double RefRange() const { return ref_max - ref_min; }
  double RefRms() const;
};

enum class DegenerateRule {
  kNone,
  kNearZero,  // every element ~0 while the reference's RMS is above atol
  kConstant,  // (near-)constant while the reference varies
};

// The degenerate rule of the contract above, on summary statistics.
DegenerateRule ClassifyDegenerate(const DegenerateStats& stats, const ComparisonTolerance& tol);
// The sentence for a rule other than kNone, without the tensor name: "degenerate output, ...".
std::string DescribeDegenerate(DegenerateRule rule, const DegenerateStats& stats);
// The statistics of equally sized `actual` and `expected`, every element finite.
DegenerateStats SummarizeForDegenerate(std::span<const double> actual,
                                       std::span<const double> expected);

// The L2 part of the rule, from sums over the `compared` elements (written and finite in both):
// ||out - ref|| / ||ref|| = sqrt(diff_sq / ref_sq) against rel_l2, or, when ref_sq == 0, the
// RMS error sqrt(diff_sq / compared) against atol (compared == 0: error 0, ok). The one place
// this decision lives: the host comparator, the judge's device comparison (which reduces a
// tensor to these sums on the GPU) and the fidelity bench all call it.
struct L2Check {
  double error = 0.0;  // the relative L2 error, or the RMS error for an all-zero reference
  bool ok = true;
  bool reference_all_zero = false;
};
L2Check CheckRelativeL2(double diff_sq, double ref_sq, int64_t compared, const ComparisonTolerance& tolerance);

struct MismatchRecord {
  std::string tensor;
  int64_t index = 0;
  double expected = 0.0;
  double actual = 0.0;
};

struct ComparisonResult {
  bool passed = true;
  int64_t element_count = 0;
  int64_t unwritten_count = 0;
  int64_t nonfinite_count = 0;
  int64_t mismatch_count = 0;  // elementwise failures, non-finite included, unwritten excluded
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  double rel_l2_error = 0.0;  // the worst tensor's
  bool degenerate = false;
  std::vector<MismatchRecord> first_mismatches;
  std::string detail;  // "" when passed; otherwise one sentence per failing tensor rule
};

// Accumulates tensors one by one; Result() may be read at any time.
class OutputComparator {
 public:
  explicit OutputComparator(ComparisonTolerance tolerance, size_t max_reported = 10);

  // `poisoned` may be empty (no element poisoned); otherwise it has actual.size() entries.
  // actual and expected must have the same size; a size mismatch fails the tensor.
  void AddTensor(std::string_view name, std::span<const double> actual,
                 std::span<const double> expected, const std::vector<bool>& poisoned);

  const ComparisonResult& Result() const { return result_; }

 private:
  void AppendDetail(const std::string& sentence);
  void CheckDegenerate(std::string_view name, std::span<const double> actual,
                       std::span<const double> expected);
  void RecordMismatch(std::string_view name, int64_t index, double expected, double actual);

  ComparisonTolerance tolerance_;
  size_t max_reported_;
  ComparisonResult result_;
};

}  // namespace kjudge
