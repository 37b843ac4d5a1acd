// Baseline measurement: the baselines missing from RunSpec.cached_baselines ("reference" and the
// problem's library baselines) timed on a bench shape's first input set and returned in
// new_baselines; a library baseline that computes the whole problem is dropped when its output
// disagrees with the reference. A baselines-only job (no candidate) is this step alone, on a
// bench set made for it.
#include "worker/judge/verdict_protocol.h"

#include <functional>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "absl/strings/str_format.h"
#include "common/oracle_baselines.h"
#include "proto/hardware_key.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {

using namespace verdict_detail;  // the protocol's own constants and helpers

const v1::BaselineTiming* VerdictProtocol::CachedBaseline(const std::string& shape,
                                                          const std::string& name) const {
  for (const v1::BaselineTiming& b : run_.cached_baselines()) {
    if (b.problem() == run_.problem() && b.shape() == shape && b.name() == name) return &b;
  }
  return nullptr;
}

int VerdictProtocol::MissingBaselineCount() const {
  int missing = 0;
  for (const Shape& shape : setup_.spec.bench_shapes) missing += MissingBaselinesAt(shape);
  return missing;
}

int VerdictProtocol::MissingBaselinesAt(const Shape& shape) const {
  int missing = 0;
  if (!OracleProblem() && CachedBaseline(shape.Label(), "reference") == nullptr) ++missing;
  missing += static_cast<int>(MissingOracleBaselines(shape).size());
  for (const LibraryBaselineSpec& b : setup_.spec.baselines) {
    if (IsKnownBaselineKind(b.kind) && CachedBaseline(shape.Label(), b.name) == nullptr) ++missing;
  }
  return missing;
}

absl::Status VerdictProtocol::BaselinesOnlyJob() {
  if (!FullJob()) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           "a baselines-only job needs a GPU runner; this one has no GPU");
  }
  progress_(v1::STAGE_COMPILING, 0, 1);
  KJ_ASSIGN_OR_RETURN(setup_, SetUpJob(run_));
  if (OracleProblem()) {
    KJ_RETURN_IF_ERROR(Oracle(env_.oracle).status());  // none here: INTERNAL_ERROR at once
  } else {
    KJ_RETURN_IF_ERROR(CompileReference());
  }
  BeginCompileOracle();  // torch.compile starts now; a later job times it
  Mark("reference compile");
  baselines_total_ = MissingBaselineCount();
  decision_.BenchFlags(MeasuredBenchFacts());
  for (size_t i = 0; i < setup_.spec.bench_shapes.size(); ++i) {
    const Shape& shape = setup_.spec.bench_shapes[i];
    if (MissingBaselinesAt(shape) == 0) continue;
    KJ_RETURN_IF_ERROR(WithContext(MeasureShapeBaselines(i), Cat("bench shape ", shape.Label())));
  }
  Mark("baselines");
  std::vector<const v1::BaselineTiming*> measured;
  for (const v1::BaselineTiming& b : out_.new_baselines()) measured.push_back(&b);
  decision_.BaselinesMeasured(run_.problem(), measured, baselines_not_measured_);
  return absl::OkStatus();
}

absl::Status VerdictProtocol::MeasureShapeBaselines(size_t i) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  // As TimeShape: REJECTED when not even one input set fits; then one set, whose expected
  // outputs are made as before a timed sample (a library that computes the whole problem is
  // checked against the reference here, as in a full job).
  KJ_RETURN_IF_ERROR(InputSetsThatFit(shape).status());
  KJ_ASSIGN_OR_RETURN(BenchSet set, MakeBenchSet(i, 0));
  KJ_RETURN_IF_ERROR(PrepareSample(i, set));
  const double floor_us = FloorUs(setup_.spec, shape, MeasuredCeilings());
  return MeasureBaselines(i, set.tensors, floor_us);
}

absl::Status VerdictProtocol::MeasureBaselines(size_t i, TensorSet& tensors, double floor_us) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  std::vector<std::pair<std::string, std::function<absl::StatusOr<TimingResult>()>>> todo;
  for (const std::string& name : MissingOracleBaselines(shape)) {
    todo.emplace_back(name, [&, name]() -> absl::StatusOr<TimingResult> {
      return TimeOracleBaseline(shape, tensors, std::string(OracleBenchMode(name)));
    });
  }
  if (!OracleProblem() && CachedBaseline(shape.Label(), "reference") == nullptr) {
    todo.emplace_back("reference", [&]() -> absl::StatusOr<TimingResult> {
      KJ_RETURN_IF_ERROR(EnsureReferenceModule());
      KJ_ASSIGN_OR_RETURN(PlanExecutor executor,
                          PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                                bindings, tensors.pointers(), Limits(),
                                                guards_));
      const RunFn run = [&executor](cudaStream_t s) { return executor.Launch(s, false); };
      return TimeRuns(run, env_.stream, *env_.flusher, env_.timing);
    });
  }
  for (const LibraryBaselineSpec& b : setup_.spec.baselines) {
    if (!IsKnownBaselineKind(b.kind) || CachedBaseline(shape.Label(), b.name) != nullptr) continue;
    todo.emplace_back(b.name, [&, &b = b]() -> absl::StatusOr<TimingResult> {
      KJ_ASSIGN_OR_RETURN(RunFn run, MakeLibraryBaseline(b, setup_.spec, bindings,
                                                         tensors.pointers(), *env_.libraries));
      KJ_ASSIGN_OR_RETURN(TimingResult t, TimeRuns(run, env_.stream, *env_.flusher, env_.timing));
      // A baseline that computes the whole problem must agree with the reference.
      if (!IsPartialBaseline(b)) KJ_RETURN_IF_ERROR(CheckBaselineOutputs(shape, tensors));
      return t;
    });
  }
  for (auto& [name, measure] : todo) {
    progress_(v1::STAGE_BASELINE, baselines_done_++, baselines_total_);
    // Fresh inputs: the candidate's timed runs may have written them.
    // Baselines are cached per shape and compared across jobs: always the declared regime.
    KJ_ASSIGN_OR_RETURN(InputSecret input, DrawInputSecret(Cat("bench ", i, " baseline ", name),
                                                           shape, InputRegime::kDeclared));
    KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, input, env_.stream));
    absl::StatusOr<TimingResult> timing = measure();
    if (!timing.ok()) {
      absl::Status err = AsInternal(timing.status(), Cat("baseline ", name));
      if (DescribeError(err).sticky) return err;
      spdlog::warn("{} at {}: {}", name, shape.Label(), err.ToString());
      baselines_not_measured_.push_back(Cat(name, " at ", shape.Label(), ": ", DescribeError(err).message));
      continue;
    }
    spdlog::info("{} baseline {}: {} samples, median {:.3f} us", shape.Label(), name,
                 timing->summary.count, timing->summary.median);
    decision_.SampleFlags(MeasuredSampleFacts(Cat("baseline ", name), shape, *timing));
    v1::BaselineTiming* b = out_.add_new_baselines();
    b->set_problem(run_.problem());
    b->set_shape(shape.Label());
    b->set_name(name);
    *b->mutable_timing() = TimingToProto(*timing, floor_us);
    b->mutable_timing()->clear_samples_us();  // a baseline row keeps its summary only (docs/dashboard.md)
    b->set_hardware_key(HardwareKey(env_.gpu->info));
  }
  return absl::OkStatus();
}

// A library baseline's outputs after its timed runs, against a reference run on the same
// inputs: an error drops the baseline (MeasureBaselines logs it and goes on).
absl::Status VerdictProtocol::CheckBaselineOutputs(const Shape& shape, const TensorSet& tensors) {
  absl::StatusOr<TensorSet> expected = AllocateExpected(shape);
  if (!expected.ok() && DescribeError(expected.status()).verdict == v1::REJECTED) {
    spdlog::warn("{}: no memory to check a library baseline's outputs", shape.Label());
    return absl::OkStatus();
  }
  KJ_RETURN_IF_ERROR(expected.status());
  KJ_RETURN_IF_ERROR(RunReferenceInto(shape, tensors, *expected));
  KJ_ASSIGN_OR_RETURN(std::optional<v1::TestOutcome> bad,
                      CompareOnDevice(shape, tensors, *expected, "library baseline vs reference"));
  if (!bad.has_value()) return absl::OkStatus();
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat("wrong output, dropped: ", bad->detail()));
}

}  // namespace kjudge::runner
