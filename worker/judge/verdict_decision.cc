// The judge's decisions (verdict_decision.h): each rule is one short function over the facts
// the GPU code measured. The messages and flags are the ones tests/unit/worker/gpu_test.cc,
// tests/gpu/ and docs/ quote: change them only together.
#include "worker/judge/verdict_decision.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {

Fault InputWriteFault(const runner::Fault& fault, std::string_view modified) {
  const std::string which = modified.empty()
                                ? std::string("an input (with the values it already held)")
                                : Cat("its input(s) ", modified);
  runner::Fault out;
  out.verdict = v1::INPUT_MODIFIED;
  out.message = Cat("the kernel wrote ", which, ": inputs are mapped read-only, so the write "
                    "faulted (", fault.message, "); run again with writable inputs it did not "
                    "fault");
  out.cuda_error = fault.cuda_error;
  return out;
}

void VerdictDecision::Decide(v1::Verdict verdict, std::string message) {
  if (decided()) return;
  result_->set_verdict(verdict);
  result_->set_message(std::move(message));
}

void VerdictDecision::Faulted(const runner::Fault& fault) {
  result_->set_verdict(fault.verdict);
  result_->set_message(fault.message);
  result_->set_cuda_error(fault.cuda_error);
}

void VerdictDecision::Compiled(std::string_view arch, size_t kernel_instantiations,
                               bool compile_only) {
  Decide(v1::COMPILED, Cat("compiled for ", arch, " (", kernel_instantiations,
                           " kernel instantiations)",
                           compile_only ? "" : "; no GPU on this runner, so not run"));
}

v1::Verdict VerdictDecision::TestShape(TestShapeFacts facts) {
  v1::TestOutcome outcome = std::move(facts.comparison);
  if (!outcome.passed() && facts.regime != InputRegime::kDeclared) {
    outcome.set_detail(Cat(outcome.detail(), " (inputs in regime '", RegimeName(facts.regime),
                           "')"));
  }
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  if (!facts.modified_inputs.empty()) {
    outcome.set_passed(false);
    outcome.set_detail(Cat("the kernel wrote its input(s) ", facts.modified_inputs, ".",
                           outcome.detail().empty() ? "" : " ", outcome.detail()));
    verdict = v1::INPUT_MODIFIED;
  } else if (outcome.unwritten_count() > 0) {
    verdict = v1::UNWRITTEN_OUTPUT;
  } else if (!outcome.passed()) {
    verdict = v1::WRONG_ANSWER;
  }
  *result_->add_tests() = std::move(outcome);
  if (first_test_failure_ == v1::VERDICT_UNSPECIFIED) first_test_failure_ = verdict;
  return verdict;
}

void VerdictDecision::TestShapesDone() {
  if (first_test_failure_ == v1::VERDICT_UNSPECIFIED) return;
  std::string message;
  for (const v1::TestOutcome& t : result_->tests()) {
    if (!t.passed()) {
      message = Cat("test shape ", t.shape(), ": ", t.detail());
      break;
    }
  }
  Decide(first_test_failure_, std::move(message));
}

void VerdictDecision::BenchFlags(const BenchFacts& facts) {
  if (!facts.has_bench_shapes) return;
  if (!facts.clock_monitored) {
    result_->add_flags(
        Cat("no_clock_monitor: throttling not detected (", facts.clock_reason, ")"));
  }
  if (!facts.uncalibrated_reason.empty()) {
    result_->add_flags(
        Cat("event_overhead_uncalibrated: timings include the ~2.5 us that the CUDA events add (",
            facts.uncalibrated_reason, ")"));
  }
}

void VerdictDecision::FailedSample(std::string_view shape, v1::TestOutcome outcome) {
  // Correct on the test shapes, then unwritten outputs in a timed or re-checked run: the kernel
  // behaves differently when timed (skips work, replays). Wrong values: WRONG_ANSWER.
  Decide(outcome.unwritten_count() > 0 ? v1::SUSPICIOUS : v1::WRONG_ANSWER,
         Cat("bench shape ", shape, ": ", outcome.detail()));
  *result_->add_tests() = std::move(outcome);
}

void VerdictDecision::InputsModifiedWhileTimed(std::string_view shape, std::string_view modified,
                                               size_t set_number) {
  Decide(v1::INPUT_MODIFIED, Cat("bench shape ", shape, ": the kernel wrote its input(s) ",
                                 modified, " during the timed runs (input set ", set_number,
                                 ")."));
}

void VerdictDecision::SampleFlags(const SampleFacts& t) {
  if (t.throttled > 0) {
    result_->add_flags(absl::StrFormat(
        "throttled: %s at %s: %d of %d samples taken under %.0f%% of the max SM clock (%d MHz) "
        "were %s",
        t.who, t.shape, t.throttled, t.throttled + t.kept * (t.all_throttled ? 0 : 1),
        100.0 * t.throttle_threshold, t.max_sm_clock_mhz,
        t.all_throttled ? "all that was measured: the timing is of a throttled GPU"
                        : "discarded"));
  }
  if (t.busy_after_stop > 0) {
    result_->add_flags(absl::StrFormat(
        "busy_after_stop: %s at %s: the device was still busy after the plan's stop event in "
        "%d samples",
        t.who, t.shape, t.busy_after_stop));
  }
}

namespace {

// SUSPICIOUS's message when the device was busy after the stop event in most samples; "" when
// it was not (at most half of the samples taken, throttled ones included unless all were).
std::string BusyAfterStopFinding(const SampleFacts& s) {
  const int64_t samples = s.kept + (s.all_throttled ? 0 : s.throttled);
  if (s.busy_after_stop <= 0 || 2 * s.busy_after_stop <= samples) return "";
  return Cat("bench shape ", s.shape, ": the device was still busy after the plan's stop event in ",
             s.busy_after_stop, " of ", samples, " timed samples: work outlived the timed region.");
}

// SUSPICIOUS's message when the median is under kFloorMargin x the impossible floor: only the
// physically impossible (the memory floor, or a compute floor the problem declares a true
// lower bound: ceilings.h); "" otherwise. SOL% keeps the full floor.
std::string UnderFloorFinding(const TimingFacts& t) {
  const ImpossibleFloor& f = t.impossible;
  if (!(f.us > 0.0 && t.median_us < kFloorMargin * f.us)) return "";
  const std::string compute =
      f.tflops > 0.0
          ? absl::StrFormat("%.3f us of flops at %.1f TFLOP/s %s, the fastest legitimate rate "
                            "for its dtypes", f.compute_us, f.tflops, f.rate_name)
          : absl::StrFormat("no compute bound (%s)", f.rate_name);
  return absl::StrFormat(
      "bench shape %s: median %.3f us is under %.0f%% of the physical floor %.3f us (cost "
      "model at this GPU's measured ceilings: %.3f us of bytes at %.1f GB/s device copy; %s): "
      "faster than the hardware allows, not a speedup (SOL %.0f%%).",
      t.samples.shape, t.median_us, 100.0 * kFloorMargin, f.us, f.memory_us, f.copy_gbs, compute,
      100.0 * t.floor_us / std::max(t.median_us, 1e-9));
}

}  // namespace

void VerdictDecision::Timing(const TimingFacts& facts) {
  candidate_median_[facts.samples.shape] = facts.median_us;
  v1::ShapeTiming* st = result_->add_timings();
  st->set_shape(facts.samples.shape);
  *st->mutable_timing() = facts.timing;
  SampleFlags(facts.samples);
  if (std::string busy = BusyAfterStopFinding(facts.samples); !busy.empty()) {
    Decide(v1::SUSPICIOUS, std::move(busy));
    return;
  }
  if (std::string under = UnderFloorFinding(facts); !under.empty()) {
    Decide(v1::SUSPICIOUS, std::move(under));
  }
}

void VerdictDecision::AddSpeedups(const std::vector<const v1::BaselineTiming*>& baselines) {
  for (const v1::BaselineTiming* b : baselines) {
    auto it = candidate_median_.find(b->shape());
    if (it == candidate_median_.end() || it->second <= 0.0) continue;
    v1::Speedup* s = result_->add_speedups();
    s->set_shape(b->shape());
    s->set_baseline(b->name());
    s->set_speedup(b->timing().median_us() / it->second);
    // Over 10x a library baseline (the naive reference does not count) is worth a second look.
    if (b->name() != "reference" && s->speedup() > kLibrarySpeedupFlag) {
      result_->add_flags(absl::StrFormat("speedup_over_10x: %s at %s: %.1fx", b->name(),
                                         b->shape(), s->speedup()));
    }
  }
}

std::string VerdictDecision::CorrectMessage() const {
  const v1::JobResult& r = *result_;
  std::string msg = Cat("correct on ", r.tests_size(), " test shapes");
  for (const v1::ShapeTiming& t : r.timings()) {
    Append(&msg, absl::StrFormat("; %s: median %.2f us", t.shape(), t.timing().median_us()));
    if (t.timing().sol_percent() > 0.0) {
      Append(&msg, absl::StrFormat(" (SOL %.0f%%)", t.timing().sol_percent()));
    }
    for (const v1::Speedup& s : r.speedups()) {
      if (s.shape() == t.shape()) {
        Append(&msg, absl::StrFormat(", %.2fx %s", s.speedup(), s.baseline()));
      }
    }
  }
  for (const std::string& flag : r.flags()) {
    if (flag.starts_with("speedup_over_10x")) Append(&msg, Cat("; flagged ", flag));
  }
  return msg;
}

void VerdictDecision::Correct(const std::vector<const v1::BaselineTiming*>& baselines) {
  if (decided()) return;
  AddSpeedups(baselines);
  Decide(v1::CORRECT, CorrectMessage());
}

void VerdictDecision::BaselinesMeasured(std::string_view problem,
                                        const std::vector<const v1::BaselineTiming*>& measured,
                                        const std::vector<std::string>& not_measured) {
  if (measured.empty() && not_measured.empty()) {
    Decide(v1::BASELINES_MEASURED,
           Cat("nothing to measure: every baseline of ", problem, " is cached for this GPU"));
    return;
  }
  std::string listed;
  for (const v1::BaselineTiming* b : measured) {
    Append(&listed, listed.empty() ? "" : ", ", b->name(), " at ", b->shape(), " (",
           absl::StrFormat("%.3f", b->timing().median_us()), " us)");
  }
  std::string message = listed.empty() ? "measured no baseline" : Cat("measured ", listed);
  for (const std::string& why : not_measured) Append(&message, "; not measured: ", why);
  Decide(v1::BASELINES_MEASURED, std::move(message));
}

}  // namespace kjudge::runner
