// The judge's decisions (worker/judge/verdict_decision.h) on measured facts, without a GPU:
// every verdict the judge decides, every rule, and which finding wins when several occur.
// The exact messages pinned here are the ones the GPU tests and docs quote.
#include "worker/judge/verdict_decision.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kjudge::runner {
namespace {

using ::testing::HasSubstr;

v1::TestOutcome Passed(const std::string& shape) {
  v1::TestOutcome t;
  t.set_shape(shape);
  t.set_passed(true);
  return t;
}

v1::TestOutcome Wrong(const std::string& shape, const std::string& detail) {
  v1::TestOutcome t;
  t.set_shape(shape);
  t.set_passed(false);
  t.set_mismatch_count(7);
  t.set_detail(detail);
  return t;
}

v1::TestOutcome Unwritten(const std::string& shape, const std::string& detail) {
  v1::TestOutcome t = Wrong(shape, detail);
  t.set_unwritten_count(3);
  return t;
}

SampleFacts Samples(int64_t kept, int64_t throttled = 0, int64_t busy = 0,
                    bool all_throttled = false) {
  SampleFacts s;
  s.who = "candidate";
  s.shape = "N=1024";
  s.kept = kept;
  s.throttled = throttled;
  s.all_throttled = all_throttled;
  s.busy_after_stop = busy;
  s.max_sm_clock_mhz = 1980;
  s.throttle_threshold = 0.75;
  return s;
}

// A timing of `median` us at shape N=1024 with a full floor of `floor` us, whose impossible
// floor is the memory floor `floor` (no compute bound).
TimingFacts Timed(double median, double floor, SampleFacts samples = Samples(20)) {
  TimingFacts t;
  t.samples = std::move(samples);
  t.timing.set_median_us(median);
  t.median_us = median;
  t.floor_us = floor;
  t.impossible.us = floor;
  t.impossible.memory_us = floor;
  t.impossible.rate_name = "none: no min_flops";
  t.impossible.copy_gbs = 4000.0;
  return t;
}

v1::BaselineTiming Baseline(const std::string& name, const std::string& shape, double median) {
  v1::BaselineTiming b;
  b.set_problem("level1/19_ReLU");
  b.set_shape(shape);
  b.set_name(name);
  b.mutable_timing()->set_median_us(median);
  return b;
}

class VerdictDecisionTest : public ::testing::Test {
 protected:
  v1::JobResult result_;
  VerdictDecision decision_{&result_};
};

// --- Rule 0: faults ---------------------------------------------------------------------

TEST_F(VerdictDecisionTest, EveryFaultKindIsItsVerdictWithMessageAndCudaError) {
  for (v1::Verdict kind : {v1::REJECTED, v1::COMPILE_ERROR, v1::LAUNCH_ERROR, v1::RUNTIME_ERROR,
                           v1::TIMEOUT, v1::INTERNAL_ERROR, v1::INPUT_MODIFIED}) {
    v1::JobResult result;
    VerdictDecision decision(&result);
    decision.Faulted({kind, "what happened", kind == v1::RUNTIME_ERROR ? "cudaErrorX: y" : "",
                      false});
    EXPECT_EQ(result.verdict(), kind);
    EXPECT_EQ(result.message(), "what happened");
    EXPECT_EQ(result.cuda_error(), kind == v1::RUNTIME_ERROR ? "cudaErrorX: y" : "");
    EXPECT_TRUE(decision.decided());
  }
}

TEST_F(VerdictDecisionTest, TimeoutAtRunTimeIsTimeout) {
  decision_.Faulted({v1::TIMEOUT,
                     "candidate on test shape M=1: running the plan: no answer within 15 s (a "
                     "kernel that never finishes?); the candidate process was killed",
                     "", false});
  EXPECT_EQ(result_.verdict(), v1::TIMEOUT);
  EXPECT_THAT(result_.message(), HasSubstr("no answer within 15 s"));
  EXPECT_EQ(result_.cuda_error(), "");
}

TEST_F(VerdictDecisionTest, FaultOnALaterTestShapeBeatsAFailureOnAnEarlierOne) {
  EXPECT_EQ(decision_.TestShape({Wrong("M=1", "Y: 7 mismatches"), InputRegime::kDeclared, ""}),
            v1::WRONG_ANSWER);
  decision_.Faulted({v1::RUNTIME_ERROR, "candidate on test shape M=2: out-of-bounds write", "",
                     false});
  EXPECT_EQ(result_.verdict(), v1::RUNTIME_ERROR);
  EXPECT_EQ(result_.message(), "candidate on test shape M=2: out-of-bounds write");
  EXPECT_EQ(result_.tests_size(), 1);  // the earlier shape's outcome stays recorded
}

TEST_F(VerdictDecisionTest, FaultReplacesADecidedVerdict) {
  decision_.FailedSample("N=1024", Wrong("N=1024", "Y: timed sample 3: wrong"));
  decision_.Faulted({v1::INTERNAL_ERROR, "oracle died", "", false});
  EXPECT_EQ(result_.verdict(), v1::INTERNAL_ERROR);
  EXPECT_EQ(result_.message(), "oracle died");
}

TEST(InputWriteFaultTest, NamesTheInputsAndKeepsTheCudaError) {
  const Fault fault{v1::RUNTIME_ERROR, "launch 1 of 1: an illegal memory access",
                    "cudaErrorIllegalAddress: an illegal memory access was encountered", true};
  const Fault f = InputWriteFault(fault, "X");
  EXPECT_EQ(f.verdict, v1::INPUT_MODIFIED);
  EXPECT_EQ(f.message,
            "the kernel wrote its input(s) X: inputs are mapped read-only, so the write faulted "
            "(launch 1 of 1: an illegal memory access); run again with writable inputs it did "
            "not fault");
  EXPECT_EQ(f.cuda_error, fault.cuda_error);
  EXPECT_FALSE(f.sticky);
  EXPECT_THAT(InputWriteFault(fault, "").message,
              HasSubstr("the kernel wrote an input (with the values it already held)"));
}

// --- Rule 1: compile-only ---------------------------------------------------------------

TEST_F(VerdictDecisionTest, CompiledSaysWhyItWasNotRun) {
  decision_.Compiled("sm_90a", 2, /*compile_only=*/true);
  EXPECT_EQ(result_.verdict(), v1::COMPILED);
  EXPECT_EQ(result_.message(), "compiled for sm_90a (2 kernel instantiations)");
  v1::JobResult no_gpu;
  VerdictDecision(&no_gpu).Compiled("?", 1, /*compile_only=*/false);
  EXPECT_EQ(no_gpu.message(),
            "compiled for ? (1 kernel instantiations); no GPU on this runner, so not run");
}

// --- Rule 2: test shapes ----------------------------------------------------------------

TEST_F(VerdictDecisionTest, PassingTestShapesDecideNothing) {
  EXPECT_EQ(decision_.TestShape({Passed("M=1"), InputRegime::kLarge, ""}),
            v1::VERDICT_UNSPECIFIED);
  decision_.TestShapesDone();
  EXPECT_FALSE(decision_.decided());
  ASSERT_EQ(result_.tests_size(), 1);
  EXPECT_EQ(result_.tests(0).detail(), "");  // no regime note on a pass
}

TEST_F(VerdictDecisionTest, WrongAnswerOnATestShape) {
  EXPECT_EQ(decision_.TestShape({Wrong("M=1", "Y: 7 of 8 outside tolerance"),
                                 InputRegime::kDeclared, ""}),
            v1::WRONG_ANSWER);
  decision_.TestShapesDone();
  EXPECT_EQ(result_.verdict(), v1::WRONG_ANSWER);
  EXPECT_EQ(result_.message(), "test shape M=1: Y: 7 of 8 outside tolerance");
}

TEST_F(VerdictDecisionTest, UnwrittenOutputBeatsWrongValues) {
  EXPECT_EQ(decision_.TestShape({Unwritten("M=1", "Y: 3 unwritten"), InputRegime::kDeclared,
                                 ""}),
            v1::UNWRITTEN_OUTPUT);
  decision_.TestShapesDone();
  EXPECT_EQ(result_.verdict(), v1::UNWRITTEN_OUTPUT);
}

TEST_F(VerdictDecisionTest, InputModifiedBeatsEverythingOnItsShapeAndFailsAPass) {
  EXPECT_EQ(decision_.TestShape({Unwritten("M=1", "Y: 3 unwritten"), InputRegime::kDeclared,
                                 "X"}),
            v1::INPUT_MODIFIED);
  EXPECT_EQ(decision_.TestShape({Passed("M=2"), InputRegime::kDeclared, "X, W"}),
            v1::INPUT_MODIFIED);
  decision_.TestShapesDone();
  EXPECT_EQ(result_.verdict(), v1::INPUT_MODIFIED);
  EXPECT_EQ(result_.message(), "test shape M=1: the kernel wrote its input(s) X. Y: 3 unwritten");
  ASSERT_EQ(result_.tests_size(), 2);
  EXPECT_FALSE(result_.tests(1).passed());
  EXPECT_EQ(result_.tests(1).detail(), "the kernel wrote its input(s) X, W.");
}

TEST_F(VerdictDecisionTest, AFailureNamesTheRegimeItsInputsWereDrawnIn) {
  decision_.TestShape({Wrong("M=1", "Y: wrong"), InputRegime::kZeros, ""});
  decision_.TestShapesDone();
  EXPECT_EQ(result_.message(), "test shape M=1: Y: wrong (inputs in regime 'zeros')");
}

TEST_F(VerdictDecisionTest, TheFirstFailingTestShapeDecidesAndEveryShapeIsRecorded) {
  decision_.TestShape({Passed("M=1"), InputRegime::kDeclared, ""});
  decision_.TestShape({Wrong("M=2", "Y: wrong"), InputRegime::kDeclared, ""});
  decision_.TestShape({Unwritten("M=3", "Y: unwritten"), InputRegime::kDeclared, ""});
  decision_.TestShape({Passed("M=4"), InputRegime::kDeclared, "X"});
  decision_.TestShapesDone();
  EXPECT_EQ(result_.verdict(), v1::WRONG_ANSWER);
  EXPECT_EQ(result_.message(), "test shape M=2: Y: wrong");
  EXPECT_EQ(result_.tests_size(), 4);
}

// --- Rule 3: bench shapes ---------------------------------------------------------------

TEST_F(VerdictDecisionTest, UnwrittenInATimedSampleIsSuspicious) {
  decision_.FailedSample("N=1024", Unwritten("N=1024", "Y: timed sample 14 (input set 1 of 1): "
                                                       "3 elements unwritten"));
  EXPECT_EQ(result_.verdict(), v1::SUSPICIOUS);
  EXPECT_EQ(result_.message(),
            "bench shape N=1024: Y: timed sample 14 (input set 1 of 1): 3 elements unwritten");
  EXPECT_EQ(result_.tests_size(), 1);
}

TEST_F(VerdictDecisionTest, WrongInATimedSampleOrReCheckIsWrongAnswer) {
  decision_.FailedSample("N=1024", Wrong("N=1024", "Y: after timing, on new inputs at the same "
                                                   "addresses with the previous outputs left in "
                                                   "place: wrong"));
  EXPECT_EQ(result_.verdict(), v1::WRONG_ANSWER);
  EXPECT_THAT(result_.message(), HasSubstr("previous outputs left in place"));
}

TEST_F(VerdictDecisionTest, InputsModifiedDuringTheTimedRuns) {
  decision_.InputsModifiedWhileTimed("N=1024", "X", 1);
  EXPECT_EQ(result_.verdict(), v1::INPUT_MODIFIED);
  EXPECT_EQ(result_.message(),
            "bench shape N=1024: the kernel wrote its input(s) X during the timed runs (input "
            "set 1).");
}

TEST_F(VerdictDecisionTest, BusyAfterStopInMostSamplesAloneIsSuspicious) {
  decision_.Timing(Timed(10.0, 1.0, Samples(20, 0, 11)));
  EXPECT_EQ(result_.verdict(), v1::SUSPICIOUS);
  EXPECT_EQ(result_.message(),
            "bench shape N=1024: the device was still busy after the plan's stop event in 11 of "
            "20 timed samples: work outlived the timed region.");
  ASSERT_EQ(result_.flags_size(), 1);
  EXPECT_EQ(result_.flags(0),
            "busy_after_stop: candidate at N=1024: the device was still busy after the plan's "
            "stop event in 11 samples");
  EXPECT_EQ(result_.timings_size(), 1);
}

TEST_F(VerdictDecisionTest, BusyAfterStopInHalfTheSamplesIsOnlyAFlag) {
  // Throttled samples count as taken: 10 kept + 10 throttled, busy in 10: not more than half.
  decision_.Timing(Timed(10.0, 1.0, Samples(10, 10, 10)));
  EXPECT_FALSE(decision_.decided());
  EXPECT_EQ(result_.flags_size(), 2);  // throttled, busy_after_stop
  v1::JobResult all;  // every sample throttled and kept: 10 taken, busy in 5
  VerdictDecision(&all).Timing(Timed(10.0, 1.0, Samples(10, 10, 5, /*all_throttled=*/true)));
  EXPECT_EQ(all.verdict(), v1::VERDICT_UNSPECIFIED);
}

TEST_F(VerdictDecisionTest, AllThrottledSamplesCountOnceWhenJudgingBusyAfterStop) {
  // all_throttled: the kept samples are the throttled ones (not added twice): 6 of 10 is most.
  decision_.Timing(Timed(10.0, 1.0, Samples(10, 10, 6, /*all_throttled=*/true)));
  EXPECT_EQ(result_.verdict(), v1::SUSPICIOUS);
  EXPECT_THAT(result_.message(), HasSubstr("in 6 of 10 timed samples"));
}

TEST_F(VerdictDecisionTest, UnderTheImpossibleFloorAloneIsSuspicious) {
  decision_.Timing(Timed(1.0, 2.0));
  EXPECT_EQ(result_.verdict(), v1::SUSPICIOUS);
  EXPECT_EQ(result_.message(),
            "bench shape N=1024: median 1.000 us is under 90% of the physical floor 2.000 us "
            "(cost model at this GPU's measured ceilings: 2.000 us of bytes at 4000.0 GB/s "
            "device copy; no compute bound (none: no min_flops)): faster than the hardware "
            "allows, not a speedup (SOL 200%).");
  EXPECT_EQ(result_.flags_size(), 0);
}

TEST_F(VerdictDecisionTest, TheFloorMessageNamesTheComputeRate) {
  TimingFacts t = Timed(1.0, 4.0);
  t.impossible.compute_us = 4.0;
  t.impossible.tflops = 51.2;
  t.impossible.rate_name = "SGEMM";
  decision_.Timing(t);
  EXPECT_THAT(result_.message(), HasSubstr("; 4.000 us of flops at 51.2 TFLOP/s SGEMM, the "
                                           "fastest legitimate rate for its dtypes): "));
}

TEST_F(VerdictDecisionTest, AtTheFloorMarginOrWithoutAFloorIsNotSuspicious) {
  decision_.Timing(Timed(0.9, 1.0));  // exactly 0.9 x floor: not under it
  EXPECT_FALSE(decision_.decided());
  decision_.Timing(Timed(1e-6, 0.0));  // no floor known: never
  EXPECT_FALSE(decision_.decided());
  EXPECT_EQ(result_.timings_size(), 2);
}

TEST_F(VerdictDecisionTest, BusyAfterStopIsReportedBeforeTheFloor) {
  decision_.Timing(Timed(1.0, 2.0, Samples(20, 0, 20)));
  EXPECT_EQ(result_.verdict(), v1::SUSPICIOUS);
  EXPECT_THAT(result_.message(), HasSubstr("work outlived the timed region"));
}

TEST_F(VerdictDecisionTest, TheFirstFindingOfABenchShapeStands) {
  decision_.FailedSample("N=1024", Wrong("N=1024", "Y: timed sample 2: wrong"));
  decision_.InputsModifiedWhileTimed("N=1024", "X", 1);
  decision_.Timing(Timed(1.0, 2.0, Samples(20, 0, 20)));
  decision_.Correct({});
  EXPECT_EQ(result_.verdict(), v1::WRONG_ANSWER);
  EXPECT_EQ(result_.message(), "bench shape N=1024: Y: timed sample 2: wrong");
  EXPECT_EQ(result_.speedups_size(), 0);
}

TEST_F(VerdictDecisionTest, ThrottledSamplesAreFlagged) {
  decision_.SampleFlags(Samples(10, 3));
  SampleFacts baseline = Samples(5, 5, 0, /*all_throttled=*/true);
  baseline.who = "baseline cublas";
  decision_.SampleFlags(baseline);
  ASSERT_EQ(result_.flags_size(), 2);
  EXPECT_EQ(result_.flags(0),
            "throttled: candidate at N=1024: 3 of 13 samples taken under 75% of the max SM clock "
            "(1980 MHz) were discarded");
  EXPECT_EQ(result_.flags(1),
            "throttled: baseline cublas at N=1024: 5 of 5 samples taken under 75% of the max SM "
            "clock (1980 MHz) were all that was measured: the timing is of a throttled GPU");
  EXPECT_FALSE(decision_.decided());
}

TEST_F(VerdictDecisionTest, BenchFlagsSayWhatTheTimingsLack) {
  decision_.BenchFlags({true, false, "no NVML", "libcupti.so.13 not found"});
  ASSERT_EQ(result_.flags_size(), 2);
  EXPECT_EQ(result_.flags(0), "no_clock_monitor: throttling not detected (no NVML)");
  EXPECT_EQ(result_.flags(1),
            "event_overhead_uncalibrated: timings include the ~2.5 us that the CUDA events add "
            "(libcupti.so.13 not found)");
  v1::JobResult none;
  VerdictDecision(&none).BenchFlags({false, false, "no NVML", "x"});  // no bench shapes
  VerdictDecision(&none).BenchFlags({true, true, "", ""});            // monitored, calibrated
  EXPECT_EQ(none.flags_size(), 0);
}

// --- Rule 4: correct, and baselines-only -----------------------------------------------

TEST_F(VerdictDecisionTest, CorrectWithSpeedupsAndTheOver10xFlag) {
  for (int i = 0; i < 3; ++i) {
    decision_.TestShape({Passed("M=" + std::to_string(i)), InputRegime::kDeclared, ""});
  }
  decision_.TestShapesDone();
  TimingFacts t = Timed(2.0, 1.0);
  t.timing.set_sol_percent(50.0);
  decision_.Timing(t);
  const v1::BaselineTiming reference = Baseline("reference", "N=1024", 100.0);
  const v1::BaselineTiming cublas = Baseline("cublas", "N=1024", 30.0);
  const v1::BaselineTiming elsewhere = Baseline("cublas", "N=7", 30.0);  // not timed: no speedup
  decision_.Correct({&reference, &cublas, &elsewhere});
  EXPECT_EQ(result_.verdict(), v1::CORRECT);
  ASSERT_EQ(result_.speedups_size(), 2);
  EXPECT_DOUBLE_EQ(result_.speedups(0).speedup(), 50.0);
  EXPECT_DOUBLE_EQ(result_.speedups(1).speedup(), 15.0);
  // 50x the reference is not flagged (it is naive); 15x a library baseline is.
  ASSERT_EQ(result_.flags_size(), 1);
  EXPECT_EQ(result_.flags(0), "speedup_over_10x: cublas at N=1024: 15.0x");
  EXPECT_EQ(result_.message(),
            "correct on 3 test shapes; N=1024: median 2.00 us (SOL 50%), 50.00x reference, "
            "15.00x cublas; flagged speedup_over_10x: cublas at N=1024: 15.0x");
}

TEST_F(VerdictDecisionTest, CorrectOnADecidedJobChangesNothing) {
  decision_.InputsModifiedWhileTimed("N=1024", "X", 1);
  decision_.Correct({});
  EXPECT_EQ(result_.verdict(), v1::INPUT_MODIFIED);
}

TEST_F(VerdictDecisionTest, BaselinesMeasuredListsWhatWasAndWasNot) {
  const v1::BaselineTiming reference = Baseline("reference", "M=64,N=4096", 12.3456);
  decision_.BaselinesMeasured("level1/19_ReLU", {&reference},
                              {"torch_compile at M=64,N=4096: still compiling"});
  EXPECT_EQ(result_.verdict(), v1::BASELINES_MEASURED);
  EXPECT_EQ(result_.message(),
            "measured reference at M=64,N=4096 (12.346 us); not measured: torch_compile at "
            "M=64,N=4096: still compiling");
  v1::JobResult cached;
  VerdictDecision(&cached).BaselinesMeasured("level1/19_ReLU", {}, {});
  EXPECT_EQ(cached.message(),
            "nothing to measure: every baseline of level1/19_ReLU is cached for this GPU");
  v1::JobResult failed;
  VerdictDecision(&failed).BaselinesMeasured("p", {}, {"cublas at M=1: wrong output, dropped"});
  EXPECT_EQ(failed.message(), "measured no baseline; not measured: cublas at M=1: wrong output, dropped");
}

}  // namespace
}  // namespace kjudge::runner
