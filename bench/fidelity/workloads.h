// Workloads of the fidelity benchmark: things kjudge times, each set up the way a job (or the
// runner's baseline measurement) sets it up, with fresh device buffers for every "job"
// (Prepare() call).
//
//   * device copy: cudaMemcpyAsync device-to-device of `bytes` (source filled with random
//     floats by the runner's DeviceUtilities, so nothing is timed on zeros); up to 4 buffer
//     pairs (as many as fit in half the free memory) rotated across samples as a job rotates
//     its input sets (different addresses: the median does not hinge on one allocation's
//     placement), no hooks;
//   * a catalog problem's example solution, exactly like a job's bench shape: problem.toml +
//     example + reference loaded with common/problem_dir.h, the RunSpec the server would send,
//     SetUpJob() (plan parse + validation + name expressions), NVRTC through the runner's
//     CompileCached(), modules loaded; per job as many input sets as the verdict protocol would
//     use (up to 4, as fit in 90% of free memory: TensorSet + a reference copy of the outputs
//     + scratch each), each with inputs generated on the GPU, the reference run into its
//     expected outputs and a PlanExecutor prepared; before each sample the set's outputs are
//     poisoned and after it they are compared with the reference on the device (the verdict
//     protocol's hooks), so the timed runs are also checked;
//   * a problem's cublas_gemm baseline: the runner's MakeLibraryBaseline() on a fresh TensorSet.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem_dir.h"
#include "worker/judge/baseline_registry.h"
#include "worker/gpu/secret_key.h"
#include "worker/judge/cubin_cache.h"
#include "worker/gpu/cuda_module.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/gpu_context.h"
#include "worker/gpu/job_setup.h"
#include "worker/gpu/plan_executor.h"
#include "worker/gpu/timing.h"

namespace kjudge::bench {

// One prepared job: owns its device buffers. runs()[k] runs input set k (TimeRuns rotates);
// Before/After are the untimed per-sample hooks (After false = wrong output, with why()).
class Job {
 public:
  virtual ~Job() = default;
  virtual const std::vector<runner::RunFn>& runs() const = 0;
  virtual bool has_hooks() const { return false; }
  virtual absl::Status Before(size_t /*set*/) { return absl::OkStatus(); }
  virtual absl::StatusOr<bool> After(size_t /*set*/) { return true; }
  virtual std::string why() const { return ""; }
};

// What the workloads need from the runner-side environment (GPU members null without a GPU).
struct BenchEnv {
  const runner::GpuContext* gpu = nullptr;
  const runner::CubinCache* cache = nullptr;
  runner::DeviceUtilities* utilities = nullptr;
  runner::BaselineLibraries* libraries = nullptr;
  cudaStream_t stream = nullptr;
};

// The benchmark's keys: repeatable from its --seed (the judge draws every key from the OS
// CSPRNG; the generator's cost is the same for any key).
inline runner::SecretKey BenchKey(uint64_t seed, uint64_t index = 0) {
  runner::SecretKey key;
  key.words = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32U),
               static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32U), 0, 0, 0, 0};
  return key;
}

struct Workload {
  std::string kernel;       // e.g. "level1/19_ReLU example"
  std::string size;         // e.g. "M=4096,N=393216" or "16 MiB"
  size_t device_bytes = 0;  // device memory one input set needs
  double bytes_moved = 0.0;  // copies: bytes read + written per run
  std::function<absl::StatusOr<std::unique_ptr<Job>>(uint64_t seed)> prepare;
};

// A problem loaded and its example and reference compiled (and, with a GPU, loaded).
struct LoadedProblem {
  ProblemFiles files;
  runner::JobSetup setup;
  std::shared_ptr<runner::CudaModule> module;     // the example; null without a GPU
  std::shared_ptr<runner::CudaModule> reference;  // null without a GPU
  double compile_ms = 0.0;
  bool cache_hit = false;
};

// Loads problems_root/name, builds the job's RunSpec (the example as the submission), sets the
// job up and compiles example and reference for env.gpu->info.arch(); loads both modules when
// env has a GPU. A compile error is an error here (the catalog's examples must compile).
absl::StatusOr<LoadedProblem> LoadProblem(const std::filesystem::path& problems_root,
                                          const std::string& name, const BenchEnv& env);

runner::PlanLimits LimitsOf(const cudaDeviceProp& props);

Workload CopyWorkload(size_t bytes, const BenchEnv& env);
// One workload per bench shape of the problem: its example's plan.
absl::StatusOr<std::vector<Workload>> ExampleWorkloads(std::shared_ptr<LoadedProblem> problem,
                                                       const BenchEnv& env);
// One workload per (bench shape, cublas_gemm baseline) of the problem.
absl::StatusOr<std::vector<Workload>> CublasWorkloads(std::shared_ptr<LoadedProblem> problem,
                                                      const BenchEnv& env);

std::string BytesLabel(size_t bytes);  // "16 MiB", "4 GiB"

inline constexpr int kMaxInputSets = 4;  // as worker/judge/verdict_protocol.cc

}  // namespace kjudge::bench
