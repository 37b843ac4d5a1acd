// Programs: compiling the candidate (COMPILE_ERROR) and the reference (INTERNAL_ERROR when it
// fails), loading the candidate into this job's candidate process, and every run of the trusted
// reference in the judge (test shapes, expected outputs, baseline checks). The reference module
// is unloaded before the candidate is loaded and loaded again only for bench work.
#include "worker/judge/verdict_protocol.h"

#include <utility>

#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/host_values.h"
#include "worker/judge/kernel_report.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {
namespace verdict_detail {

// Failures of trusted code are kjudge's fault: INTERNAL_ERROR, keeping CUDA error and
// stickiness.
absl::Status AsInternal(const absl::Status& status, std::string_view what) {
  if (status.ok()) return status;
  const ErrorInfo info = DescribeError(status);
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat(what, ": ", info.message),
                         info.cuda_error, info.sticky);
}

}  // namespace verdict_detail

using namespace verdict_detail;  // the protocol's own constants and helpers

namespace {

std::vector<std::vector<double>> Decode(const std::vector<HostTensor>& tensors) {
  std::vector<std::vector<double>> out;
  out.reserve(tensors.size());
  for (const HostTensor& t : tensors) out.push_back(DecodeToDouble(t.dtype, t.bytes, t.count));
  return out;
}

}  // namespace

absl::Status VerdictProtocol::CompileCandidate() {
  CompileRequest request{run_.source(), setup_.program_name, env_.gpu->info.arch(),
                         setup_.candidate_names};
  KJ_ASSIGN_OR_RETURN(candidate_, CompileCached(request, *env_.cache));
  v1::JobResult* result = out_.mutable_result();
  result->set_compile_ms(candidate_.compile_ms);
  result->set_cubin_cache_hit(candidate_.cache_hit);
  result->set_compile_log(candidate_.log);
  if (candidate_.success) {
    ReportKernels(candidate_.program, setup_.candidate_plan, setup_.spec, result);
  }
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
  if (OracleProblem()) {
    const size_t n = setup_.spec.test_shapes.size();
    for (size_t i = 0; i < n; ++i) {
      progress_(v1::STAGE_CHECKING, static_cast<int>(i), static_cast<int>(2 * n));
      absl::StatusOr<std::vector<std::vector<double>>> outputs = RunReferenceShape(i);
      KJ_RETURN_IF_ERROR(AsInternal(
          outputs.status(), Cat("PyTorch oracle on test shape ",
                                setup_.spec.test_shapes[i].Label())));
      reference_outputs_.push_back(*std::move(outputs));
    }
    return absl::OkStatus();
  }
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
  // Tensors the oracle reads are shared: it maps them (worker/oracle_client/).
  KJ_ASSIGN_OR_RETURN(TensorSet tensors,
                      OracleProblem() || CrossChecksOracle()
                          ? TensorSet::AllocateShared(setup_.spec, shape, guards_, env_.device)
                          : TensorSet::Allocate(setup_.spec, shape, guards_));
  // Test shape i's key: drawn here, used again for the candidate's run (CheckShape).
  KJ_ASSIGN_OR_RETURN(InputRegime regime, AnyRegime());
  KJ_ASSIGN_OR_RETURN(InputSecret input, DrawInputSecret(Cat("test ", i), shape, regime));
  if (test_inputs_.size() <= i) test_inputs_.resize(i + 1);
  test_inputs_[i] = input;
  KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, input, env_.stream));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  if (OracleProblem()) {
    KJ_RETURN_IF_ERROR(RunOracleInto(shape, tensors, tensors, setup_.spec.module->precision));
    KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));
    KJ_RETURN_IF_ERROR(tensors.Scrub(env_.stream));
    return Decode(outputs);
  }
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                            bindings, tensors.pointers(), Limits(), guards_));
  KJ_RETURN_IF_ERROR(plan.Launch(env_.stream, /*sync_each=*/true));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));
  KJ_RETURN_IF_ERROR(plan.ScrubScratch(env_.stream));
  std::vector<std::vector<double>> decoded = Decode(outputs);
  if (CrossChecksOracle()) KJ_RETURN_IF_ERROR(CrossCheckOracle(shape, tensors, decoded));
  KJ_RETURN_IF_ERROR(tensors.Scrub(env_.stream));
  return decoded;
}

absl::Status VerdictProtocol::LoadCandidate() {
  if (env_.candidates == nullptr) {
    return MakeRunnerError(v1::INTERNAL_ERROR, "no candidate processes on this runner");
  }
  KJ_ASSIGN_OR_RETURN(process_, env_.candidates->Take());
  TakeCandidateHeartbeat();
  Mark("candidate ready");
  Append(&phases_, " (its cuInit ", static_cast<int64_t>(process_->init_ms()), ", context ",
         static_cast<int64_t>(process_->context_ms()), ")");
  KJ_RETURN_IF_ERROR(process_->Load(run_, candidate_.program));
  Mark("candidate load");
  return absl::OkStatus();
}

absl::Status VerdictProtocol::RunReferenceInto(const Shape& shape, const TensorSet& inputs,
                                               const TensorSet& outputs) {
  if (OracleProblem()) {
    const ModuleBinding& m = *setup_.spec.module;  // set: OracleProblem()
    return RunOracleInto(shape, inputs, outputs,
                         m.bench_precision.empty() ? m.precision : m.bench_precision);
  }
  KJ_RETURN_IF_ERROR(EnsureReferenceModule());
  KJ_ASSIGN_OR_RETURN(PlanExecutor plan,
                      PlanExecutor::Prepare(setup_.spec.reference_plan, *reference_module_,
                                            setup_.spec.BindingsFor(shape),
                                            inputs.PointersWithOutputsOf(outputs), Limits(),
                                            guards_));
  return plan.Launch(env_.stream, /*sync_each=*/true);
}

absl::Status VerdictProtocol::EnsureReferenceModule() {
  if (reference_module_.has_value()) return absl::OkStatus();
  absl::StatusOr<CudaModule> m = CudaModule::Load(reference_.program);
  if (!m.ok()) return AsInternal(m.status(), "loading the reference");
  reference_module_.emplace(*std::move(m));
  return absl::OkStatus();
}

}  // namespace kjudge::runner
