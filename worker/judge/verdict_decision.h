// VerdictDecision: the judge's decisions as plain code (issue 30 pt1; issue 29's "one result
// builder"). The GPU code of verdict_*.cc measures and reports what it found here; this class
// decides the verdict, its message, the flags, the recorded test outcomes, the timings and
// the speedups, and it is the only writer of those fields of a JobResult. No CUDA: the library
// kjudge_verdict_decision links protobuf, Abseil and kjudge_common only, so CI and the ASan
// build unit-test every verdict and every rule (tests/unit/worker/verdict_decision_test.cc).
//
// Findings, in the order the judge meets them, and which one wins (today's precedence; the
// judge stops measuring once decided() is true, and a non-fault finding reported after that
// changes nothing but what it records: test outcomes, timings, flags):
//   0. Faulted(): an error that ends the job at once (REJECTED, COMPILE_ERROR, LAUNCH_ERROR,
//      RUNTIME_ERROR incl. a guard band written, TIMEOUT of a candidate request,
//      INTERNAL_ERROR, INPUT_MODIFIED from a fault's diagnosis). It replaces anything decided
//      or pending: a fault on test shape 2 beats a wrong answer on test shape 1.
//   1. Compiled(): compile-only job or no GPU -> COMPILED.
//   2. TestShape() per test shape, all of them (a failure does not stop the others, a fault
//      does): per shape, inputs modified > unwritten output > wrong answer. TestShapesDone():
//      the first failing shape's verdict, the message "test shape S: <detail>" of the first
//      failing outcome.
//   3. Per bench shape, in order; the first finding ends the timing of the job:
//      guard band damage after the timed runs (a Fault, graver than what follows) >
//      FailedSample() of a timed sample (unwritten -> SUSPICIOUS, wrong/degenerate ->
//      WRONG_ANSWER) > InputsModifiedWhileTimed() (INPUT_MODIFIED) > Timing(): the device busy
//      after the stop event in more than half of the samples (SUSPICIOUS) > a median under
//      kFloorMargin x the impossible floor (SUSPICIOUS) > the re-check's FailedSample()
//      (stale outputs first, then poisoned outputs; same rule as a timed sample).
//   4. Nothing decided: Correct() -> CORRECT with speedups and "speedup_over_10x" flags.
//   A baselines-only job: BaselinesMeasured() -> BASELINES_MEASURED (a Fault before it wins).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/input_regime.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::runner {

inline constexpr double kFloorMargin = 0.9;         // median < 0.9 x impossible floor: SUSPICIOUS
inline constexpr double kLibrarySpeedupFlag = 10.0;  // over 10x a library baseline: flagged

// An error that ends the job (runner_error.h's ErrorInfo, without CUDA).
struct Fault {
  v1::Verdict verdict = v1::INTERNAL_ERROR;
  std::string message;
  std::string cuda_error;  // "cudaErrorIllegalAddress: ..." or ""
  bool sticky = false;
};

// The fault of a kernel that wrote a read-only input: it faulted (`fault`) and, run again
// with writable inputs, did not. `modified` names the inputs whose bytes changed ("" when
// the write left them as they were). INPUT_MODIFIED, keeping the fault's cuda_error.
Fault InputWriteFault(const Fault& fault, std::string_view modified);

// What the judge measured on one test shape.
struct TestShapeFacts {
  v1::TestOutcome comparison;  // the host comparison (ToTestOutcome), shape set
  InputRegime regime = InputRegime::kDeclared;  // the regime its inputs were drawn in
  std::string modified_inputs;  // inputs whose bytes differ after the run ("" none)
};

// One timed run's sample counts, for its flags: the candidate at a bench shape or a baseline.
struct SampleFacts {
  std::string who;    // "candidate", "baseline cublas_gemm"
  std::string shape;  // label
  int64_t kept = 0;   // samples kept (SampleSummary.count)
  int64_t throttled = 0;  // samples taken under the clock threshold
  bool all_throttled = false;  // every sample was throttled: they were kept
  int64_t busy_after_stop = 0;  // samples after which the device was still busy
  int max_sm_clock_mhz = 0;    // the clock monitor's max (0 without one)
  double throttle_threshold = 0.0;  // fraction of the max SM clock
};

// The floor a median must not beat (ceilings.h's ImpossibleFloorOf, and what it came from).
struct ImpossibleFloor {
  double us = 0.0;          // 0: no floor, never SUSPICIOUS for speed
  double memory_us = 0.0;   // bytes at the measured device copy bandwidth
  double compute_us = 0.0;  // flops at the rate below (0 without one)
  double tflops = 0.0;      // the compute rate; 0 when there is no compute bound
  std::string rate_name;    // its name, or why there is no compute bound
  double copy_gbs = 0.0;    // the measured device copy bandwidth
};

// The candidate's timing at one bench shape, as measured.
struct TimingFacts {
  SampleFacts samples;     // who = "candidate"
  v1::Timing timing;       // as reported (verdict_detail::TimingToProto)
  double median_us = 0.0;  // of the kept samples
  double floor_us = 0.0;   // the full physical floor (SOL%); 0 when unknown
  ImpossibleFloor impossible;
};

// The job-wide facts of a timed job, for its flags.
struct BenchFacts {
  bool has_bench_shapes = false;
  bool clock_monitored = false;
  std::string clock_reason;  // why there is no clock monitor ("no NVML", NVML's reason)
  std::string uncalibrated_reason;  // why the event overhead is not subtracted ("" when it is)
};

class VerdictDecision {
 public:
  // Writes into `*result`, which must outlive this object; nothing else should write its
  // verdict, message, cuda_error, tests, timings, flags or speedups.
  explicit VerdictDecision(v1::JobResult* result) : result_(result) {}

  bool decided() const { return result_->verdict() != v1::VERDICT_UNSPECIFIED; }

  // Rule 0: verdict, message and cuda_error of `fault`, replacing anything decided.
  void Faulted(const runner::Fault& fault);
  // Rule 1: "compiled for ARCH (N kernel instantiations)", "; no GPU on this runner, so not
  // run" unless the job asked for compile-only.
  void Compiled(std::string_view arch, size_t kernel_instantiations, bool compile_only);

  // Rule 2: records the shape's outcome (regime note, inputs-modified detail) and returns the
  // shape's verdict (VERDICT_UNSPECIFIED when it passed).
  v1::Verdict TestShape(TestShapeFacts facts);
  // After the last test shape: the first failing one decides.
  void TestShapesDone();

  // Flags of a timed or baselines-only job: no_clock_monitor, event_overhead_uncalibrated.
  void BenchFlags(const BenchFacts& facts);
  // Rule 3: a timed sample or re-check whose outputs failed the device comparison; the outcome
  // is recorded in tests.
  void FailedSample(std::string_view shape, v1::TestOutcome outcome);
  // Rule 3: input set `set_number` (1-based) held modified inputs after the timed runs.
  void InputsModifiedWhileTimed(std::string_view shape, std::string_view modified,
                                size_t set_number);
  // Rule 3: records the timing and its flags, then the speed rules (busy after stop, floor).
  void Timing(const TimingFacts& facts);
  // The flags of one timed run: throttled samples, busy after stop.
  void SampleFlags(const SampleFacts& facts);

  // Rule 4: speedups against `baselines` (cached ones of this problem, then new ones) for
  // every shape timed, flags over kLibrarySpeedupFlag, CORRECT with its message.
  void Correct(const std::vector<const v1::BaselineTiming*>& baselines);
  // A baselines-only job: what `measured` holds and what was not measured ("name at shape:
  // why"), or "nothing to measure" when both are empty.
  void BaselinesMeasured(std::string_view problem,
                         const std::vector<const v1::BaselineTiming*>& measured,
                         const std::vector<std::string>& not_measured);

 private:
  // Sets verdict and message unless a verdict is decided (the first finding wins).
  void Decide(v1::Verdict verdict, std::string message);
  void AddSpeedups(const std::vector<const v1::BaselineTiming*>& baselines);
  std::string CorrectMessage() const;

  v1::JobResult* result_;
  v1::Verdict first_test_failure_ = v1::VERDICT_UNSPECIFIED;
  std::map<std::string, double> candidate_median_;  // by shape label (Timing())
};

}  // namespace kjudge::runner
