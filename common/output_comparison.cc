#include "common/output_comparison.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kjudge {
namespace {

struct TensorTally {
  int64_t unwritten = 0;
  int64_t first_unwritten = -1;
  int64_t nonfinite = 0;
  int64_t mismatches = 0;
  double diff_sq = 0.0;
  double ref_sq = 0.0;
  int64_t compared = 0;
};

bool IsPoisoned(const std::vector<bool>& poisoned, size_t i) {
  return !poisoned.empty() && poisoned[i];
}

// True when the reference is clearly not constant: no single constant is within tolerance of
// every element, or (when it is not ~0 at the atol scale) its values span more than
// kDegenerateVaryingSpread of their magnitude: far beyond rounding noise, so a constant output
// is not the function even under a loose atol.
bool ReferenceVaries(const DegenerateStats& s, const ComparisonTolerance& tol) {
  if (s.count < 2) return false;
  const double band = tol.atol + tol.rtol * s.ref_max_abs;
  return s.RefRange() > 2.0 * band ||
         (s.ref_max_abs > tol.atol && s.RefRange() > kDegenerateVaryingSpread * s.ref_max_abs);
}

}  // namespace

double DegenerateStats::RefRms() const {
  return count > 0 ? std::sqrt(ref_sum_sq / static_cast<double>(count)) : 0.0;
}

DegenerateRule ClassifyDegenerate(const DegenerateStats& s, const ComparisonTolerance& tol) {
  const double ref_rms = s.RefRms();
  if (s.count >= 1 && ref_rms > tol.atol && ref_rms > 0.0 &&
      s.out_max_abs <= kDegenerateNearZero * ref_rms) {
    return DegenerateRule::kNearZero;
  }
  if (s.count >= 2 && ReferenceVaries(s, tol) &&
      s.OutRange() <= kDegenerateRelativeRange * s.RefRange()) {
    return DegenerateRule::kConstant;
  }
  return DegenerateRule::kNone;
}

std::string DescribeDegenerate(DegenerateRule rule, const DegenerateStats& s) {
  switch (rule) {
    case DegenerateRule::kNone:
      return "";
    case DegenerateRule::kNearZero:
      return absl::StrFormat("degenerate output, every element is ~0 (max |out| %g) while the "
                             "reference's RMS is %g.",
                             s.out_max_abs, s.RefRms());
    case DegenerateRule::kConstant:
      return s.OutRange() == 0.0
                 ? absl::StrFormat("degenerate output, every element is %g while the reference "
                                   "varies (from %g to %g).",
                                   s.out_min, s.ref_min, s.ref_max)
                 : absl::StrFormat("degenerate output, (near-)constant: its values span %g "
                                   "while the reference's span %g.",
                                   s.OutRange(), s.RefRange());
  }
  return "";
}

DegenerateStats SummarizeForDegenerate(std::span<const double> actual,
                                       std::span<const double> expected) {
  DegenerateStats s;
  for (size_t i = 0; i < actual.size() && i < expected.size(); ++i) {
    const double a = actual[i];
    const double e = expected[i];
    if (!std::isfinite(a) || !std::isfinite(e)) continue;
    if (s.count == 0) {
      s.out_min = s.out_max = a;
      s.ref_min = s.ref_max = e;
    }
    s.out_min = std::min(s.out_min, a);
    s.out_max = std::max(s.out_max, a);
    s.out_max_abs = std::max(s.out_max_abs, std::fabs(a));
    s.ref_min = std::min(s.ref_min, e);
    s.ref_max = std::max(s.ref_max, e);
    s.ref_max_abs = std::max(s.ref_max_abs, std::fabs(e));
    s.ref_sum_sq += e * e;
    ++s.count;
  }
  return s;
}

OutputComparator::OutputComparator(ComparisonTolerance tolerance, size_t max_reported)
    : tolerance_(tolerance), max_reported_(max_reported) {}

L2Check CheckRelativeL2(double diff_sq, double ref_sq, int64_t compared, const ComparisonTolerance& tolerance) {
  L2Check check;
  if (ref_sq > 0.0) {
    check.error = std::sqrt(diff_sq) / std::sqrt(ref_sq);
    check.ok = check.error <= tolerance.rel_l2;
  } else if (compared > 0) {
    check.reference_all_zero = true;
    check.error = std::sqrt(diff_sq / static_cast<double>(compared));
    check.ok = check.error <= tolerance.atol;
  }
  return check;
}

void OutputComparator::AppendDetail(const std::string& sentence) {
  result_.passed = false;
  if (!result_.detail.empty()) result_.detail += " ";
  result_.detail += sentence;
}

void OutputComparator::RecordMismatch(std::string_view name, int64_t index, double expected,
                                      double actual) {
  ++result_.mismatch_count;
  if (result_.first_mismatches.size() < max_reported_) {
    result_.first_mismatches.push_back({std::string(name), index, expected, actual});
  }
}

void OutputComparator::AddTensor(std::string_view name, std::span<const double> actual,
                                 std::span<const double> expected,
                                 const std::vector<bool>& poisoned) {
  if (actual.size() != expected.size() || (!poisoned.empty() && poisoned.size() != actual.size())) {
    AppendDetail(absl::StrFormat("%s: %d elements produced, %d expected.", name, actual.size(),
                                 expected.size()));
    return;
  }
  result_.element_count += static_cast<int64_t>(actual.size());
  TensorTally t;
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    if (IsPoisoned(poisoned, i)) {
      if (t.unwritten++ == 0) t.first_unwritten = index;
      continue;
    }
    const double a = actual[i];
    const double e = expected[i];
    if (!std::isfinite(a) || !std::isfinite(e)) {
      ++t.nonfinite;
      ++t.mismatches;
      RecordMismatch(name, index, e, a);
      continue;
    }
    const double diff = std::fabs(a - e);
    result_.max_abs_error = std::max(result_.max_abs_error, diff);
    if (e != 0.0) result_.max_rel_error = std::max(result_.max_rel_error, diff / std::fabs(e));
    t.diff_sq += diff * diff;
    t.ref_sq += e * e;
    ++t.compared;
    if (!(diff <= tolerance_.atol + tolerance_.rtol * std::fabs(e))) {
      ++t.mismatches;
      RecordMismatch(name, index, e, a);
    }
  }
  result_.unwritten_count += t.unwritten;
  result_.nonfinite_count += t.nonfinite;

  if (t.unwritten > 0) {
    AppendDetail(absl::StrFormat("%s: %d of %d elements never written (first at flat index %d).",
                                 name, t.unwritten, actual.size(), t.first_unwritten));
  }
  if (t.nonfinite > 0) {
    AppendDetail(absl::StrFormat("%s: %d non-finite values (NaN/Inf never pass).", name,
                                 t.nonfinite));
  }
  const int64_t elementwise = t.mismatches - t.nonfinite;
  if (elementwise > 0) {
    AppendDetail(absl::StrFormat("%s: %d elements outside |out - ref| <= %g + %g * |ref|.", name,
                                 elementwise, tolerance_.atol, tolerance_.rtol));
  }
  const L2Check l2 = CheckRelativeL2(t.diff_sq, t.ref_sq, t.compared, tolerance_);
  result_.rel_l2_error = std::max(result_.rel_l2_error, l2.error);
  if (!l2.ok) {
    AppendDetail(!l2.reference_all_zero
                     ? absl::StrFormat("%s: relative L2 error %g exceeds %g.", name, l2.error,
                                       tolerance_.rel_l2)
                     : absl::StrFormat("%s: reference is all zero and RMS error %g exceeds %g.",
                                       name, l2.error, tolerance_.atol));
  }
  if (t.unwritten == 0 && t.nonfinite == 0) CheckDegenerate(name, actual, expected);
}

void OutputComparator::CheckDegenerate(std::string_view name, std::span<const double> actual,
                                       std::span<const double> expected) {
  const DegenerateStats stats = SummarizeForDegenerate(actual, expected);
  const DegenerateRule rule = ClassifyDegenerate(stats, tolerance_);
  if (rule == DegenerateRule::kNone) return;
  result_.degenerate = true;
  AppendDetail(std::string(name) + ": " + DescribeDegenerate(rule, stats));
}

}  // namespace kjudge
