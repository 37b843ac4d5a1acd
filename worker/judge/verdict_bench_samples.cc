// Bench sets and timed samples: how many input sets fit, making and binding them, fresh inputs
// and expected outputs before every timed sample (from a library baseline that agreed with the
// reference, else the reference), and the device-side comparison after it (the host's rules,
// degenerate outputs included); a failed sample goes to VerdictDecision::FailedSample.
#include "worker/judge/verdict_protocol.h"

#include <cmath>
#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_format.h"
#include "common/output_comparison.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {

using namespace verdict_detail;  // the protocol's own constants and helpers

namespace {

// then the degenerate-output rule of common/output_comparison.h on the device's summary
// statistics (only when every element was written and finite, as on the host).
std::string DeviceTensorFailure(const std::string& name, const std::string& when,
                                const DeviceComparison& c, const Tolerance& tol, const L2Check& l2) {
  std::string failure;
  if (c.mismatches != 0 || c.unwritten != 0 || !l2.ok) {
    failure = Cat(name, ": ", when, ": ", c.unwritten, " elements unwritten, ", c.mismatches,
                  " outside tolerance (", c.nonfinite, " non-finite), relative L2 error ", l2.error,
                  c.first_bad >= 0 ? Cat(" (first bad flat index ", c.first_bad, ")")
                                   : std::string(),
                  ".");
  }
  if (c.unwritten != 0 || c.nonfinite != 0) return failure;
  const DegenerateRule rule =
      ClassifyDegenerate(c.spread, ComparisonTolerance{tol.atol, tol.rtol, tol.rel_l2});
  if (rule == DegenerateRule::kNone) return failure;
  return Cat(failure, failure.empty() ? "" : " ", name, ": ", when, ": ",
             DescribeDegenerate(rule, c.spread));
}

}  // namespace

absl::StatusOr<int> VerdictProtocol::InputSetsThatFit(const Shape& shape) const {
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  KJ_ASSIGN_OR_RETURN(size_t tensor_bytes, TensorSet::BytesNeeded(setup_.spec, shape));
  KJ_ASSIGN_OR_RETURN(size_t output_bytes, TensorSet::OutputBytes(setup_.spec, shape));
  KJ_ASSIGN_OR_RETURN(size_t cand_scratch, ScratchBytes(setup_.candidate_plan, bindings));
  // An oracle problem has no reference plan; the oracle's own device memory (torch's copies of
  // the inputs and outputs at its precision: estimated as 2x the tensors for f64, 1x for f32,
  // intermediates not counted) stands in for the reference's scratch.
  size_t ref_scratch = 0;
  if (OracleProblem()) {
    const ModuleBinding& m = *setup_.spec.module;  // set: OracleProblem()
    const std::string& precision = m.bench_precision.empty() ? m.precision : m.bench_precision;
    ref_scratch = (precision == "f32" ? 1 : 2) * tensor_bytes;
  } else {
    KJ_ASSIGN_OR_RETURN(ref_scratch, ScratchBytes(setup_.spec.reference_plan, bindings));
  }
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  // 10% of the free memory stays free for library workspaces and the driver.
  const double usable = 0.9 * static_cast<double>(free_bytes);
  const auto per_set = static_cast<double>(tensor_bytes) + static_cast<double>(output_bytes) +
                       static_cast<double>(cand_scratch);
  int sets = 0;
  // Once per shape: the judge's private copy of one set's inputs (the byte-for-byte check).
  const double pristine = static_cast<double>(tensor_bytes) - static_cast<double>(output_bytes);
  while (sets < kMaxInputSets &&
         static_cast<double>(ref_scratch) + pristine + (sets + 1) * per_set <= usable) {
    ++sets;
  }
  if (sets == 0) {
    return MakeRunnerError(
        v1::REJECTED,
        absl::StrFormat("needs %.1f MiB of device memory to time with checked outputs "
                        "(tensors %.1f MiB + scratch %.1f MiB + a reference copy of the outputs "
                        "%.1f MiB + %s %.1f MiB) but only %.1f MiB are usable "
                        "(90%% of %.1f MiB free)",
                        (static_cast<double>(ref_scratch) + per_set) / kMiB,
                        static_cast<double>(tensor_bytes) / kMiB,
                        static_cast<double>(cand_scratch) / kMiB,
                        static_cast<double>(output_bytes) / kMiB,
                        OracleProblem() ? "the PyTorch oracle's copies (estimate)"
                                        : "reference scratch",
                        static_cast<double>(ref_scratch) / kMiB, usable / kMiB,
                        static_cast<double>(free_bytes) / kMiB));
  }
  return sets;
}

absl::StatusOr<VerdictProtocol::BenchSet> VerdictProtocol::MakeBenchSet(size_t i, int k) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  BenchSet set;
  set.id = next_set_++;
  KJ_ASSIGN_OR_RETURN(set.tensors,
                      TensorSet::AllocateShared(setup_.spec, shape, guards_, env_.device));
  KJ_ASSIGN_OR_RETURN(set.expected, AllocateExpected(shape));
  KJ_ASSIGN_OR_RETURN(set.scratch,
                      ScratchSet::Allocate(setup_.candidate_plan, setup_.spec.BindingsFor(shape),
                                           guards_, env_.device));
  // Inputs for the warm-up runs; every timed sample draws its own (PrepareSample).
  KJ_ASSIGN_OR_RETURN(InputRegime regime, AnyRegime());
  KJ_ASSIGN_OR_RETURN(set.input,
                      DrawInputSecret(Cat("bench ", i, " set ", k, " warm-up"), shape, regime));
  KJ_RETURN_IF_ERROR(AsInternal(
      set.tensors.GenerateInputs(*env_.utilities, set.input, env_.stream),
      "input generation"));
  if (run_.baselines_only()) return set;  // no candidate to bind it to
  KJ_RETURN_IF_ERROR(BindSet(set.id, true, i, set.tensors, set.scratch));
  return set;
}

absl::Status VerdictProtocol::PrepareSample(size_t i, BenchSet& set) {
  KJ_ASSIGN_OR_RETURN(InputRegime regime, NextSampleRegime(i));
  KJ_ASSIGN_OR_RETURN(set.input, DrawInputSecret(Cat("bench ", i, " sample ", samples_drawn_++),
                                                 setup_.spec.bench_shapes[i], regime));
  KJ_RETURN_IF_ERROR(AsInternal(
      set.tensors.GenerateInputs(*env_.utilities, set.input, env_.stream),
      "input generation"));
  KJ_RETURN_IF_ERROR(AsInternal(RunExpected(i, set.tensors, set.expected),
                                "expected outputs on the bench shape"));
  return set.tensors.PoisonOutputs(*env_.utilities, env_.stream);
}

const LibraryBaselineSpec* VerdictProtocol::FullLibraryBaseline() const {
  for (const LibraryBaselineSpec& b : setup_.spec.baselines) {
    if (IsKnownBaselineKind(b.kind) && !IsPartialBaseline(b)) return &b;
  }
  return nullptr;
}

absl::Status VerdictProtocol::RunExpected(size_t i, const TensorSet& inputs,
                                          const TensorSet& expected) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  const LibraryBaselineSpec* library = FullLibraryBaseline();
  auto known = library_oracle_ok_.find(i);
  if (library == nullptr || (known != library_oracle_ok_.end() && !known->second)) {
    return RunReferenceInto(shape, inputs, expected);
  }
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  KJ_ASSIGN_OR_RETURN(RunFn run, MakeLibraryBaseline(*library, setup_.spec, bindings,
                                                     inputs.PointersWithOutputsOf(expected),
                                                     *env_.libraries));
  KJ_RETURN_IF_ERROR(run(env_.stream));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(env_.stream), "library expected outputs"));
  if (known != library_oracle_ok_.end()) return absl::OkStatus();
  // First use on this shape in this job: the library must agree with the trusted reference,
  // or the reference computes every sample's expected outputs.
  KJ_ASSIGN_OR_RETURN(TensorSet check, AllocateExpected(shape));
  KJ_RETURN_IF_ERROR(RunReferenceInto(shape, inputs, check));
  KJ_ASSIGN_OR_RETURN(std::optional<v1::TestOutcome> bad,
                      CompareOnDevice(shape, expected, check, "library oracle vs reference"));
  library_oracle_ok_[i] = !bad.has_value();
  if (bad.has_value()) {
    spdlog::warn("{}: {} disagrees with the reference, which checks the samples instead: {}",
                 shape.Label(), library->name, bad->detail());
    return RunReferenceInto(shape, inputs, expected);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::TestOutcome>> VerdictProtocol::CompareOnDevice(
    const Shape& shape, const TensorSet& actual, const TensorSet& expected,
    const std::string& when) {
  const Tolerance& tol = setup_.spec.tolerance;
  const std::vector<TensorSet::OutputView> got = actual.Outputs();
  const std::vector<TensorSet::OutputView> want = expected.Outputs();
  v1::TestOutcome outcome;
  outcome.set_shape(shape.Label());
  outcome.set_passed(true);
  for (size_t t = 0; t < got.size(); ++t) {
    KJ_ASSIGN_OR_RETURN(DeviceComparison c,
                        env_.utilities->Compare(got[t].ptr, want[t].ptr, got[t].dtype,
                                                got[t].count, tol.atol, tol.rtol, got[t].poison,
                                                env_.stream));
    // The host rule on the device's sums, over the elements written and finite in both (as
    // the host comparator counts them).
    const L2Check l2 = CheckRelativeL2(c.diff_sq, c.ref_sq, c.spread.count,
                                       ComparisonTolerance{tol.atol, tol.rtol, tol.rel_l2});
    outcome.set_max_abs_error(std::max(outcome.max_abs_error(), c.max_abs_error));
    outcome.set_rel_l2_error(std::max(outcome.rel_l2_error(), l2.error));
    outcome.set_mismatch_count(outcome.mismatch_count() + c.mismatches);
    outcome.set_unwritten_count(outcome.unwritten_count() + c.unwritten);
    const std::string failure = DeviceTensorFailure(got[t].name, when, c, tol, l2);
    if (failure.empty()) continue;
    outcome.set_passed(false);
    outcome.set_detail(Cat(outcome.detail(), outcome.detail().empty() ? "" : " ", failure));
  }
  if (outcome.passed()) return std::optional<v1::TestOutcome>();
  return std::optional<v1::TestOutcome>(std::move(outcome));
}

}  // namespace kjudge::runner
