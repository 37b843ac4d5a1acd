#include "worker/runner/verdict_protocol.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_format.h"
#include "common/output_comparison.h"
#include "proto/hardware_key.h"
#include "worker/runner/host_values.h"
#include "worker/runner/result_proto.h"
#include "worker/runner/runner_error.h"
#include "worker/runner/str_util.h"

namespace kjudge::runner {
namespace {

constexpr uint64_t kTestStream = 1;
constexpr uint64_t kBenchStream = 2;
constexpr uint64_t kRecheckStream = 3;
constexpr uint64_t kSampleStream = 4;  // fresh inputs of each timed sample
constexpr double kMiB = 1024.0 * 1024.0;
// Input sets rotated across timed samples. One: every sample draws fresh inputs and poisoned
// outputs and is checked, so a second set buys nothing against caching or replay (a replayed
// result is wrong for the new inputs), and it cost the judge a second allocation, mapping and
// byte-for-byte input check of every tensor (~100 ms a job at 6 GB shapes on an H100).
constexpr int kMaxInputSets = 1;
constexpr double kFloorMargin = 0.9;      // median < 0.9 x floor: SUSPICIOUS
constexpr double kLibrarySpeedupFlag = 10.0;

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

// Every buffer the candidate's plan can reach: its tensors and its scratch.
std::vector<GuardedBuffer> CandidateBuffers(const TensorSet& tensors, const ScratchSet& scratch) {
  std::vector<GuardedBuffer> buffers = tensors.Guards();
  for (GuardedBuffer& b : scratch.Guards()) buffers.push_back(std::move(b));
  return buffers;
}

// Timed samples of the candidate's plan, each run in the candidate process.
class CandidateSamples : public SampleSource {
 public:
  CandidateSamples(CandidateProcess& candidate, std::vector<int> sets)
      : candidate_(candidate), sets_(std::move(sets)) {}
  size_t sets() const override { return sets_.size(); }
  absl::Status WarmUp(size_t set) override { return candidate_.Run(sets_[set], false); }
  absl::StatusOr<RawSample> Sample(size_t set) override { return candidate_.Sample(sets_[set]); }

 private:
  CandidateProcess& candidate_;
  std::vector<int> sets_;
};

std::vector<std::vector<double>> Decode(const std::vector<HostTensor>& tensors) {
  std::vector<std::vector<double>> out;
  out.reserve(tensors.size());
  for (const HostTensor& t : tensors) out.push_back(DecodeToDouble(t.dtype, t.bytes, t.count));
  return out;
}

v1::Timing TimingToProto(const TimingResult& t, double floor_us) {
  v1::Timing p = ToTimingProto(t.summary);
  p.set_throttled_samples(static_cast<int32_t>(t.throttled));
  p.set_sm_clock_mhz(t.mean_sm_clock_mhz);
  p.set_input_sets(t.input_sets);
  p.set_checked_samples(static_cast<int32_t>(t.checked));
  p.set_event_overhead_us(t.event_overhead_us);
  if (floor_us > 0.0 && t.summary.median > 0.0) {
    p.set_floor_us(floor_us);
    p.set_sol_percent(100.0 * floor_us / t.summary.median);
  }
  return p;
}

// Why one output tensor compared on the device failed ("" when it passed): counts and L2,
// then the degenerate-output rule of common/output_comparison.h on the device's summary
// statistics (only when every element was written and finite, as on the host).
std::string DeviceTensorFailure(const std::string& name, const std::string& when,
                                const DeviceComparison& c, const Tolerance& tol, double rel_l2,
                                bool l2_ok) {
  std::string failure;
  if (c.mismatches != 0 || c.unwritten != 0 || !l2_ok) {
    failure = Cat(name, ": ", when, ": ", c.unwritten, " elements unwritten, ", c.mismatches,
                  " outside tolerance (", c.nonfinite, " non-finite), relative L2 error ", rel_l2,
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

VerdictProtocol::VerdictProtocol(RunnerEnv env, v1::RunSpec run, ProgressFn progress)
    : env_(std::move(env)), run_(std::move(run)), progress_(std::move(progress)) {}

bool VerdictProtocol::FullJob() const {
  return !run_.compile_only() && env_.gpu != nullptr && env_.gpu->has_gpu;
}

v1::RunnerResult VerdictProtocol::Run() {
  const auto start = std::chrono::steady_clock::now();
  last_mark_ = start;
  seed_ = run_.seed() != 0 ? run_.seed() : FreshSeed();
  // The canaries come from a secret of their own: a kernel that reads the guard bytes around
  // its buffers learns nothing about the seed of its inputs.
  guards_ = GuardPattern(FreshSeed());
  v1::JobResult* result = out_.mutable_result();
  result->set_seed(seed_);
  if (env_.gpu != nullptr) result->set_gpu(env_.gpu->info.name());
  if (absl::Status status = Execute(); !status.ok()) {
    const ErrorInfo info = DescribeError(status);
    SetError(info, result);
    sticky_ = info.sticky;
    spdlog::info("job {}: {} {}", run_.job_id(), VerdictName(info.verdict), info.message);
  }
  if (process_ != nullptr) {
    CandidateOutput printed = process_->Finish();
    result->set_candidate_output(std::move(printed.text));
    result->set_candidate_output_cut(printed.cut);
    process_.reset();
    Mark("candidate finish");
  }
  if (FullJob()) spdlog::info("job {} phases (ms): {}", run_.job_id(), phases_);
  if (FullJob() && env_.candidates != nullptr) env_.candidates->Warm();
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

absl::Status VerdictProtocol::Execute() {
  progress_(v1::STAGE_COMPILING, 0, FullJob() ? 2 : 1);
  KJ_ASSIGN_OR_RETURN(setup_, SetUpJob(run_));
  KJ_RETURN_IF_ERROR(CompileCandidate());
  Mark("compile");
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
  Mark("reference compile");
  KJ_RETURN_IF_ERROR(RunReferences());
  Mark("reference runs");
  KJ_RETURN_IF_ERROR(CheckCandidate());
  Mark("candidate checks");
  if (result->verdict() != v1::VERDICT_UNSPECIFIED) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(TimeBenchShapes());
  Mark("timing, rest");
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
  const InputScaleScope scale(*env_.utilities, shape.input_scale);  // the stress shapes
  KJ_ASSIGN_OR_RETURN(TensorSet tensors, TensorSet::Allocate(setup_.spec, shape, guards_));
  KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, TrialSeed(seed_, kTestStream, i),
                                            env_.stream));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                            bindings, tensors.pointers(), Limits(), guards_));
  KJ_RETURN_IF_ERROR(plan.Launch(env_.stream, /*sync_each=*/true));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));
  KJ_RETURN_IF_ERROR(plan.ScrubScratch(env_.stream));
  KJ_RETURN_IF_ERROR(tensors.Scrub(env_.stream));
  return Decode(outputs);
}

absl::Status VerdictProtocol::LoadCandidate() {
  if (env_.candidates == nullptr) {
    return MakeRunnerError(v1::INTERNAL_ERROR, "no candidate processes on this runner");
  }
  KJ_ASSIGN_OR_RETURN(process_, env_.candidates->Take());
  Mark("candidate ready");
  Append(&phases_, " (its cuInit ", static_cast<int64_t>(process_->init_ms()), ", context ",
         static_cast<int64_t>(process_->context_ms()), ")");
  KJ_RETURN_IF_ERROR(process_->Load(run_, candidate_.program));
  Mark("candidate load");
  return absl::OkStatus();
}

absl::Status VerdictProtocol::CheckCandidate() {
  KJ_RETURN_IF_ERROR(LoadCandidate());
  const size_t n = setup_.spec.test_shapes.size();
  v1::Verdict first_failure = v1::VERDICT_UNSPECIFIED;
  for (size_t i = 0; i < n; ++i) {
    progress_(v1::STAGE_CHECKING, static_cast<int>(n + i), static_cast<int>(2 * n));
    v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
    absl::Status checked = CheckShape(i, &verdict);
    if (!checked.ok() && DescribeError(checked).cuda_error.find("IllegalAddress") !=
                             std::string::npos) {
      // Inputs are mapped read-only, so a kernel that writes one faults like any wild write.
      // Which of the two it was is told by running it once more with writable inputs.
      checked = DiagnoseFault(i, checked);
    }
    KJ_RETURN_IF_ERROR(
        WithContext(checked, Cat("candidate on test shape ", setup_.spec.test_shapes[i].Label())));
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

absl::Status VerdictProtocol::DiagnoseFault(size_t i, const absl::Status& fault) {
  const Shape& shape = setup_.spec.test_shapes[i];
  const uint64_t seed = TrialSeed(seed_, kTestStream, i);
  const InputScaleScope scale(*env_.utilities, shape.input_scale);
  std::unique_ptr<CandidateProcess> faulted = std::move(process_);
  (void)faulted->Finish();
  absl::StatusOr<std::string> modified = [&]() -> absl::StatusOr<std::string> {
    KJ_ASSIGN_OR_RETURN(process_, env_.candidates->Take());
    KJ_RETURN_IF_ERROR(process_->Load(run_, candidate_.program));
    KJ_ASSIGN_OR_RETURN(TensorSet tensors,
                        TensorSet::AllocateShared(setup_.spec, shape, guards_, env_.device));
    KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, seed, env_.stream));
    KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
    KJ_ASSIGN_OR_RETURN(ScratchSet scratch,
                        ScratchSet::Allocate(setup_.candidate_plan, setup_.spec.BindingsFor(shape),
                                             guards_, env_.device));
    const int set = next_set_++;
    KJ_RETURN_IF_ERROR(BindSet(set, false, i, tensors, scratch, /*writable_inputs=*/true));
    KJ_RETURN_IF_ERROR(process_->Run(set, /*sync_each=*/true));
    return ModifiedInputs(shape, tensors, seed);
  }();
  // Faults again with writable inputs: a wild access, not an input write.
  if (!modified.ok()) return fault;
  const ErrorInfo info = DescribeError(fault);
  const std::string which =
      modified->empty() ? std::string("an input (with the values it already held)")
                        : Cat("its input(s) ", *modified);
  return MakeRunnerError(v1::INPUT_MODIFIED,
                         Cat("the kernel wrote ", which, ": inputs are mapped read-only, so the "
                             "write faulted (", info.message, "); run again with writable "
                             "inputs it did not fault"),
                         info.cuda_error);
}

absl::Status VerdictProtocol::BindSet(int set, bool bench, size_t i, const TensorSet& tensors,
                                      const ScratchSet& scratch, bool writable_inputs) {
  std::vector<BindBuffer> buffers;
  for (const TensorSet::BufferView& b : tensors.Buffers()) {
    buffers.push_back({b.name, b.buffer, b.read_only && !writable_inputs});
  }
  for (size_t k = 0; k < scratch.buffers.size(); ++k) {
    buffers.push_back({scratch.names[k], &scratch.buffers[k], false});
  }
  return process_->Bind(set, bench, static_cast<int>(i), buffers);
}

absl::StatusOr<std::string> VerdictProtocol::ModifiedInputs(const Shape& shape,
                                                            const TensorSet& tensors,
                                                            uint64_t seed) {
  // The judge's private copy: the same inputs regenerated in memory no candidate maps.
  KJ_ASSIGN_OR_RETURN(TensorSet pristine, TensorSet::AllocateInputs(setup_.spec, shape, guards_));
  KJ_RETURN_IF_ERROR(AsInternal(pristine.GenerateInputs(*env_.utilities, seed, env_.stream),
                                "input generation"));
  return tensors.InputsDifferingFrom(pristine, *env_.utilities, env_.stream);
}

absl::Status VerdictProtocol::CheckShape(size_t i, v1::Verdict* verdict) {
  const Shape& shape = setup_.spec.test_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  const uint64_t seed = TrialSeed(seed_, kTestStream, i);
  const InputScaleScope scale(*env_.utilities, shape.input_scale);  // also for ModifiedInputs
  KJ_ASSIGN_OR_RETURN(TensorSet tensors,
                      TensorSet::AllocateShared(setup_.spec, shape, guards_, env_.device));
  KJ_RETURN_IF_ERROR(AsInternal(tensors.GenerateInputs(*env_.utilities, seed, env_.stream),
                                "input generation"));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_ASSIGN_OR_RETURN(ScratchSet scratch,
                      ScratchSet::Allocate(setup_.candidate_plan, bindings, guards_, env_.device));
  const int set = next_set_++;
  KJ_RETURN_IF_ERROR(BindSet(set, false, i, tensors, scratch));
  KJ_RETURN_IF_ERROR(process_->Run(set, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(tensors, scratch), "after the candidate's run"));
  KJ_ASSIGN_OR_RETURN(std::string modified, ModifiedInputs(shape, tensors, seed));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));
  KJ_RETURN_IF_ERROR(process_->Release(set));

  const Tolerance& tol = setup_.spec.tolerance;
  OutputComparator comparator({tol.atol, tol.rtol, tol.rel_l2});
  for (size_t t = 0; t < outputs.size(); ++t) {
    const HostTensor& h = outputs[t];
    comparator.AddTensor(h.name, DecodeToDouble(h.dtype, h.bytes, h.count),
                         reference_outputs_[i][t], PoisonMask(h.dtype, h.bytes, h.count));
  }
  v1::TestOutcome outcome = ToTestOutcome(shape.Label(), comparator.Result());
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

// A modified guard is an out-of-bounds write by the candidate: RUNTIME_ERROR without a CUDA
// error and not sticky (the write hit our guard, not someone else's memory; the context is
// fine). The caller's context names the shape.
absl::Status VerdictProtocol::CheckGuards(const std::vector<GuardedBuffer>& buffers,
                                          const std::string& when) {
  KJ_ASSIGN_OR_RETURN(std::vector<GuardDamage> damage,
                      env_.utilities->CheckGuards(GuardRegionsOf(buffers), guards_.canary(),
                                                  env_.stream));
  const std::string found = DescribeGuardDamage(buffers, damage);
  if (found.empty()) return absl::OkStatus();
  return MakeRunnerError(v1::RUNTIME_ERROR, Cat(found, ", ", when));
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
  const ClockMonitor* clock = env_.timing.clock;
  if (!shapes.empty() && (clock == nullptr || !clock->available())) {
    out_.mutable_result()->add_flags(
        Cat("no_clock_monitor: throttling not detected (",
            clock == nullptr ? std::string("no NVML") : clock->reason(), ")"));
  }
  if (!shapes.empty() && !env_.uncalibrated_reason.empty()) {
    out_.mutable_result()->add_flags(
        Cat("event_overhead_uncalibrated: timings include the ~2.5 us that the CUDA events add (",
            env_.uncalibrated_reason, ")"));
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    progress_(v1::STAGE_TIMING, static_cast<int>(i), static_cast<int>(shapes.size()));
    KJ_RETURN_IF_ERROR(WithContext(TimeShape(i), Cat("bench shape ", shapes[i].Label())));
    if (out_.result().verdict() != v1::VERDICT_UNSPECIFIED) break;
  }
  return absl::OkStatus();
}

Ceilings VerdictProtocol::MeasuredCeilings() const {
  const v1::GpuInfo& info = env_.gpu->info;
  return Ceilings{info.copy_bandwidth_gbs(), info.sgemm_tflops(), info.tf32_tflops(),
                  info.fp16_tflops(), info.bf16_tflops()};
}

absl::StatusOr<int> VerdictProtocol::InputSetsThatFit(const Shape& shape) const {
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  KJ_ASSIGN_OR_RETURN(size_t tensor_bytes, TensorSet::BytesNeeded(setup_.spec, shape));
  KJ_ASSIGN_OR_RETURN(size_t output_bytes, TensorSet::OutputBytes(setup_.spec, shape));
  KJ_ASSIGN_OR_RETURN(size_t cand_scratch, ScratchBytes(setup_.candidate_plan, bindings));
  KJ_ASSIGN_OR_RETURN(size_t ref_scratch, ScratchBytes(setup_.spec.reference_plan, bindings));
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
                        "%.1f MiB + reference scratch %.1f MiB) but only %.1f MiB are usable "
                        "(90%% of %.1f MiB free)",
                        (static_cast<double>(ref_scratch) + per_set) / kMiB,
                        static_cast<double>(tensor_bytes) / kMiB,
                        static_cast<double>(cand_scratch) / kMiB,
                        static_cast<double>(output_bytes) / kMiB,
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
  KJ_ASSIGN_OR_RETURN(set.expected, TensorSet::AllocateOutputs(setup_.spec, shape, guards_));
  KJ_ASSIGN_OR_RETURN(set.scratch,
                      ScratchSet::Allocate(setup_.candidate_plan, setup_.spec.BindingsFor(shape),
                                           guards_, env_.device));
  // Inputs for the warm-up runs; every timed sample draws its own (PrepareSample).
  set.input_seed = TrialSeed(seed_, kBenchStream, i * kMaxInputSets + k);
  KJ_RETURN_IF_ERROR(AsInternal(
      set.tensors.GenerateInputs(*env_.utilities, set.input_seed, env_.stream),
      "input generation"));
  KJ_RETURN_IF_ERROR(BindSet(set.id, true, i, set.tensors, set.scratch));
  return set;
}

absl::Status VerdictProtocol::PrepareSample(size_t i, BenchSet& set) {
  set.input_seed = TrialSeed(seed_, kSampleStream, samples_drawn_++);
  KJ_RETURN_IF_ERROR(AsInternal(
      set.tensors.GenerateInputs(*env_.utilities, set.input_seed, env_.stream),
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
  KJ_ASSIGN_OR_RETURN(TensorSet check, TensorSet::AllocateOutputs(setup_.spec, shape, guards_));
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
                                                     k + 1, " of ", sets.size(), ")")));
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
  if (timing.aborted) return FailTiming(shape, *std::move(failure));
  for (size_t k = 0; k < sets.size(); ++k) {
    KJ_ASSIGN_OR_RETURN(std::string modified,
                        ModifiedInputs(shape, sets[k].tensors, sets[k].input_seed));
    if (!modified.empty()) {
      v1::JobResult* result = out_.mutable_result();
      result->set_verdict(v1::INPUT_MODIFIED);
      result->set_message(Cat("bench shape ", shape.Label(), ": the kernel wrote its input(s) ",
                              modified, " during the timed runs (input set ", k + 1, ")."));
      return absl::OkStatus();
    }
  }
  Mark("input checks");
  const double floor_us = FloorUs(setup_.spec, shape, MeasuredCeilings());
  candidate_median_[shape.Label()] = timing.summary.median;
  v1::ShapeTiming* st = out_.mutable_result()->add_timings();
  st->set_shape(shape.Label());
  *st->mutable_timing() = TimingToProto(timing, floor_us);
  AddTimingFlags("candidate", shape, timing);
  KJ_RETURN_IF_ERROR(JudgeSpeed(shape, timing, floor_us));
  if (out_.result().verdict() != v1::VERDICT_UNSPECIFIED) return absl::OkStatus();
  KJ_RETURN_IF_ERROR(RecheckAfterTiming(i, sets.front()));
  Mark("re-check");
  if (out_.result().verdict() != v1::VERDICT_UNSPECIFIED) return absl::OkStatus();
  for (size_t k = 1; k < sets.size(); ++k) KJ_RETURN_IF_ERROR(process_->Release(sets[k].id));
  sets.erase(sets.begin() + 1, sets.end());  // give the memory back before the baselines
  KJ_RETURN_IF_ERROR(MeasureBaselines(i, sets.front().tensors, floor_us));
  Mark("baselines");
  return absl::OkStatus();
}

void VerdictProtocol::AddTimingFlags(const std::string& who, const Shape& shape,
                                     const TimingResult& t) {
  v1::JobResult* result = out_.mutable_result();
  const int max_mhz = env_.timing.clock != nullptr ? env_.timing.clock->max_sm_clock_mhz() : 0;
  if (t.throttled > 0) {
    result->add_flags(absl::StrFormat(
        "throttled: %s at %s: %d of %d samples taken under %.0f%% of the max SM clock (%d MHz) "
        "were %s",
        who, shape.Label(), t.throttled, t.throttled + t.summary.count * (t.all_throttled ? 0 : 1),
        100.0 * env_.timing.throttle_threshold, max_mhz,
        t.all_throttled ? "all that was measured: the timing is of a throttled GPU"
                        : "discarded"));
  }
  if (t.busy_after_stop > 0) {
    result->add_flags(absl::StrFormat(
        "busy_after_stop: %s at %s: the device was still busy after the plan's stop event in "
        "%d samples",
        who, shape.Label(), t.busy_after_stop));
  }
}

absl::Status VerdictProtocol::JudgeSpeed(const Shape& shape, const TimingResult& t,
                                         double floor_us) {
  v1::JobResult* result = out_.mutable_result();
  const int64_t samples = t.summary.count + (t.all_throttled ? 0 : t.throttled);
  if (t.busy_after_stop > 0 && 2 * t.busy_after_stop > samples) {
    result->set_verdict(v1::SUSPICIOUS);
    result->set_message(Cat("bench shape ", shape.Label(),
                            ": the device was still busy after the plan's stop event in ",
                            t.busy_after_stop, " of ", samples,
                            " timed samples: work outlived the timed region."));
    return absl::OkStatus();
  }
  // SUSPICIOUS only for the physically impossible: under the memory floor, or under a compute
  // floor the problem declares a true lower bound (ceilings.h). SOL% keeps the full floor.
  const Ceilings c = MeasuredCeilings();
  const PhysicalFloor f = ImpossibleFloorOf(setup_.spec, shape, c);
  if (f.us > 0.0 && t.summary.median < kFloorMargin * f.us) {
    const std::string compute =
        f.rate.tflops > 0.0
            ? absl::StrFormat("%.3f us of flops at %.1f TFLOP/s %s, the fastest legitimate rate "
                              "for its dtypes", f.compute_us, f.rate.tflops, f.rate.name)
            : absl::StrFormat("no compute bound (%s)", f.rate.name);
    result->set_verdict(v1::SUSPICIOUS);
    result->set_message(absl::StrFormat(
        "bench shape %s: median %.3f us is under %.0f%% of the physical floor %.3f us (cost "
        "model at this GPU's measured ceilings: %.3f us of bytes at %.1f GB/s device copy; %s): "
        "faster than the hardware allows, not a speedup (SOL %.0f%%).",
        shape.Label(), t.summary.median, 100.0 * kFloorMargin, f.us, f.memory_us, c.copy_gbs,
        compute, 100.0 * floor_us / std::max(t.summary.median, 1e-9)));
  }
  return absl::OkStatus();
}

absl::Status VerdictProtocol::RecheckAfterTiming(size_t i, BenchSet& set) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  // New data at the same addresses; the reference runs first (into its own buffers), then the
  // candidate with its outputs still holding its last timed results: a kernel that caches by
  // pointer or replays whatever the output holds returns stale values.
  KJ_RETURN_IF_ERROR(AsInternal(set.tensors.GenerateInputs(
                                    *env_.utilities, TrialSeed(seed_, kRecheckStream, i),
                                    env_.stream),
                                "input generation"));
  KJ_RETURN_IF_ERROR(AsInternal(RunExpected(i, set.tensors, set.expected),
                                "expected outputs on the bench shape"));
  KJ_RETURN_IF_ERROR(process_->Run(set.id, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(set.tensors, set.scratch),
                                 "in the re-check after timing (previous outputs left in place)"));
  KJ_ASSIGN_OR_RETURN(std::optional<v1::TestOutcome> stale,
                      CompareOnDevice(shape, set.tensors, set.expected,
                                      "after timing, on new inputs at the same addresses with "
                                      "the previous outputs left in place"));
  if (stale.has_value()) return FailTiming(shape, *std::move(stale));
  // The same inputs again with poisoned outputs: every element must be written on every run.
  KJ_RETURN_IF_ERROR(set.tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_RETURN_IF_ERROR(process_->Run(set.id, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(set.tensors, set.scratch),
                                 "in the re-check after timing (poisoned outputs)"));
  KJ_ASSIGN_OR_RETURN(std::optional<v1::TestOutcome> poisoned,
                      CompareOnDevice(shape, set.tensors, set.expected,
                                      "after timing, on new inputs with poisoned outputs"));
  if (poisoned.has_value()) return FailTiming(shape, *std::move(poisoned));
  return absl::OkStatus();
}

absl::Status VerdictProtocol::RunReferenceInto(const Shape& shape, const TensorSet& inputs,
                                               const TensorSet& outputs) {
  KJ_RETURN_IF_ERROR(EnsureReferenceModule());
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                            setup_.spec.BindingsFor(shape),
                                            inputs.PointersWithOutputsOf(outputs), Limits(),
                                            guards_));
  return plan.Launch(env_.stream, /*sync_each=*/true);
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
                                                got[t].count, tol.atol, tol.rtol, env_.stream));
    const double rel_l2 = c.ref_sq > 0.0 ? std::sqrt(c.diff_sq / c.ref_sq)
                                         : std::sqrt(c.diff_sq / static_cast<double>(got[t].count));
    const bool l2_ok = c.ref_sq > 0.0 ? rel_l2 <= tol.rel_l2 : rel_l2 <= tol.atol;
    outcome.set_max_abs_error(std::max(outcome.max_abs_error(), c.max_abs_error));
    outcome.set_rel_l2_error(std::max(outcome.rel_l2_error(), rel_l2));
    outcome.set_mismatch_count(outcome.mismatch_count() + c.mismatches);
    outcome.set_unwritten_count(outcome.unwritten_count() + c.unwritten);
    const std::string failure = DeviceTensorFailure(got[t].name, when, c, tol, rel_l2, l2_ok);
    if (failure.empty()) continue;
    outcome.set_passed(false);
    outcome.set_detail(Cat(outcome.detail(), outcome.detail().empty() ? "" : " ", failure));
  }
  if (outcome.passed()) return std::optional<v1::TestOutcome>();
  return std::optional<v1::TestOutcome>(std::move(outcome));
}

absl::Status VerdictProtocol::FailTiming(const Shape& shape, v1::TestOutcome outcome) {
  v1::JobResult* result = out_.mutable_result();
  // Correct on the test shapes, then unwritten outputs in a timed or re-checked run: the kernel
  // behaves differently when timed (skips work, replays). Wrong values: WRONG_ANSWER.
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

absl::Status VerdictProtocol::MeasureBaselines(size_t i, TensorSet& tensors, double floor_us) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  std::vector<std::pair<std::string, std::function<absl::StatusOr<TimingResult>()>>> todo;
  if (CachedBaseline(shape.Label(), "reference") == nullptr) {
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
    KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, TrialSeed(seed_, kBenchStream, i),
                                              env_.stream));
    absl::StatusOr<TimingResult> timing = measure();
    if (!timing.ok()) {
      absl::Status err = AsInternal(timing.status(), Cat("baseline ", name));
      if (DescribeError(err).sticky) return err;
      spdlog::warn("{} at {}: {}", name, shape.Label(), err.ToString());
      continue;
    }
    spdlog::info("{} baseline {}: {} samples, median {:.3f} us", shape.Label(), name,
                 timing->summary.count, timing->summary.median);
    AddTimingFlags(Cat("baseline ", name), shape, *timing);
    v1::BaselineTiming* b = out_.add_new_baselines();
    b->set_problem(run_.problem());
    b->set_shape(shape.Label());
    b->set_name(name);
    *b->mutable_timing() = TimingToProto(*timing, floor_us);
    b->set_hardware_key(HardwareKey(env_.gpu->info));
  }
  return absl::OkStatus();
}

// A library baseline's outputs after its timed runs, against a reference run on the same
// inputs: an error drops the baseline (MeasureBaselines logs it and goes on).
absl::Status VerdictProtocol::CheckBaselineOutputs(const Shape& shape, const TensorSet& tensors) {
  absl::StatusOr<TensorSet> expected = TensorSet::AllocateOutputs(setup_.spec, shape, guards_);
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

void VerdictProtocol::AddSpeedups() {
  v1::JobResult* result = out_.mutable_result();
  auto add = [&](const v1::BaselineTiming& b) {
    auto it = candidate_median_.find(b.shape());
    if (it == candidate_median_.end() || it->second <= 0.0) return;
    v1::Speedup* s = result->add_speedups();
    s->set_shape(b.shape());
    s->set_baseline(b.name());
    s->set_speedup(b.timing().median_us() / it->second);
    // Over 10x a library baseline (the naive reference does not count) is worth a second look.
    if (b.name() != "reference" && s->speedup() > kLibrarySpeedupFlag) {
      result->add_flags(absl::StrFormat("speedup_over_10x: %s at %s: %.1fx", b.name(),
                                        b.shape(), s->speedup()));
    }
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

}  // namespace kjudge::runner
