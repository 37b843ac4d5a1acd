// VerdictProtocol: judges one RunSpec (SPEC §5, §6) and produces its RunnerResult.
//
// Full job (GPU present, not compile_only):
//   1. set up (parse spec and plan; REJECTED on a plan error), compile candidate and reference
//      (COMPILE_ERROR with NVRTC's log; a reference that fails to compile is INTERNAL_ERROR);
//   2. reference on every test shape: inputs generated on the GPU with a per-shape seed derived
//      from the job seed, outputs copied to the host, then every reference allocation (tensors
//      and scratch) zeroed and freed and the reference module unloaded;
//   3. candidate on every test shape: the same inputs regenerated into fresh allocations,
//      inputs checksummed, outputs poisoned, plan launched (synchronising after each launch so
//      a fault names its launch), inputs checksummed again (INPUT_MODIFIED), outputs compared
//      (common/output_comparison.h: UNWRITTEN_OUTPUT, WRONG_ANSWER);
//   4. when all pass: each bench shape timed (worker/runner/timing.h; REJECTED when its buffers
//      do not fit in free device memory), then re-checked: fresh inputs at the same
//      addresses, outputs poisoned, one candidate run compared on the device with a reference
//      run into separate output buffers (WRONG_ANSWER; SUSPICIOUS when outputs were left
//      unwritten, i.e. results replayed from the timed runs; skipped with a warning when the
//      extra buffers do not fit); then the baselines missing from
//      RunSpec.cached_baselines ("reference" and each known library baseline) measured with the
//      same protocol and returned in new_baselines; speedup = baseline median / candidate
//      median for every (shape, baseline); verdict CORRECT.
// Compile-only job (or no GPU): set up + compile the candidate only → COMPILED.
// Errors never escape: Run() always returns a result. A sticky CUDA error ends the job with
// RUNTIME_ERROR (the message names the plan launch and shape) and sticky() turns true: the
// caller must write the result and exit(3). A progress line is sent before every step that can
// take long (each compile, each test shape, each timing shape, each baseline).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/runner.pb.h"
#include "worker/runner/cublas_baseline.h"
#include "worker/runner/cubin_cache.h"
#include "worker/runner/cuda_module.h"
#include "worker/runner/device_tensors.h"
#include "worker/runner/device_utilities.h"
#include "worker/runner/gpu_context.h"
#include "worker/runner/job_setup.h"
#include "worker/runner/plan_executor.h"
#include "worker/runner/timing.h"

namespace kjudge::runner {

using ProgressFn = std::function<void(v1::Stage stage, int done, int total)>;

// What a runner holds across jobs. GPU members are null in compile-only mode.
struct RunnerEnv {
  const GpuContext* gpu = nullptr;
  const CubinCache* cache = nullptr;
  DeviceUtilities* utilities = nullptr;
  L2Flusher* flusher = nullptr;
  CublasHandle* cublas = nullptr;
  cudaStream_t stream = nullptr;
  TimingOptions timing;
};

class VerdictProtocol {
 public:
  VerdictProtocol(RunnerEnv env, v1::RunSpec run, ProgressFn progress);
  v1::RunnerResult Run();
  bool sticky() const { return sticky_; }

 private:
  bool FullJob() const;
  absl::Status Execute();
  absl::Status CompileCandidate();
  absl::Status CompileReference();
  absl::Status RunReferences();
  absl::StatusOr<std::vector<std::vector<double>>> RunReferenceShape(size_t i);
  absl::Status LoadCandidate();
  absl::Status CheckCandidate();
  absl::Status CheckShape(size_t i, v1::Verdict* verdict);
  absl::Status TimeBenchShapes();
  absl::Status TimeShape(size_t i);
  absl::Status MeasureBaselines(size_t i, TensorSet& tensors);
  absl::StatusOr<bool> RecheckFits(const Shape& shape) const;
  absl::Status RecheckBenchShape(size_t i, TensorSet& tensors);
  absl::Status RunReferenceInto(const Shape& shape, const TensorSet& inputs,
                                const TensorSet& outputs);
  absl::Status JudgeRecheck(const Shape& shape, const TensorSet& actual,
                            const TensorSet& expected);
  absl::StatusOr<SampleSummary> TimePlan(const LaunchPlan& plan, CudaModule& module,
                                         const Shape& shape, TensorSet& tensors);
  absl::Status EnsureReferenceModule();
  void AddSpeedups();
  std::string CorrectMessage() const;
  PlanLimits Limits() const;
  const v1::BaselineTiming* CachedBaseline(const std::string& shape,
                                           const std::string& name) const;

  RunnerEnv env_;
  v1::RunSpec run_;
  ProgressFn progress_;
  uint64_t seed_ = 0;
  bool sticky_ = false;
  JobSetup setup_;
  CompileOutcome candidate_;
  CompileOutcome reference_;
  std::optional<CudaModule> candidate_module_;
  std::optional<CudaModule> reference_module_;
  std::vector<std::vector<std::vector<double>>> reference_outputs_;  // [shape][output][element]
  std::map<std::string, double> candidate_median_;                  // by shape label
  int baselines_total_ = 0;
  int baselines_done_ = 0;
  v1::RunnerResult out_;
};

}  // namespace kjudge::runner
