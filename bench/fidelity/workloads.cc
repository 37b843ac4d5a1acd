#include "bench/fidelity/workloads.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/output_comparison.h"
#include "kjudge/v1/kjudge.pb.h"
#include "worker/gpu/device_buffer.h"
#include "worker/judge/device_tensors.h"
#include "worker/gpu/guard_bands.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

namespace kjudge::bench {
namespace {

using runner::Cat;

constexpr size_t kMaxCopyPairs = 4;  // buffer pairs the copy workload rotates

absl::StatusOr<runner::TensorSet> FreshInputs(const ProblemSpec& spec, const Shape& shape,
                                              uint64_t job_seed, int set, const BenchEnv& env) {
  KJ_ASSIGN_OR_RETURN(runner::TensorSet tensors,
                      runner::TensorSet::Allocate(
                          spec, shape, runner::GuardPattern(BenchKey(~job_seed))));
  KJ_RETURN_IF_ERROR(tensors.GenerateInputs(
      *env.utilities, BenchKey(job_seed, static_cast<uint64_t>(set)), env.stream));
  return tensors;
}

class CopyJob : public Job {
 public:
  explicit CopyJob(size_t bytes) : bytes_(bytes) {}
  // One more buffer pair, i.e. one more input set to rotate among.
  void AddPair(runner::DeviceBuffer src, runner::DeviceBuffer dst) {
    void* d = dst.get();
    const void* s = src.get();
    const size_t bytes = bytes_;
    runs_.emplace_back([d, s, bytes](cudaStream_t stream) {
      return runner::CudaStatus(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, stream),
                                "cudaMemcpyAsync(device to device)");
    });
    buffers_.push_back(std::move(src));
    buffers_.push_back(std::move(dst));
  }
  const std::vector<runner::RunFn>& runs() const override { return runs_; }

 private:
  size_t bytes_;
  std::vector<runner::DeviceBuffer> buffers_;
  std::vector<runner::RunFn> runs_;
};

// The verdict protocol's bench-shape timing: input sets rotated, outputs poisoned before and
// compared with the reference after every sample.
class PlanJob : public Job {
 public:
  PlanJob(std::shared_ptr<LoadedProblem> problem, Shape shape, const BenchEnv& env)
      : problem_(std::move(problem)), shape_(std::move(shape)), env_(env) {}

  // Set k: fresh inputs, the reference's outputs for them, the example's plan bound to them.
  absl::Status AddSet(uint64_t job_seed) {
    const ProblemSpec& spec = problem_->setup.spec;
    const Bindings bindings = spec.BindingsFor(shape_);
    const runner::PlanLimits limits = LimitsOf(env_.gpu->props);
    const runner::GuardPattern guards(BenchKey(~job_seed));  // any key: the judge draws its own
    auto set = std::make_unique<Set>();
    KJ_ASSIGN_OR_RETURN(set->tensors, FreshInputs(spec, shape_, job_seed,
                                                  static_cast<int>(sets_.size()), env_));
    KJ_ASSIGN_OR_RETURN(set->expected, runner::TensorSet::AllocateOutputs(spec, shape_, guards));
    {
      KJ_ASSIGN_OR_RETURN(
          runner::PlanExecutor ref,
          runner::PlanExecutor::Prepare(spec.reference_plan, *problem_->reference, bindings,
                                        set->tensors.PointersWithOutputsOf(set->expected),
                                        limits, guards));
      KJ_RETURN_IF_ERROR(ref.Launch(env_.stream, /*sync_each=*/true));
    }
    KJ_ASSIGN_OR_RETURN(runner::PlanExecutor plan,
                        runner::PlanExecutor::Prepare(problem_->setup.candidate_plan,
                                                      *problem_->module, bindings,
                                                      set->tensors.pointers(), limits, guards));
    set->plan.emplace(std::move(plan));
    const runner::PlanExecutor* p = &*set->plan;
    // What VerdictProtocol::TimeShape's RunFns do.
    runs_.emplace_back([p](cudaStream_t s) { return p->Launch(s, /*sync_each=*/false); });
    sets_.push_back(std::move(set));
    return absl::OkStatus();
  }

  const std::vector<runner::RunFn>& runs() const override { return runs_; }
  bool has_hooks() const override { return true; }
  absl::Status Before(size_t k) override {
    return sets_[k]->tensors.PoisonOutputs(*env_.utilities, env_.stream);
  }
  absl::StatusOr<bool> After(size_t k) override {
    const Tolerance& tol = problem_->setup.spec.tolerance;
    const std::vector<runner::TensorSet::OutputView> got = sets_[k]->tensors.Outputs();
    const std::vector<runner::TensorSet::OutputView> want = sets_[k]->expected.Outputs();
    for (size_t t = 0; t < got.size(); ++t) {
      KJ_ASSIGN_OR_RETURN(runner::DeviceComparison c,
                          env_.utilities->Compare(got[t].ptr, want[t].ptr, got[t].dtype,
                                                  got[t].count, tol.atol, tol.rtol,
                                                  got[t].poison, env_.stream));
      // The judge's rule (common/output_comparison.h): elementwise, then L2 on the device's sums.
      const L2Check l2 = CheckRelativeL2(c.diff_sq, c.ref_sq, c.spread.count,
                                         ComparisonTolerance{tol.atol, tol.rtol, tol.rel_l2});
      if (c.mismatches != 0 || c.unwritten != 0 || !l2.ok) {
        why_ = Cat("wrong output in a timed sample: ", got[t].name, " of input set ", k + 1,
                   ": ", c.unwritten, " unwritten, ", c.mismatches,
                   " outside tolerance (first bad flat index ", c.first_bad, "), relative L2 error ",
                   l2.error);
        return false;
      }
    }
    return true;
  }
  std::string why() const override { return why_; }

 private:
  struct Set {
    runner::TensorSet tensors;
    runner::TensorSet expected;
    std::optional<runner::PlanExecutor> plan;
  };
  std::shared_ptr<LoadedProblem> problem_;  // keeps the modules alive
  Shape shape_;
  BenchEnv env_;
  std::vector<std::unique_ptr<Set>> sets_;
  std::vector<runner::RunFn> runs_;
  std::string why_;
};

class LibraryJob : public Job {
 public:
  explicit LibraryJob(runner::TensorSet tensors) : tensors_(std::move(tensors)) {}
  const runner::TensorSet& tensors() const { return tensors_; }
  void set_run(runner::RunFn run) { runs_ = {std::move(run)}; }
  const std::vector<runner::RunFn>& runs() const override { return runs_; }

 private:
  runner::TensorSet tensors_;
  std::vector<runner::RunFn> runs_;
};

}  // namespace

std::string BytesLabel(size_t bytes) {
  constexpr size_t kKiB = 1024;
  constexpr size_t kMiB = kKiB * 1024;
  constexpr size_t kGiB = kMiB * 1024;
  if (bytes >= kGiB && bytes % kGiB == 0) return Cat(bytes / kGiB, " GiB");
  if (bytes >= kMiB && bytes % kMiB == 0) return Cat(bytes / kMiB, " MiB");
  if (bytes >= kKiB && bytes % kKiB == 0) return Cat(bytes / kKiB, " KiB");
  return Cat(bytes, " B");
}

runner::PlanLimits LimitsOf(const cudaDeviceProp& props) {
  runner::PlanLimits limits;
  limits.max_threads_per_block = props.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) limits.max_grid[i] = props.maxGridSize[i];
  limits.max_shared_optin = props.sharedMemPerBlockOptin;
  return limits;
}

absl::StatusOr<LoadedProblem> LoadProblem(const std::filesystem::path& problems_root,
                                          const std::string& name, const BenchEnv& env) {
  LoadedProblem p;
  KJ_ASSIGN_OR_RETURN(p.files, LoadProblemDir(problems_root / name, name));
  if (p.files.example_source.empty()) {
    return absl::NotFoundError(Cat(name, ": the problem has no example solution"));
  }
  // The RunSpec the server sends for a submission of this file.
  v1::RunSpec run;
  run.set_job_id("fidelity");
  run.set_problem(name);
  run.set_spec_toml(p.files.spec_toml);
  run.set_reference_source(p.files.reference_source);
  run.set_source(p.files.example_source);
  run.set_filename(p.files.spec.example_file);
  KJ_ASSIGN_OR_RETURN(p.setup, runner::SetUpJob(run));
  const runner::CompileRequest request{p.files.example_source, p.setup.program_name,
                                       env.gpu->info.arch(), p.setup.candidate_names};
  KJ_ASSIGN_OR_RETURN(runner::CompileOutcome outcome, runner::CompileCached(request, *env.cache));
  if (!outcome.success) {
    return absl::InternalError(
        Cat(name, ": the example does not compile: ", outcome.message, "\n", outcome.log));
  }
  p.compile_ms = outcome.compile_ms;
  p.cache_hit = outcome.cache_hit;
  const std::string ref_name = p.setup.spec.reference_source_file.empty()
                                   ? "reference.cu"
                                   : p.setup.spec.reference_source_file;
  const runner::CompileRequest ref_request{p.files.reference_source, ref_name,
                                           env.gpu->info.arch(), p.setup.reference_names};
  KJ_ASSIGN_OR_RETURN(runner::CompileOutcome ref, runner::CompileCached(ref_request, *env.cache));
  if (!ref.success) {
    return absl::InternalError(
        Cat(name, ": the reference does not compile: ", ref.message, "\n", ref.log));
  }
  if (env.gpu->has_gpu) {
    KJ_ASSIGN_OR_RETURN(runner::CudaModule module, runner::CudaModule::Load(outcome.program));
    p.module = std::make_shared<runner::CudaModule>(std::move(module));
    KJ_ASSIGN_OR_RETURN(runner::CudaModule ref_module, runner::CudaModule::Load(ref.program));
    p.reference = std::make_shared<runner::CudaModule>(std::move(ref_module));
  }
  return p;
}

Workload CopyWorkload(size_t bytes, const BenchEnv& env) {
  Workload w;
  w.kernel = "device copy (cudaMemcpyAsync D2D)";
  w.size = BytesLabel(bytes);
  w.device_bytes = 2 * bytes;
  w.bytes_moved = 2.0 * static_cast<double>(bytes);
  w.prepare = [bytes, env](uint64_t seed) -> absl::StatusOr<std::unique_ptr<Job>> {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    KJ_RETURN_IF_ERROR(
        runner::CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
    // As many pairs as a job would rotate input sets (up to 4), within half the free memory.
    const size_t pairs = std::clamp<size_t>(free_bytes / 2 / (2 * bytes), 1, kMaxCopyPairs);
    auto job = std::make_unique<CopyJob>(bytes);
    const InitSpec init;  // standard normal
    for (size_t k = 0; k < pairs; ++k) {
      KJ_ASSIGN_OR_RETURN(runner::DeviceBuffer src,
                          runner::DeviceBuffer::Allocate(bytes, "copy source"));
      KJ_ASSIGN_OR_RETURN(runner::DeviceBuffer dst,
                          runner::DeviceBuffer::Allocate(bytes, "copy destination"));
      KJ_RETURN_IF_ERROR(env.utilities->FillRandom(src.get(), DType::kF32,
                                                   static_cast<int64_t>(bytes / 4), BenchKey(seed, k), 0,
                                                   init, env.stream));
      KJ_RETURN_IF_ERROR(env.utilities->Poison(dst.get(), runner::FixedPoison(DType::kF32),
                                               static_cast<int64_t>(bytes / 4), env.stream));
      job->AddPair(std::move(src), std::move(dst));
    }
    KJ_RETURN_IF_ERROR(runner::SyncStatus(cudaStreamSynchronize(env.stream), "copy set-up"));
    return std::unique_ptr<Job>(std::move(job));
  };
  return w;
}

absl::StatusOr<std::vector<Workload>> ExampleWorkloads(std::shared_ptr<LoadedProblem> problem,
                                                       const BenchEnv& env) {
  std::vector<Workload> out;
  const ProblemSpec& spec = problem->setup.spec;
  for (const Shape& shape : spec.bench_shapes) {
    Workload w;
    w.kernel = Cat(spec.name, " example");
    w.size = shape.Label();
    const Bindings bindings = spec.BindingsFor(shape);
    KJ_ASSIGN_OR_RETURN(size_t tensor_bytes, runner::TensorSet::BytesNeeded(spec, shape));
    KJ_ASSIGN_OR_RETURN(size_t output_bytes, runner::TensorSet::OutputBytes(spec, shape));
    KJ_ASSIGN_OR_RETURN(size_t scratch_bytes,
                        runner::ScratchBytes(problem->setup.candidate_plan, bindings));
    KJ_ASSIGN_OR_RETURN(size_t ref_scratch,
                        runner::ScratchBytes(spec.reference_plan, bindings));
    const size_t per_set = tensor_bytes + output_bytes + scratch_bytes;
    w.device_bytes = per_set + ref_scratch;
    w.prepare = [problem, shape, env, per_set,
                 ref_scratch](uint64_t seed) -> absl::StatusOr<std::unique_ptr<Job>> {
      // As many input sets as VerdictProtocol::InputSetsThatFit would give this job: up to
      // kMaxInputSets, within 90% of the free device memory.
      size_t free_bytes = 0;
      size_t total_bytes = 0;
      KJ_RETURN_IF_ERROR(runner::CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes),
                                            "cudaMemGetInfo"));
      const double usable = 0.9 * static_cast<double>(free_bytes);
      int sets = 0;
      while (sets < kMaxInputSets &&
             static_cast<double>(ref_scratch) +
                     static_cast<double>(sets + 1) * static_cast<double>(per_set) <=
                 usable) {
        ++sets;
      }
      if (sets == 0) return absl::ResourceExhaustedError("not even one input set fits");
      auto job = std::make_unique<PlanJob>(problem, shape, env);
      for (int k = 0; k < sets; ++k) KJ_RETURN_IF_ERROR(job->AddSet(seed));
      return std::unique_ptr<Job>(std::move(job));
    };
    out.push_back(std::move(w));
  }
  return out;
}

absl::StatusOr<std::vector<Workload>> CublasWorkloads(std::shared_ptr<LoadedProblem> problem,
                                                      const BenchEnv& env) {
  std::vector<Workload> out;
  const ProblemSpec& spec = problem->setup.spec;
  for (const LibraryBaselineSpec& baseline : spec.baselines) {
    if (baseline.kind != "cublas_gemm") continue;
    for (const Shape& shape : spec.bench_shapes) {
      Workload w;
      w.kernel = Cat("cuBLAS SGEMM (baseline '", baseline.name, "')");
      w.size = shape.Label();
      KJ_ASSIGN_OR_RETURN(w.device_bytes, runner::TensorSet::BytesNeeded(spec, shape));
      w.prepare = [problem, baseline, shape,
                   env](uint64_t seed) -> absl::StatusOr<std::unique_ptr<Job>> {
        const ProblemSpec& s = problem->setup.spec;
        KJ_ASSIGN_OR_RETURN(runner::TensorSet tensors, FreshInputs(s, shape, seed, 0, env));
        auto job = std::make_unique<LibraryJob>(std::move(tensors));
        KJ_ASSIGN_OR_RETURN(runner::RunFn run, runner::MakeLibraryBaseline(
                                                   baseline, s, s.BindingsFor(shape),
                                                   job->tensors().pointers(), *env.libraries));
        job->set_run(std::move(run));
        return std::unique_ptr<Job>(std::move(job));
      };
      out.push_back(std::move(w));
    }
  }
  if (out.empty()) {
    return absl::NotFoundError(Cat(spec.name, " has no cublas_gemm baseline"));
  }
  return out;
}

}  // namespace kjudge::bench
