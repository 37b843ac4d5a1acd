#include "worker/runner/verdict_protocol.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include <spdlog/spdlog.h>

#include "worker/runner/str_util.h"
#include "absl/strings/str_format.h"
#include "common/output_comparison.h"
#include "worker/runner/host_values.h"
#include "worker/runner/result_proto.h"
#include "worker/runner/runner_error.h"

namespace kjudge::runner {
namespace {

constexpr uint64_t kTestStream = 1;
constexpr uint64_t kBenchStream = 2;
constexpr uint64_t kRecheckStream = 3;
constexpr double kMiB = 1024.0 * 1024.0;

// Failures of trusted code are kjudge's fault: INTERNAL_ERROR, keeping CUDA error and
// stickiness.
absl::Status AsInternal(const absl::Status& status, std::string_view what) {
  if (status.ok()) return status;
  const ErrorInfo info = DescribeError(status);
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat(what, ": ", info.message),
                         info.cuda_error, info.sticky);
}

uint64_t FreshSeed() {
  std::random_device rd;
  return (uint64_t{rd()} << 32U) ^ rd();
}

std::vector<std::vector<double>> Decode(const std::vector<HostTensor>& tensors) {
  std::vector<std::vector<double>> out;
  out.reserve(tensors.size());
  for (const HostTensor& t : tensors) out.push_back(DecodeToDouble(t.dtype, t.bytes, t.count));
  return out;
}

}  // namespace

VerdictProtocol::VerdictProtocol(RunnerEnv env, v1::RunSpec run, ProgressFn progress)
    : env_(env), run_(std::move(run)), progress_(std::move(progress)) {}

bool VerdictProtocol::FullJob() const {
  return !run_.compile_only() && env_.gpu != nullptr && env_.gpu->has_gpu;
}

v1::RunnerResult VerdictProtocol::Run() {
  const auto start = std::chrono::steady_clock::now();
  seed_ = run_.seed() != 0 ? run_.seed() : FreshSeed();
  v1::JobResult* result = out_.mutable_result();
  result->set_seed(seed_);
  if (env_.gpu != nullptr) result->set_gpu(env_.gpu->info.name());
  if (absl::Status status = Execute(); !status.ok()) {
    const ErrorInfo info = DescribeError(status);
    SetError(info, result);
    sticky_ = info.sticky;
    spdlog::info("job {}: {} {}", run_.job_id(), VerdictName(info.verdict), info.message);
  }
  result->set_run_ms(std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count());
  return out_;
}

absl::Status VerdictProtocol::Execute() {
  progress_(v1::STAGE_COMPILING, 0, FullJob() ? 2 : 1);
  KJ_ASSIGN_OR_RETURN(setup_, SetUpJob(run_));
  KJ_RETURN_IF_ERROR(CompileCandidate());
  v1::JobResult* result = out_.mutable_result();
  if (!FullJob()) {
    result->set_verdict(v1::COMPILED);
    result->set_message(Cat(
        "compiled for ", env_.gpu != nullptr ? env_.gpu->info.arch() : "?", " (",
        setup_.candidate_names.size(), " kernel instantiations)",
        run_.compile_only() ? "" : "; no GPU on this runner, so not run"));
    return absl::OkStatus();
  }
  progress_(v1::STAGE_COMPILING, 1, 2);
  KJ_RETURN_IF_ERROR(CompileReference());
  KJ_RETURN_IF_ERROR(RunReferences());
  KJ_RETURN_IF_ERROR(CheckCandidate());
  if (result->verdict() != v1::VERDICT_UNSPECIFIED) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(TimeBenchShapes());
  if (result->verdict() != v1::VERDICT_UNSPECIFIED) return absl::OkStatus();
  AddSpeedups();
  result->set_verdict(v1::CORRECT);
  result->set_message(CorrectMessage());
  return absl::OkStatus();
}

absl::Status VerdictProtocol::CompileCandidate() {
  CompileRequest request{run_.source(), setup_.program_name, env_.gpu->info.arch(),
                         setup_.candidate_names};
  KJ_ASSIGN_OR_RETURN(candidate_, CompileCached(request, *env_.cache));
  v1::JobResult* result = out_.mutable_result();
  result->set_compile_ms(candidate_.compile_ms);
  result->set_cubin_cache_hit(candidate_.cache_hit);
  result->set_compile_log(candidate_.log);
  if (!candidate_.success) return MakeRunnerError(v1::COMPILE_ERROR, candidate_.message);
  return absl::OkStatus();
}

absl::Status VerdictProtocol::CompileReference() {
  const std::string name =
      setup_.spec.reference_source_file.empty() ? "reference.cu" : setup_.spec.reference_source_file;
  CompileRequest request{run_.reference_source(), name, env_.gpu->info.arch(),
                         setup_.reference_names};
  absl::StatusOr<CompileOutcome> outcome = CompileCached(request, *env_.cache);
  KJ_RETURN_IF_ERROR(AsInternal(outcome.status(), "reference compile"));
  if (!outcome->success) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("the problem's reference failed to compile: ",
                                        outcome->message, "\n", outcome->log));
  }
  reference_ = *std::move(outcome);
  return absl::OkStatus();
}

PlanLimits VerdictProtocol::Limits() const {
  PlanLimits limits;
  const cudaDeviceProp& p = env_.gpu->props;
  limits.max_threads_per_block = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) limits.max_grid[i] = p.maxGridSize[i];
  limits.max_shared_optin = p.sharedMemPerBlockOptin;
  return limits;
}

absl::Status VerdictProtocol::RunReferences() {
  KJ_ASSIGN_OR_RETURN(CudaModule module,
                      [&]() -> absl::StatusOr<CudaModule> {
                        absl::StatusOr<CudaModule> m = CudaModule::Load(reference_.program);
                        if (!m.ok()) return AsInternal(m.status(), "loading the reference");
                        return m;
                      }());
  reference_module_.emplace(std::move(module));
  const size_t n = setup_.spec.test_shapes.size();
  for (size_t i = 0; i < n; ++i) {
    progress_(v1::STAGE_CHECKING, static_cast<int>(i), static_cast<int>(2 * n));
    absl::StatusOr<std::vector<std::vector<double>>> outputs = RunReferenceShape(i);
    KJ_RETURN_IF_ERROR(AsInternal(
        outputs.status(),
        Cat("reference on test shape ", setup_.spec.test_shapes[i].Label())));
    reference_outputs_.push_back(*std::move(outputs));
  }
  reference_module_.reset();  // unloaded before the candidate is ever loaded
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<double>>> VerdictProtocol::RunReferenceShape(size_t i) {
  const Shape& shape = setup_.spec.test_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  KJ_ASSIGN_OR_RETURN(TensorSet tensors, TensorSet::Allocate(setup_.spec, shape));
  KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, TrialSeed(seed_, kTestStream, i),
                                            env_.stream));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                            bindings, tensors.pointers(), Limits()));
  KJ_RETURN_IF_ERROR(plan.Launch(env_.stream, /*sync_each=*/true));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));
  KJ_RETURN_IF_ERROR(plan.ScrubScratch(env_.stream));
  KJ_RETURN_IF_ERROR(tensors.Scrub(env_.stream));
  return Decode(outputs);
}

absl::Status VerdictProtocol::LoadCandidate() {
  absl::StatusOr<CudaModule> module = CudaModule::Load(candidate_.program);
  if (!module.ok()) {
    // The cubin is the submission's: a load failure that leaves the context usable is its
    // LAUNCH_ERROR (e.g. a resource the device cannot provide).
    const ErrorInfo info = DescribeError(module.status());
    return MakeRunnerError(info.sticky ? v1::RUNTIME_ERROR : v1::LAUNCH_ERROR,
                           Cat("loading the compiled submission: ", info.message),
                           info.cuda_error, info.sticky);
  }
  candidate_module_.emplace(*std::move(module));
  return absl::OkStatus();
}

absl::Status VerdictProtocol::CheckCandidate() {
  KJ_RETURN_IF_ERROR(LoadCandidate());
  const size_t n = setup_.spec.test_shapes.size();
  v1::Verdict first_failure = v1::VERDICT_UNSPECIFIED;
  for (size_t i = 0; i < n; ++i) {
    progress_(v1::STAGE_CHECKING, static_cast<int>(n + i), static_cast<int>(2 * n));
    v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
    KJ_RETURN_IF_ERROR(WithContext(
        CheckShape(i, &verdict),
        Cat("candidate on test shape ", setup_.spec.test_shapes[i].Label())));
    if (first_failure == v1::VERDICT_UNSPECIFIED) first_failure = verdict;
  }
  if (first_failure != v1::VERDICT_UNSPECIFIED) {
    v1::JobResult* result = out_.mutable_result();
    result->set_verdict(first_failure);
    for (const v1::TestOutcome& t : result->tests()) {
      if (!t.passed()) {
        result->set_message(Cat("test shape ", t.shape(), ": ", t.detail()));
        break;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status VerdictProtocol::CheckShape(size_t i, v1::Verdict* verdict) {
  const Shape& shape = setup_.spec.test_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  KJ_ASSIGN_OR_RETURN(TensorSet tensors, TensorSet::Allocate(setup_.spec, shape));
  KJ_RETURN_IF_ERROR(AsInternal(
      tensors.GenerateInputs(*env_.utilities, TrialSeed(seed_, kTestStream, i), env_.stream),
      "input generation"));
  KJ_ASSIGN_OR_RETURN(std::vector<uint64_t> before,
                      tensors.InputChecksums(*env_.utilities, env_.stream));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.candidate_plan, *candidate_module_, bindings,
                                            tensors.pointers(), Limits()));
  KJ_RETURN_IF_ERROR(plan.Launch(env_.stream, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaDeviceSynchronize(), "device-wide check"));
  KJ_ASSIGN_OR_RETURN(std::vector<uint64_t> after,
                      tensors.InputChecksums(*env_.utilities, env_.stream));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));

  const Tolerance& tol = setup_.spec.tolerance;
  OutputComparator comparator({tol.atol, tol.rtol, tol.rel_l2});
  for (size_t t = 0; t < outputs.size(); ++t) {
    const HostTensor& h = outputs[t];
    comparator.AddTensor(h.name, DecodeToDouble(h.dtype, h.bytes, h.count),
                         reference_outputs_[i][t], PoisonMask(h.dtype, h.bytes, h.count));
  }
  v1::TestOutcome outcome = ToTestOutcome(shape.Label(), comparator.Result());
  const std::vector<std::string> inputs = tensors.InputNames();
  std::string modified;
  for (size_t k = 0; k < before.size(); ++k) {
    if (before[k] != after[k]) Append(&modified, modified.empty() ? "" : ", ", inputs[k]);
  }
  if (!modified.empty()) {
    outcome.set_passed(false);
    outcome.set_detail(Cat("the kernel wrote its input(s) ", modified, ".",
                           outcome.detail().empty() ? "" : " ", outcome.detail()));
    *verdict = v1::INPUT_MODIFIED;
  } else if (outcome.unwritten_count() > 0) {
    *verdict = v1::UNWRITTEN_OUTPUT;
  } else if (!outcome.passed()) {
    *verdict = v1::WRONG_ANSWER;
  }
  *out_.mutable_result()->add_tests() = std::move(outcome);
  return absl::OkStatus();
}

absl::Status VerdictProtocol::TimeBenchShapes() {
  const auto& shapes = setup_.spec.bench_shapes;
  for (const Shape& shape : shapes) {
    if (CachedBaseline(shape.Label(), "reference") == nullptr) ++baselines_total_;
    for (const LibraryBaselineSpec& b : setup_.spec.baselines) {
      if (IsKnownBaselineKind(b.kind) && CachedBaseline(shape.Label(), b.name) == nullptr) {
        ++baselines_total_;
      }
    }
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    progress_(v1::STAGE_TIMING, static_cast<int>(i), static_cast<int>(shapes.size()));
    KJ_RETURN_IF_ERROR(WithContext(TimeShape(i), Cat("bench shape ", shapes[i].Label())));
    if (out_.result().verdict() != v1::VERDICT_UNSPECIFIED) break;
  }
  return absl::OkStatus();
}

absl::StatusOr<SampleSummary> VerdictProtocol::TimePlan(const LaunchPlan& plan, CudaModule& module,
                                                        const Shape& shape, TensorSet& tensors) {
  KJ_ASSIGN_OR_RETURN(PlanExecutor executor,
                      PlanExecutor::Prepare(plan, module, setup_.spec.BindingsFor(shape),
                                            tensors.pointers(), Limits()));
  const RunFn run = [&executor](cudaStream_t s) { return executor.Launch(s, false); };
  KJ_ASSIGN_OR_RETURN(TimingResult timing, TimeRuns(run, env_.stream, *env_.flusher, env_.timing));
  spdlog::info("{}: {} samples, median {:.3f} us, stop: {}", shape.Label(), timing.summary.count,
               timing.summary.median, StopReasonName(timing.reason));
  return timing.summary;
}

absl::Status VerdictProtocol::TimeShape(size_t i) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  KJ_ASSIGN_OR_RETURN(size_t tensor_bytes, TensorSet::BytesNeeded(setup_.spec, shape));
  KJ_ASSIGN_OR_RETURN(size_t scratch_bytes,
                      ScratchBytes(setup_.candidate_plan, setup_.spec.BindingsFor(shape)));
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  if (tensor_bytes + scratch_bytes > free_bytes) {
    return MakeRunnerError(
        v1::REJECTED,
        absl::StrFormat("needs %.1f MiB of device memory (tensors %.1f MiB + scratch %.1f MiB) "
                        "but only %.1f MiB are free",
                        static_cast<double>(tensor_bytes + scratch_bytes) / kMiB,
                        static_cast<double>(tensor_bytes) / kMiB,
                        static_cast<double>(scratch_bytes) / kMiB,
                        static_cast<double>(free_bytes) / kMiB));
  }
  KJ_ASSIGN_OR_RETURN(TensorSet tensors, TensorSet::Allocate(setup_.spec, shape));
  KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, TrialSeed(seed_, kBenchStream, i),
                                            env_.stream));
  KJ_ASSIGN_OR_RETURN(SampleSummary summary,
                      TimePlan(setup_.candidate_plan, *candidate_module_, shape, tensors));
  candidate_median_[shape.Label()] = summary.median;
  v1::ShapeTiming* timing = out_.mutable_result()->add_timings();
  timing->set_shape(shape.Label());
  *timing->mutable_timing() = ToTimingProto(summary);
  KJ_RETURN_IF_ERROR(RecheckBenchShape(i, tensors));
  if (out_.result().verdict() != v1::VERDICT_UNSPECIFIED) return absl::OkStatus();
  return MeasureBaselines(i, tensors);
}

absl::StatusOr<bool> VerdictProtocol::RecheckFits(const Shape& shape) const {
  KJ_ASSIGN_OR_RETURN(size_t output_bytes, TensorSet::OutputBytes(setup_.spec, shape));
  KJ_ASSIGN_OR_RETURN(size_t ref_scratch,
                      ScratchBytes(setup_.spec.reference_plan, setup_.spec.BindingsFor(shape)));
  KJ_ASSIGN_OR_RETURN(size_t cand_scratch,
                      ScratchBytes(setup_.candidate_plan, setup_.spec.BindingsFor(shape)));
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  return output_bytes + ref_scratch + cand_scratch <= free_bytes;
}

absl::Status VerdictProtocol::RecheckBenchShape(size_t i, TensorSet& tensors) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  KJ_ASSIGN_OR_RETURN(bool fits, RecheckFits(shape));
  if (!fits) {
    spdlog::warn("{}: not enough free device memory to re-check outputs after timing",
                 shape.Label());
    return absl::OkStatus();
  }
  // Fresh inputs at the same addresses and poisoned outputs: a kernel that replays or caches
  // results from the timed runs leaves stale or unwritten outputs.
  KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities,
                                            TrialSeed(seed_, kRecheckStream, i), env_.stream));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  {
    KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                        PlanExecutor::Prepare(setup_.candidate_plan, *candidate_module_,
                                              setup_.spec.BindingsFor(shape), tensors.pointers(),
                                              Limits()));
    KJ_RETURN_IF_ERROR(plan.Launch(env_.stream, /*sync_each=*/true));
  }
  KJ_ASSIGN_OR_RETURN(TensorSet expected, TensorSet::AllocateOutputs(setup_.spec, shape));
  KJ_RETURN_IF_ERROR(AsInternal(RunReferenceInto(shape, tensors, expected),
                                "reference on the bench shape"));
  return JudgeRecheck(shape, tensors, expected);
}

absl::Status VerdictProtocol::RunReferenceInto(const Shape& shape, const TensorSet& inputs,
                                               const TensorSet& outputs) {
  KJ_RETURN_IF_ERROR(EnsureReferenceModule());
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                            setup_.spec.BindingsFor(shape),
                                            inputs.PointersWithOutputsOf(outputs), Limits()));
  return plan.Launch(env_.stream, /*sync_each=*/true);
}

absl::Status VerdictProtocol::JudgeRecheck(const Shape& shape, const TensorSet& actual,
                                           const TensorSet& expected) {
  const Tolerance& tol = setup_.spec.tolerance;
  const std::vector<TensorSet::OutputView> got = actual.Outputs();
  const std::vector<TensorSet::OutputView> want = expected.Outputs();
  v1::TestOutcome outcome;
  outcome.set_shape(shape.Label());
  outcome.set_passed(true);
  for (size_t t = 0; t < got.size(); ++t) {
    KJ_ASSIGN_OR_RETURN(DeviceComparison c,
                        env_.utilities->Compare(got[t].ptr, want[t].ptr, got[t].dtype,
                                                got[t].count, tol.atol, tol.rtol, env_.stream));
    const double rel_l2 = c.ref_sq > 0.0 ? std::sqrt(c.diff_sq / c.ref_sq)
                                         : std::sqrt(c.diff_sq / static_cast<double>(got[t].count));
    const bool l2_ok = c.ref_sq > 0.0 ? rel_l2 <= tol.rel_l2 : rel_l2 <= tol.atol;
    outcome.set_max_abs_error(std::max(outcome.max_abs_error(), c.max_abs_error));
    outcome.set_rel_l2_error(std::max(outcome.rel_l2_error(), rel_l2));
    outcome.set_mismatch_count(outcome.mismatch_count() + c.mismatches);
    outcome.set_unwritten_count(outcome.unwritten_count() + c.unwritten);
    if (c.mismatches == 0 && c.unwritten == 0 && l2_ok) continue;
    outcome.set_passed(false);
    outcome.set_detail(Cat(outcome.detail(), outcome.detail().empty() ? "" : " ", got[t].name,
                           ": after timing, on fresh inputs: ", c.unwritten,
                           " elements unwritten, ", c.mismatches,
                           " outside tolerance, relative L2 error ", rel_l2,
                           c.first_bad >= 0 ? Cat(" (first bad flat index ", c.first_bad, ")")
                                            : std::string(),
                           "."));
  }
  if (outcome.passed()) return absl::OkStatus();
  v1::JobResult* result = out_.mutable_result();
  // Unwritten outputs on a re-run mean results replayed from earlier runs: suspicious.
  result->set_verdict(outcome.unwritten_count() > 0 ? v1::SUSPICIOUS : v1::WRONG_ANSWER);
  result->set_message(Cat("bench shape ", shape.Label(), ": ", outcome.detail()));
  *result->add_tests() = std::move(outcome);
  return absl::OkStatus();
}

const v1::BaselineTiming* VerdictProtocol::CachedBaseline(const std::string& shape,
                                                          const std::string& name) const {
  for (const v1::BaselineTiming& b : run_.cached_baselines()) {
    if (b.problem() == run_.problem() && b.shape() == shape && b.name() == name) return &b;
  }
  return nullptr;
}

absl::Status VerdictProtocol::EnsureReferenceModule() {
  if (reference_module_.has_value()) return absl::OkStatus();
  absl::StatusOr<CudaModule> m = CudaModule::Load(reference_.program);
  if (!m.ok()) return AsInternal(m.status(), "loading the reference");
  reference_module_.emplace(*std::move(m));
  return absl::OkStatus();
}

absl::Status VerdictProtocol::MeasureBaselines(size_t i, TensorSet& tensors) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  std::vector<std::pair<std::string, std::function<absl::StatusOr<SampleSummary>()>>> todo;
  if (CachedBaseline(shape.Label(), "reference") == nullptr) {
    todo.emplace_back("reference", [&]() -> absl::StatusOr<SampleSummary> {
      KJ_RETURN_IF_ERROR(EnsureReferenceModule());
      return TimePlan(setup_.spec.reference_plan, *reference_module_, shape, tensors);
    });
  }
  for (const LibraryBaselineSpec& b : setup_.spec.baselines) {
    if (!IsKnownBaselineKind(b.kind) || CachedBaseline(shape.Label(), b.name) != nullptr) continue;
    todo.emplace_back(b.name, [&, &b = b]() -> absl::StatusOr<SampleSummary> {
      KJ_ASSIGN_OR_RETURN(RunFn run, MakeLibraryBaseline(b, setup_.spec, bindings,
                                                         tensors.pointers(), *env_.cublas));
      KJ_ASSIGN_OR_RETURN(TimingResult t, TimeRuns(run, env_.stream, *env_.flusher, env_.timing));
      return t.summary;
    });
  }
  for (auto& [name, measure] : todo) {
    progress_(v1::STAGE_BASELINE, baselines_done_++, baselines_total_);
    // Fresh inputs: the candidate's timed runs may have written them.
    KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, TrialSeed(seed_, kBenchStream, i),
                                              env_.stream));
    absl::StatusOr<SampleSummary> summary = measure();
    if (!summary.ok()) {
      absl::Status err = AsInternal(summary.status(), Cat("baseline ", name));
      if (DescribeError(err).sticky) return err;
      spdlog::warn("{} at {}: {}", name, shape.Label(), err.ToString());
      continue;
    }
    v1::BaselineTiming* b = out_.add_new_baselines();
    b->set_problem(run_.problem());
    b->set_shape(shape.Label());
    b->set_name(name);
    *b->mutable_timing() = ToTimingProto(*summary);
    b->set_hardware_key(HardwareKey(env_.gpu->info));
  }
  return absl::OkStatus();
}

void VerdictProtocol::AddSpeedups() {
  v1::JobResult* result = out_.mutable_result();
  auto add = [&](const v1::BaselineTiming& b) {
    auto it = candidate_median_.find(b.shape());
    if (it == candidate_median_.end() || it->second <= 0.0) return;
    v1::Speedup* s = result->add_speedups();
    s->set_shape(b.shape());
    s->set_baseline(b.name());
    s->set_speedup(b.timing().median_us() / it->second);
  };
  for (const v1::BaselineTiming& b : run_.cached_baselines()) {
    if (b.problem() == run_.problem()) add(b);
  }
  for (const v1::BaselineTiming& b : out_.new_baselines()) add(b);
}

std::string VerdictProtocol::CorrectMessage() const {
  const v1::JobResult& r = out_.result();
  std::string msg = Cat("correct on ", r.tests_size(), " test shapes");
  for (const v1::ShapeTiming& t : r.timings()) {
    Append(&msg, absl::StrFormat("; %s: median %.2f us", t.shape(), t.timing().median_us()));
    for (const v1::Speedup& s : r.speedups()) {
      if (s.shape() == t.shape()) {
        Append(&msg, absl::StrFormat(", %.2fx %s", s.speedup(), s.baseline()));
      }
    }
  }
  return msg;
}

}  // namespace kjudge::runner
