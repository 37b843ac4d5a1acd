#include "worker/judge/result_proto.h"

namespace kjudge::runner {

v1::Timing ToTimingProto(const SampleSummary& s) {
  v1::Timing t;
  t.set_median_us(s.median);
  t.set_mean_us(s.mean);
  t.set_std_us(s.std);
  t.set_min_us(s.min);
  t.set_max_us(s.max);
  t.set_p95_us(s.p95);
  t.set_p99_us(s.p99);
  t.set_p50_us(s.median);
  t.set_samples(static_cast<int32_t>(s.count));
  t.set_rel_std_error(s.rel_std_error);
  return t;
}

v1::TestOutcome ToTestOutcome(const std::string& shape, const ComparisonResult& r) {
  v1::TestOutcome t;
  t.set_shape(shape);
  t.set_passed(r.passed);
  t.set_max_abs_error(r.max_abs_error);
  t.set_max_rel_error(r.max_rel_error);
  t.set_rel_l2_error(r.rel_l2_error);
  t.set_mismatch_count(r.mismatch_count);
  t.set_unwritten_count(r.unwritten_count);
  t.set_detail(r.detail);
  for (const MismatchRecord& m : r.first_mismatches) {
    v1::Mismatch* out = t.add_first_mismatches();
    out->set_tensor(m.tensor);
    out->set_index(m.index);
    out->set_expected(m.expected);
    out->set_actual(m.actual);
  }
  return t;
}

Fault FaultOf(const ErrorInfo& error) {
  return Fault{error.verdict, error.message, error.cuda_error, error.sticky};
}

std::string VerdictName(v1::Verdict verdict) { return v1::Verdict_Name(verdict); }

}  // namespace kjudge::runner
