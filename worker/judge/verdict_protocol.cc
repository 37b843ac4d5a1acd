// The verdict protocol: the order of the steps of one job (verdict_protocol.h). Each step's
// work lives with its concept: verdict_programs.cc (compile, load, reference runs),
// verdict_test_shapes.cc, verdict_bench_samples.cc, verdict_integrity.cc,
// verdict_baselines.cc, verdict_report.cc.
#include "worker/judge/verdict_protocol.h"

#include <chrono>
#include <random>
#include <utility>

#include <spdlog/spdlog.h>

#include "proto/result_caps.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/result_proto.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {

using namespace verdict_detail;  // the protocol's own constants and helpers

namespace {

uint64_t FreshSeed() {
  std::random_device rd;
  return (uint64_t{rd()} << 32U) ^ rd();
}

}  // namespace

VerdictProtocol::VerdictProtocol(RunnerEnv env, v1::RunSpec run, ProgressFn progress)
    : env_(std::move(env)), run_(std::move(run)) {
  // Every report is remembered, so a heartbeat can repeat the last one (Heartbeat()).
  progress_ = [this, report = std::move(progress)](v1::Stage stage, int done, int total) {
    last_progress_ = {stage, done, total};
    report(stage, done, total);
  };
}

void VerdictProtocol::TakeCandidateHeartbeat() {
  process_->SetHeartbeat([this] {
    progress_(last_progress_.stage, last_progress_.done, last_progress_.total);
  });
}

bool VerdictProtocol::FullJob() const {
  return !run_.compile_only() && env_.gpu != nullptr && env_.gpu->has_gpu;
}

v1::RunnerResult VerdictProtocol::Run() {
  const auto start = std::chrono::steady_clock::now();
  last_mark_ = start;
  seed_ = run_.seed() != 0 ? run_.seed() : FreshSeed();
  v1::JobResult* result = out_.mutable_result();
  result->set_seed(seed_);
  if (env_.gpu != nullptr) result->set_gpu(env_.gpu->info.name());
  if (absl::Status status = Execute(); !status.ok()) {
    const ErrorInfo info = DescribeError(status);
    decision_.Faulted(FaultOf(info));
    sticky_ = info.sticky;
    spdlog::info("job {}: {} {}", run_.job_id(), VerdictName(info.verdict), kjudge::CapText(info.message, 512));
  }
  if (process_ != nullptr) {
    CandidateOutput printed = process_->Finish();
    result->set_candidate_output(std::move(printed.text));
    result->set_candidate_output_cut(printed.cut);
    process_.reset();
    Mark("candidate finish");
  }
  if (FullJob()) spdlog::info("job {} phases (ms): {}", run_.job_id(), phases_);
  // A baselines-only job had no candidate: it starts none for the next job either.
  if (FullJob() && !run_.baselines_only() && env_.candidates != nullptr) env_.candidates->Warm();
  result->set_run_ms(std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count());
  return out_;
}

void VerdictProtocol::Mark(const char* phase) {
  const auto now = std::chrono::steady_clock::now();
  Append(&phases_, phases_.empty() ? "" : ", ", phase, " ",
         static_cast<int64_t>(std::chrono::duration<double, std::milli>(now - last_mark_).count()));
  last_mark_ = now;
}

absl::StatusOr<InputSecret> VerdictProtocol::DrawInputSecret(const std::string& set,
                                                              const Shape& shape,
                                                              InputRegime regime) {
  absl::StatusOr<SecretKey> key = SecretKey::Draw();
  KJ_RETURN_IF_ERROR(AsInternal(key.status(), "drawing an input key"));
  v1::JobResult* result = out_.mutable_result();
  if (result->input_keys_size() < static_cast<int>(kMaxReportedInputKeys)) {
    v1::InputKey* reported = result->add_input_keys();
    reported->set_set(set);
    reported->set_shape(shape.Label());
    reported->set_key_hex(key->Hex());
    reported->set_regime(std::string(RegimeName(regime)));
  } else {
    result->set_input_keys_cut(result->input_keys_cut() + 1);
  }
  return InputSecret{*key, regime};
}

absl::StatusOr<InputRegime> VerdictProtocol::AnyRegime() const {
  absl::StatusOr<InputRegime> regime = DrawRegime(setup_.spec.DrawableRegimes());
  KJ_RETURN_IF_ERROR(AsInternal(regime.status(), "drawing an input regime"));
  return *regime;
}

absl::StatusOr<InputRegime> VerdictProtocol::NextSampleRegime(size_t i) {
  // "zeros" is never timed (regime_deck.h: the re-check checks it at the bench shape).
  auto deck = sample_decks_.try_emplace(i, TimedRegimes(setup_.spec.DrawableRegimes())).first;
  absl::StatusOr<InputRegime> regime = deck->second.Next();
  KJ_RETURN_IF_ERROR(AsInternal(regime.status(), "drawing a timed sample's input regime"));
  return *regime;
}

absl::Status VerdictProtocol::Execute() {
  // The canaries come from a key of their own: a kernel that reads the guard bytes around its
  // buffers learns nothing about its inputs, nor the guard bytes it has not read.
  absl::StatusOr<SecretKey> guard_key = SecretKey::Draw();
  KJ_RETURN_IF_ERROR(AsInternal(guard_key.status(), "drawing the guard key"));
  guards_ = GuardPattern(*guard_key);
  if (run_.baselines_only()) return BaselinesOnlyJob();  // verdict_baselines.cc
  progress_(v1::STAGE_COMPILING, 0, FullJob() ? 2 : 1);
  KJ_ASSIGN_OR_RETURN(setup_, SetUpJob(run_));
  KJ_RETURN_IF_ERROR(CompileCandidate());
  Mark("compile");
  if (!FullJob()) {
    decision_.Compiled(env_.gpu != nullptr ? env_.gpu->info.arch() : "?",
                       setup_.candidate_names.size(), run_.compile_only());
    return absl::OkStatus();
  }
  progress_(v1::STAGE_COMPILING, 1, 2);
  if (OracleProblem()) {
    KJ_RETURN_IF_ERROR(Oracle(env_.oracle).status());  // none here: INTERNAL_ERROR at once
    BeginCompileOracle();
  } else {
    KJ_RETURN_IF_ERROR(CompileReference());
  }
  Mark("reference compile");
  KJ_RETURN_IF_ERROR(RunReferences());
  Mark("reference runs");
  KJ_RETURN_IF_ERROR(CheckCandidate());
  Mark("candidate checks");
  if (decision_.decided()) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(TimeBenchShapes());
  Mark("timing, rest");
  if (decision_.decided()) return absl::OkStatus();
  decision_.Correct(SpeedupBaselines());
  return absl::OkStatus();
}

absl::Status VerdictProtocol::CheckCandidate() {
  KJ_RETURN_IF_ERROR(LoadCandidate());
  const size_t n = setup_.spec.test_shapes.size();
  for (size_t i = 0; i < n; ++i) {
    progress_(v1::STAGE_CHECKING, static_cast<int>(n + i), static_cast<int>(2 * n));
    absl::Status checked = CheckShape(i);
    if (!checked.ok() && DescribeError(checked).cuda_error.find("IllegalAddress") !=
                             std::string::npos) {
      // Inputs are mapped read-only, so a kernel that writes one faults like any wild write.
      // Which of the two it was is told by running it once more with writable inputs.
      checked = DiagnoseFault(i, checked);
    }
    // A fault ends the job here, over any failure of an earlier shape (verdict_decision.h).
    KJ_RETURN_IF_ERROR(
        WithContext(checked, Cat("candidate on test shape ", setup_.spec.test_shapes[i].Label())));
  }
  decision_.TestShapesDone();
  return absl::OkStatus();
}

absl::Status VerdictProtocol::TimeBenchShapes() {
  const auto& shapes = setup_.spec.bench_shapes;
  baselines_total_ += MissingBaselineCount();
  decision_.BenchFlags(MeasuredBenchFacts());
  for (size_t i = 0; i < shapes.size(); ++i) {
    progress_(v1::STAGE_TIMING, static_cast<int>(i), static_cast<int>(shapes.size()));
    KJ_RETURN_IF_ERROR(WithContext(TimeShape(i), Cat("bench shape ", shapes[i].Label())));
    if (decision_.decided()) break;
  }
  return absl::OkStatus();
}

absl::Status VerdictProtocol::TimeShape(size_t i) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  KJ_ASSIGN_OR_RETURN(int count, InputSetsThatFit(shape));
  std::vector<BenchSet> sets;
  std::vector<int> ids;
  for (int k = 0; k < count; ++k) {
    KJ_ASSIGN_OR_RETURN(BenchSet set, MakeBenchSet(i, k));
    ids.push_back(set.id);
    sets.push_back(std::move(set));
  }
  Mark("bench sets");
  // Fresh inputs and their expected outputs before, and a check after, EVERY timed sample: a
  // kernel that caches or replays a result can never be paid for it, and one that skips work
  // (every k-th launch, after some time) is caught in the act.
  std::optional<v1::TestOutcome> failure;
  SampleHooks hooks;
  hooks.before = [&](size_t k) { return PrepareSample(i, sets[k]); };
  hooks.after = [&](size_t k, int64_t sample) -> absl::StatusOr<bool> {
    KJ_ASSIGN_OR_RETURN(failure, CompareOnDevice(shape, sets[k].tensors, sets[k].expected,
                                                 Cat("timed sample ", sample + 1, " (input set ",
                                                     k + 1, " of ", sets.size(),
                                                     RegimeNote(sets[k].input.regime), ")")));
    return !failure.has_value();
  };
  CandidateSamples samples(*process_, ids);
  // The next job's candidate starts now and initialises the driver while this one is timed
  // (harmless to timings: CandidateLauncher); it creates its context only when warmed below.
  if (env_.candidates != nullptr) env_.candidates->Prestart();
  KJ_ASSIGN_OR_RETURN(TimingResult timing, TimeSamples(samples, env_.timing, &hooks));
  Mark("timed samples");
  // The last timed run of this job is over when this was the last shape and no baseline is
  // left to measure: the next candidate creates its context now, so that (~100 ms) overlaps
  // this job's closing checks instead of lying on the next job's path (with the next job
  // compiled ahead, nothing else would hide it). Never earlier: a context being created in
  // another process disturbs the GPU, so it must not overlap a timed run.
  if (i + 1 == setup_.spec.bench_shapes.size() && baselines_total_ == 0 && env_.candidates != nullptr) {
    env_.candidates->Warm();
  }
  spdlog::info("{}: {} samples ({} throttled, {} checked, {} input sets), median {:.3f} us, "
               "stop: {}; ms: warm-up {:.0f}, inputs+expected {:.0f}, samples {:.0f}, checks {:.0f}",
               shape.Label(), timing.summary.count, timing.throttled, timing.checked,
               timing.input_sets, timing.summary.median, StopReasonName(timing.reason),
               timing.warmup_ms, timing.before_ms, timing.sample_ms, timing.after_ms);
  // Before the verdict of an aborted timing: an out-of-bounds write is the graver finding.
  for (size_t k = 0; k < sets.size(); ++k) {
    KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(sets[k].tensors, sets[k].scratch),
                                   Cat("during the timed runs (input set ", k + 1, " of ",
                                       sets.size(), ")")));
  }
  if (timing.aborted) {
    decision_.FailedSample(shape.Label(), *std::move(failure));
    return absl::OkStatus();
  }
  for (size_t k = 0; k < sets.size(); ++k) {
    KJ_ASSIGN_OR_RETURN(std::string modified,
                        ModifiedInputs(shape, sets[k].tensors, sets[k].input));
    if (!modified.empty()) {
      decision_.InputsModifiedWhileTimed(shape.Label(), modified, k + 1);
      return absl::OkStatus();
    }
  }
  Mark("input checks");
  const double floor_us = FloorUs(setup_.spec, shape, MeasuredCeilings());
  decision_.Timing(MeasuredTimingFacts(shape, timing, floor_us));
  if (decision_.decided()) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(RecheckAfterTiming(i, sets.front()));
  Mark("re-check");
  if (decision_.decided()) return absl::OkStatus();
  for (size_t k = 1; k < sets.size(); ++k) KJ_RETURN_IF_ERROR(process_->Release(sets[k].id));
  sets.erase(sets.begin() + 1, sets.end());  // give the memory back before the baselines
  KJ_RETURN_IF_ERROR(MeasureBaselines(i, sets.front().tensors, floor_us));
  Mark("baselines");
  return absl::OkStatus();
}

}  // namespace kjudge::runner
