// VerdictProtocol: judges one RunSpec and produces its RunnerResult: a full job (compile, test
// shapes, timed samples on fresh secret inputs, baselines), a compile-only job (COMPILED) or a
// baselines-only job (BASELINES_MEASURED). The protocol is told once, in docs/architecture.md
// ("The verdict protocol"); each step's detail (input sets, re-check order, flags) is in
// worker/judge/README.md, which is kept in step with the code.
// The steps measure; every verdict, message, flag, test outcome, timing and speedup is decided
// and written by decision_ (VerdictDecision, verdict_decision.h, which says which finding wins).
// Errors never escape: Run() always returns a result. A sticky CUDA error ends the job with
// RUNTIME_ERROR (the message names the plan launch and shape) and sticky() turns true: the
// caller must write the result and exit(3). An out-of-bounds write caught by a guard band
// (guard_bands.h: every tensor and scratch buffer has one before and after, filled with a
// per-job canary) is RUNTIME_ERROR without a cudaError and not sticky; the message names the
// buffer, the side, the bytes modified and the shape. A progress line is sent before every
// step that can take long (each compile, each test shape, each timing shape, each baseline).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/runner.pb.h"
#include "worker/judge/baseline_registry.h"
#include "worker/judge/candidate_process.h"
#include "worker/judge/ceilings.h"
#include "worker/judge/cubin_cache.h"
#include "worker/gpu/cuda_module.h"
#include "worker/judge/device_tensors.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/gpu_context.h"
#include "worker/judge/regime_deck.h"
#include "worker/judge/verdict_decision.h"
#include "worker/gpu/guard_bands.h"
#include "worker/gpu/job_setup.h"
#include "worker/gpu/plan_executor.h"
#include "worker/gpu/timing.h"
#include "worker/oracle_client/oracle_process.h"

namespace kjudge::runner {

using ProgressFn = std::function<void(v1::Stage stage, int done, int total)>;

// What a runner holds across jobs. GPU members are null in compile-only mode.
struct RunnerEnv {
  const GpuContext* gpu = nullptr;
  const CubinCache* cache = nullptr;
  DeviceUtilities* utilities = nullptr;
  L2Flusher* flusher = nullptr;
  BaselineLibraries* libraries = nullptr;  // library baselines (baseline_registry.h)
  cudaStream_t stream = nullptr;
  int device = 0;
  CandidateLauncher* candidates = nullptr;  // a fresh candidate process per full job
  oracle::OracleKeeper* oracle = nullptr;   // the PyTorch oracle; null without a GPU
  // The second oracle, for torch.compile only (started on first need); null without a GPU or
  // with --no-torch-compile: then no torch_compile baselines.
  oracle::OracleKeeper* compile_oracle = nullptr;
  // --oracle-cross-check: on problems with both references, the oracle's expected outputs
  // are compared with reference.cu's on every test shape (a disagreement: INTERNAL_ERROR).
  bool oracle_cross_check = false;
  TimingOptions timing;
  std::string uncalibrated_reason;  // why timing.event_overhead_us is 0 ("" when calibrated)
};

class VerdictProtocol {
 public:
  VerdictProtocol(RunnerEnv env, v1::RunSpec run, ProgressFn progress);
  // Not copied or moved: progress_ and decision_ point into this object.
  VerdictProtocol(const VerdictProtocol&) = delete;
  VerdictProtocol& operator=(const VerdictProtocol&) = delete;
  v1::RunnerResult Run();
  bool sticky() const { return sticky_; }

 private:
  // Each group below is one concept, in its own file (README.md, "Verdict protocol files").

  // The order of the steps (verdict_protocol.cc).
  bool FullJob() const;
  absl::Status Execute();
  absl::Status CheckCandidate();
  absl::Status TimeBenchShapes();
  absl::Status TimeShape(size_t i);
  // Where a job's time goes, logged at its end: "compile 120, reference compile 0, ...".
  void Mark(const char* phase);

  // Programs: compiling the candidate and the reference, loading the candidate into its
  // process, and every run of the trusted reference (verdict_programs.cc).
  absl::Status CompileCandidate();
  absl::Status CompileReference();
  absl::Status LoadCandidate();
  absl::Status RunReferences();
  absl::StatusOr<std::vector<std::vector<double>>> RunReferenceShape(size_t i);
  absl::Status RunReferenceInto(const Shape& shape, const TensorSet& inputs,
                                const TensorSet& outputs);
  absl::Status EnsureReferenceModule();
  PlanLimits Limits() const;

  // The PyTorch oracle as the reference of a problem without reference.cu, and its baselines
  // (verdict_oracle.cc).
  // No reference.cu, a reference.py: the oracle computes every expected output.
  bool OracleProblem() const;
  // A reference.py and a live oracle on this runner (with or without reference.cu): its
  // torch_eager baseline can be timed, and --oracle-cross-check can compare.
  bool ModuleAvailable() const;
  // --oracle-cross-check on a problem with both references: the oracle's outputs for test
  // shape `shape`'s inputs in `tensors` (shared) against `reference` (reference.cu's, decoded);
  // INTERNAL_ERROR naming both and the first mismatches when they disagree beyond the
  // problem's tolerance.
  bool CrossChecksOracle() const;
  absl::Status CrossCheckOracle(const Shape& shape, TensorSet& tensors,
                                const std::vector<std::vector<double>>& reference);
  // `keeper`'s live oracle (env_.oracle or env_.compile_oracle); INTERNAL_ERROR "this runner
  // has no PyTorch oracle" when it is needed and missing.
  absl::StatusOr<oracle::OracleProcess*> Oracle(oracle::OracleKeeper* keeper);
  // The `load` key of the module at `shape`: "problem|shape label|digest of reference.py's text"
  // (16 hex digits of its SHA-256).
  std::string OracleKey(const Shape& shape) const;
  // Loads the module at `shape` into `keeper`'s oracle (once per oracle process); its key.
  absl::StatusOr<std::string> OracleLoad(oracle::OracleKeeper* keeper, const Shape& shape);
  // Spawns the compile oracle (no wait) when this job will ask it for a torch_compile, so its
  // torch imports while the job checks the candidate.
  void BeginCompileOracle();
  // The oracle's outputs for `inputs` into `outputs` (both shared: DeviceBuffer::
  // AllocateGuardedShared), computed at `precision`.
  absl::Status RunOracleInto(const Shape& shape, const TensorSet& inputs,
                             const TensorSet& outputs, const std::string& precision);
  // Expected outputs' buffers: shared for oracle problems (the oracle maps them).
  absl::StatusOr<TensorSet> AllocateExpected(const Shape& shape) const;
  // torch_eager / torch_compile on `tensors` (set 1), checked once; for MeasureBaselines.
  absl::StatusOr<TimingResult> TimeOracleBaseline(const Shape& shape, TensorSet& tensors,
                                                  const std::string& mode);
  // The oracle baselines this job would add at `shape` (not cached), in order.
  std::vector<std::string> MissingOracleBaselines(const Shape& shape) const;

  // Test-shape checks and fault diagnosis (verdict_test_shapes.cc).
  // Reports the shape's facts to decision_ (VerdictDecision::TestShape); a fault: the error.
  absl::Status CheckShape(size_t i);
  // After the candidate faulted with an illegal address on test shape i: a fresh candidate
  // runs it again with writable inputs; INPUT_MODIFIED naming them if they changed, else
  // `fault` as it was.
  absl::Status DiagnoseFault(size_t i, const absl::Status& fault);
  // Shares `tensors` and `scratch` with the candidate as set `set` of shape i; inputs are
  // read-only there unless `writable_inputs` (DiagnoseFault's second run).
  absl::Status BindSet(int set, bool bench, size_t i, const TensorSet& tensors,
                       const ScratchSet& scratch, bool writable_inputs = false);

  // Bench sets and timed samples with their per-sample checks (verdict_bench_samples.cc).
  // One bench shape's input sets: inputs (generated on the GPU), the reference's outputs for
  // them in separate buffers, input checksums, and the candidate plan bound to them.
  struct BenchSet {
    int id = 0;          // the candidate's name for it
    TensorSet tensors;   // shared with the candidate (inputs read-only there)
    TensorSet expected;  // the judge's alone
    ScratchSet scratch;  // shared with the candidate
    InputSecret input;   // key and regime of the inputs it holds now
  };
  absl::StatusOr<int> InputSetsThatFit(const Shape& shape) const;
  absl::StatusOr<BenchSet> MakeBenchSet(size_t i, int k);
  // Fresh inputs for the next timed sample on `set`, the expected outputs for them, poisoned
  // outputs.
  absl::Status PrepareSample(size_t i, BenchSet& set);
  // The expected outputs of bench shape i for `inputs`, into `expected`: from the problem's
  // first library baseline that computes the whole problem (cuBLAS: the same fp32 result, 10x
  // faster than a plain reference kernel, so checking every sample stays cheap) once it agreed
  // with the reference on this shape's first sample; else from the reference.
  absl::Status RunExpected(size_t i, const TensorSet& inputs, const TensorSet& expected);
  const LibraryBaselineSpec* FullLibraryBaseline() const;
  // nullopt when `actual` matches `expected`; else the failed outcome (detail names `when`).
  absl::StatusOr<std::optional<v1::TestOutcome>> CompareOnDevice(const Shape& shape,
                                                                 const TensorSet& actual,
                                                                 const TensorSet& expected,
                                                                 const std::string& when);

  // Input, guard-band and after-timing checks (verdict_integrity.cc).
  // The inputs of `tensors` against a private copy regenerated from `key`: the names of
  // those that differ byte for byte ("" when none).
  absl::StatusOr<std::string> ModifiedInputs(const Shape& shape, const TensorSet& tensors,
                                             const InputSecret& secret);
  // A fresh secret key for one input set (SecretKey::Draw, right before its inputs are
  // generated) with the regime chosen for it, both recorded for the result
  // (JobResult.input_keys: revealed with the verdict). `set` names it in the result
  // ("test 2", "bench 0 sample 14").
  absl::StatusOr<InputSecret> DrawInputSecret(const std::string& set, const Shape& shape,
                                              InputRegime regime);
  // Who picks a set's regime (regime_deck.h; all secret, from the OS CSPRNG): test shapes,
  // the warm-up sets and the re-check draw uniformly from the problem's drawable regimes;
  // the timed samples of bench shape i are dealt from that shape's deck (every regime within
  // the first |set| samples); baselines are always kDeclared.
  absl::StatusOr<InputRegime> AnyRegime() const;
  absl::StatusOr<InputRegime> NextSampleRegime(size_t i);
  // RUNTIME_ERROR naming the buffer, side and bytes when a guard of `buffers` was modified.
  absl::Status CheckGuards(const std::vector<GuardedBuffer>& buffers, const std::string& when);
  absl::Status RecheckAfterTiming(size_t i, BenchSet& set);

  // Baseline measurement (verdict_baselines.cc).
  // How many baselines of the bench shapes are not in RunSpec.cached_baselines.
  int MissingBaselineCount() const;
  // Those of one bench shape.
  int MissingBaselinesAt(const Shape& shape) const;
  // A baselines-only job from set-up to its verdict (see the header comment).
  absl::Status BaselinesOnlyJob();
  // Bench shape i of a baselines-only job: one bench set, its expected outputs, the baselines.
  absl::Status MeasureShapeBaselines(size_t i);
  absl::Status MeasureBaselines(size_t i, TensorSet& tensors, double floor_us);
  absl::Status CheckBaselineOutputs(const Shape& shape, const TensorSet& tensors);
  const v1::BaselineTiming* CachedBaseline(const std::string& shape,
                                           const std::string& name) const;

  // The facts decision_ decides on (verdict_report.cc): what was measured, as plain values.
  // The job-wide facts of timed jobs: clock monitor, event overhead calibration.
  BenchFacts MeasuredBenchFacts() const;
  SampleFacts MeasuredSampleFacts(const std::string& who, const Shape& shape,
                                  const TimingResult& t) const;
  TimingFacts MeasuredTimingFacts(const Shape& shape, const TimingResult& t,
                                  double floor_us) const;
  Ceilings MeasuredCeilings() const;
  // The baselines a CORRECT job's speedups are computed against: the cached ones of this
  // problem, then the new ones.
  std::vector<const v1::BaselineTiming*> SpeedupBaselines() const;

  RunnerEnv env_;
  v1::RunSpec run_;
  ProgressFn progress_;  // reports and remembers (last_progress_)
  struct LastProgress {
    v1::Stage stage = v1::STAGE_COMPILING;
    int done = 0;
    int total = 0;
  } last_progress_;
  // Makes process_ repeat the last progress report while it waits for a slow kernel.
  void TakeCandidateHeartbeat();
  uint64_t seed_ = 0;  // reported; no input derives from it (DrawInputSecret)
  GuardPattern guards_;  // the job's guard bands (a key of their own), set in Run()
  std::vector<InputSecret> test_inputs_;  // test shape i's inputs, drawn for its reference run
  std::map<size_t, RegimeDeck> sample_decks_;  // bench shape -> its timed samples' regimes
  uint64_t samples_drawn_ = 0;  // fresh inputs drawn for timed samples so far
  std::map<size_t, bool> library_oracle_ok_;  // bench shape -> the library agreed (RunExpected)
  std::string phases_;                        // Mark()
  std::chrono::steady_clock::time_point last_mark_;
  bool sticky_ = false;
  JobSetup setup_;
  CompileOutcome candidate_;
  CompileOutcome reference_;
  std::unique_ptr<CandidateProcess> process_;  // this job's candidate process
  int next_set_ = 0;
  std::optional<CudaModule> reference_module_;
  std::vector<std::vector<std::vector<double>>> reference_outputs_;  // [shape][output][element]
  int baselines_total_ = 0;
  int baselines_done_ = 0;
  std::vector<std::string> baselines_not_measured_;  // "name at shape: why" (MeasureBaselines)
  v1::RunnerResult out_;
  // The only writer of out_.result()'s verdict, message, cuda_error, tests, timings, flags
  // and speedups (verdict_decision.h): the steps above measure and report to it.
  VerdictDecision decision_{out_.mutable_result()};
};

}  // namespace kjudge::runner
