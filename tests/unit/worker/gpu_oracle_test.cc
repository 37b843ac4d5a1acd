// The PyTorch oracle on a GPU (part of test_worker_gpu): the oracle client with CUDA VMM
// buffers the judge exports ("cuda" memory), and whole jobs of a problem defined by a PyTorch
// module judged against the oracle (expected outputs, torch_eager baseline; torch_compile in the
// compile oracle, a second process, timed by a later job). Skips, visibly, without a GPU,
// without the oracle package or torch with CUDA at KJUDGE_TORCH_PYTHON, and (the job tests)
// while the spec parser does not know [reference] module / [module].
#include <cuda_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/sha256.h"
#include "tests/unit/worker/test_problem.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/job_setup.h"
#include "worker/judge/verdict_protocol.h"
#include "worker/oracle_client/oracle_process.h"

namespace kjudge::runner {

// A job in gpu_test.cc's runner environment (one per test binary) with `keeper` as its oracle
// and `compile_keeper` as its compile oracle (null: no torch_compile, as --no-torch-compile).
// `cross_check`: as kjudge-runner --oracle-cross-check.
v1::RunnerResult JudgeForOracleTest(const v1::RunSpec& spec, oracle::OracleKeeper* keeper,
                                    oracle::OracleKeeper* compile_keeper = nullptr,
                                    bool cross_check = false);

namespace {

using ::testing::HasSubstr;

std::string Package() { return std::string(KJUDGE_SOURCE_DIR) + "/worker/oracle"; }

// $KJUDGE_TORCH_PYTHON at run time, else the configured one: a bundle's test binaries run on
// a GPU host whose torch is not the build machine's /usr/bin/python3.
std::string TorchPython() {
  const char* env = std::getenv("KJUDGE_TORCH_PYTHON");
  return env != nullptr && *env != '\0' ? env : KJUDGE_TORCH_PYTHON;
}

oracle::OracleOptions Options() {
  oracle::OracleOptions o;
  o.python = TorchPython();
  o.package_dir = Package();
  return o;
}

// Why the oracle cannot be tested here ("" when it can): no GPU, no package, no CUDA torch.
std::string OracleUnavailable() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    return "no CUDA device: GPU oracle tests skipped";
  }
  if (!std::filesystem::exists(Package() + "/kjudge_oracle/__main__.py")) {
    return "no oracle package in this tree (" + Package() + "): GPU oracle tests skipped";
  }
  static const std::string why = [] {
    absl::StatusOr<std::unique_ptr<oracle::OracleProcess>> p =
        oracle::OracleProcess::Start(Options());
    if (!p.ok()) return "the oracle does not start: " + std::string(p.status().message());
    absl::StatusOr<oracle::OracleHello> hello = (*p)->AwaitHello();
    if (!hello.ok() || !hello->cuda) return std::string("the oracle's torch has no CUDA: skipped");
    return std::string();
  }();
  return why;
}

#define SKIP_WITHOUT_GPU_ORACLE()                           \
  do {                                                      \
    const std::string why = OracleUnavailable();            \
    if (!why.empty()) GTEST_SKIP() << why;                  \
  } while (false)

// KernelBench's form, written for this test: y = relu(x).
const char* kReluModule = R"py(import torch
import torch.nn as nn

batch_size = 16
dim = 16384

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []
)py";

const char* kModuleSpec = R"toml(name = "test/relu_module"
level = 1
title = "ReLU (PyTorch module)"
description = "relu"
sizes = ["batch_size", "dim"]
test_shapes = [ { batch_size = 1, dim = 1 }, { batch_size = 3, dim = 37 } ]
bench_shapes = [ { batch_size = 64, dim = 4096 } ]

[[tensor]]
name = "x"
dtype = "f32"
shape = ["batch_size", "dim"]
role = "in"
init = { dist = "normal", mean = 0.0, std = 1.0 }

[[tensor]]
name = "out"
dtype = "f32"
shape = ["batch_size", "dim"]
role = "out"

[reference]
module = "reference.py"

[module]
globals = ["batch_size", "dim"]
forward = ["x"]
outputs = ["out"]
precision = "f64"

[tolerance]
atol = 1e-6
rtol = 1e-6
rel_l2 = 1e-6

[cost]
flops = "batch_size * dim"
bytes = "8 * batch_size * dim"
)toml";

std::string Candidate(const std::string& expr) {
  return "/* kjudge-plan\nrelu<<<cdiv(batch_size * dim, 256), 256>>>(x, out, batch_size * dim);"
         "\n*/\nextern \"C\" __global__ void relu(const float* x, float* out, long long n) {\n"
         "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = " +
         expr + ";\n}\n";
}

v1::RunSpec ModuleRunSpec(const std::string& source) {
  v1::RunSpec spec;
  spec.set_job_id("oracle-job");
  spec.set_problem("test/relu_module");
  spec.set_spec_toml(kModuleSpec);
  spec.set_reference_module(kReluModule);
  spec.set_source(source);
  spec.set_filename("solution.cu");
  spec.set_seed(42);
  return spec;
}

TEST(GpuOracle, RunWritesTheJudgesSharedDeviceBuffers) {
  SKIP_WITHOUT_GPU_ORACLE();
  const GuardPattern guards;  // any key will do: the test checks values, not guards
  const int rows = 3;
  const int cols = 37;
  const size_t bytes = rows * cols * sizeof(float);
  absl::StatusOr<DeviceBuffer> x = DeviceBuffer::AllocateGuardedShared(bytes, "x", guards, 0);
  absl::StatusOr<DeviceBuffer> y = DeviceBuffer::AllocateGuardedShared(bytes, "out", guards, 0);
  ASSERT_TRUE(x.ok() && y.ok());
  std::vector<float> host(rows * cols);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  for (float& v : host) v = normal(rng);
  ASSERT_EQ(cudaMemcpy(x->get(), host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(y->get(), 0xFF, bytes), cudaSuccess);
  absl::StatusOr<std::unique_ptr<oracle::OracleProcess>> p =
      oracle::OracleProcess::Start(Options());
  ASSERT_TRUE(p.ok()) << p.status();
  oracle::OracleLoad load;
  load.key = "test/relu_module|batch_size=3,dim=37";
  load.problem = "test/relu_module";
  load.filename = "reference.py";
  load.source = kReluModule;
  load.globals = {{"batch_size", rows}, {"dim", cols}};
  load.forward = {"x"};
  load.outputs = {"out"};
  ASSERT_TRUE((*p)->Load(load).ok());
  const int xfd = *x->Export();
  const int yfd = *y->Export();
  const std::vector<oracle::OracleTensor> tensors = {
      {"x", "f32", {rows, cols}, xfd, x->alloc_bytes(), x->data_offset()},
      {"out", "f32", {rows, cols}, yfd, y->alloc_bytes(), y->data_offset()}};
  absl::StatusOr<double> ran = (*p)->Run(load.key, "f64", "cuda", tensors);
  close(xfd);
  close(yfd);
  ASSERT_TRUE(ran.ok()) << ran.status();
  std::vector<float> got(rows * cols);
  ASSERT_EQ(cudaMemcpy(got.data(), y->get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], std::max(host[i], 0.0F)) << i;
}

// One oracle for the job tests, as a runner holds it.
oracle::OracleKeeper& Keeper() {
  static oracle::OracleKeeper* keeper = [] {
    auto* k = new oracle::OracleKeeper(Options());
    k->Begin();
    k->Finish();
    return k;
  }();
  return *keeper;
}

// Whole jobs need the [module] spec parser (docs/pytorch-problems.md §1).
std::string ParserMissing() {
  absl::StatusOr<JobSetup> setup = SetUpJob(ModuleRunSpec(Candidate("fmaxf(x[i], 0.0f)")));
  if (!setup.ok()) {
    return "the spec parser does not take [reference] module yet: " +
           std::string(setup.status().message());
  }
  if (!setup->spec.module.has_value() || setup->spec.module->forward.empty()) return "the spec parser leaves [module] empty";
  return "";
}

#define SKIP_WITHOUT_MODULE_JOBS()                   \
  do {                                               \
    SKIP_WITHOUT_GPU_ORACLE();                       \
    const std::string parser = ParserMissing();      \
    if (!parser.empty()) GTEST_SKIP() << parser;     \
  } while (false)


TEST(GpuOracle, ModuleProblemIsJudgedAgainstTheOracle) {
  SKIP_WITHOUT_MODULE_JOBS();
  const v1::RunnerResult r =
      JudgeForOracleTest(ModuleRunSpec(Candidate("fmaxf(x[i], 0.0f)")), &Keeper());
  EXPECT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
  bool eager = false;
  for (const v1::BaselineTiming& b : r.new_baselines()) {
    EXPECT_NE(b.name(), "reference");  // there is no reference.cu to time
    eager = eager || b.name() == "torch_eager";
  }
  EXPECT_TRUE(eager) << "no torch_eager baseline";
  // The oracle is the reference: a kernel that is wrong only where x < -1 fails.
  const v1::RunnerResult wrong = JudgeForOracleTest(
      ModuleRunSpec(Candidate("x[i] < -1.0f ? -x[i] : fmaxf(x[i], 0.0f)")), &Keeper());
  EXPECT_EQ(wrong.result().verdict(), v1::WRONG_ANSWER) << wrong.result().message();
}

bool HasBaseline(const v1::RunnerResult& r, const std::string& name) {
  return std::any_of(r.new_baselines().begin(), r.new_baselines().end(),
                     [&](const v1::BaselineTiming& b) { return b.name() == name; });
}

// torch_compile in the compile oracle (a second process, begun by the first job that needs
// it): the first job starts the compile and does not wait; a later job times it (torch >= 2)
// and Inductor's artefacts are in the oracle's --torch-compile-cache folder,
// or, on torch without torch.compile, the failure is remembered and not asked again.
TEST(GpuOracle, TorchCompileIsTimedInTheCompileOracleByALaterJob) {
  SKIP_WITHOUT_MODULE_JOBS();
  // As kjudge-runner --torch-compile-cache DIR: Inductor's artefacts must land in DIR.
  char cache_templ[] = "/tmp/kjudge-compile-cache-XXXXXX";
  ASSERT_NE(mkdtemp(cache_templ), nullptr);
  const std::string cache_dir = cache_templ;
  oracle::OracleKeeper compile(oracle::CompileOracleOptions(Options(), cache_dir));
  const v1::RunSpec spec = ModuleRunSpec(Candidate("fmaxf(x[i], 0.0f)"));
  absl::StatusOr<JobSetup> setup = SetUpJob(spec);
  ASSERT_TRUE(setup.ok()) << setup.status();
  const std::string key = spec.problem() + "|" + setup->spec.bench_shapes.at(0).Label() + "|" +
                          Sha256Hex(spec.reference_module()).substr(0, 16);
  const v1::RunnerResult first = JudgeForOracleTest(spec, &Keeper(), &compile);
  EXPECT_EQ(first.result().verdict(), v1::CORRECT) << first.result().message();
  EXPECT_TRUE(HasBaseline(first, "torch_eager"));
  EXPECT_FALSE(HasBaseline(first, "torch_compile"));  // started, not waited for
  ASSERT_TRUE(compile.available()) << compile.why_not();
  EXPECT_NE(Keeper().Get().value()->pid(), compile.Get().value()->pid());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  bool timed = false;
  int jobs = 1;
  while (!timed && !compile.compile_failed(key) && std::chrono::steady_clock::now() < deadline) {
    sleep(2);
    const v1::RunnerResult r = JudgeForOracleTest(spec, &Keeper(), &compile);
    ++jobs;
    EXPECT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
    timed = HasBaseline(r, "torch_compile");
  }
  if (compile.torch_version().rfind("1.", 0) == 0) {
    EXPECT_TRUE(compile.compile_failed(key)) << "torch " << compile.torch_version();
    const v1::RunnerResult after = JudgeForOracleTest(spec, &Keeper(), &compile);
    EXPECT_FALSE(HasBaseline(after, "torch_compile"));
    return;
  }
  EXPECT_TRUE(timed) << "no torch_compile baseline after " << jobs << " jobs (torch "
                     << compile.torch_version() << "); the runner's log says why";
  size_t cached_files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cache_dir)) {
    cached_files += e.is_regular_file() ? 1 : 0;
  }
  EXPECT_GT(cached_files, 0u) << "the compile oracle did not use its cache dir " << cache_dir;
  std::filesystem::remove_all(cache_dir);
}

TEST(GpuOracle, ModuleProblemWithoutAnOracleIsInternalError) {
  SKIP_WITHOUT_MODULE_JOBS();
  const v1::RunnerResult r =
      JudgeForOracleTest(ModuleRunSpec(Candidate("fmaxf(x[i], 0.0f)")), nullptr);
  EXPECT_EQ(r.result().verdict(), v1::INTERNAL_ERROR);
  EXPECT_THAT(r.result().message(), HasSubstr("this runner has no PyTorch oracle"));
}

// A problem with both references: reference.cu computing `body` for out[i].
v1::RunSpec BothReferences(const std::string& body) {
  v1::RunSpec spec = ModuleRunSpec(Candidate("fmaxf(x[i], 0.0f)"));
  std::string toml = kModuleSpec;
  const std::string module_line = "[reference]\nmodule = \"reference.py\"\n";
  const size_t at = toml.find(module_line);
  EXPECT_NE(at, std::string::npos);
  toml.replace(at, module_line.size(),
               "[reference]\nsource = \"reference.cu\"\nplan = \"\"\"relu_ref<<<cdiv(batch_size * "
               "dim, 256), 256>>>(x, out, batch_size * dim);\"\"\"\nmodule = \"reference.py\"\n");
  spec.set_spec_toml(toml);
  spec.set_reference_source(
      "extern \"C\" __global__ void relu_ref(const float* x, float* out, long long n) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = " + body + ";\n}\n");
  return spec;
}

// --oracle-cross-check: reference.cu that agrees with reference.py passes (and torch_eager is
// timed beside "reference": every problem with reference.py gets it); one wrong where x < -1
// fails the job, naming the disagreement. Without the flag that wrong reference.cu is the
// judge's truth and the correct candidate is WRONG_ANSWER: the check is what catches it.
TEST(GpuOracle, CrossCheckComparesReferenceCuWithTheOracle) {
  SKIP_WITHOUT_MODULE_JOBS();
  const v1::RunnerResult agree =
      JudgeForOracleTest(BothReferences("fmaxf(x[i], 0.0f)"), &Keeper(), nullptr, true);
  EXPECT_EQ(agree.result().verdict(), v1::CORRECT) << agree.result().message();
  EXPECT_TRUE(HasBaseline(agree, "reference"));
  EXPECT_TRUE(HasBaseline(agree, "torch_eager"));
  const std::string wrong_body = "x[i] < -1.0f ? -x[i] : fmaxf(x[i], 0.0f)";
  const v1::RunnerResult disagree =
      JudgeForOracleTest(BothReferences(wrong_body), &Keeper(), nullptr, true);
  EXPECT_EQ(disagree.result().verdict(), v1::INTERNAL_ERROR) << disagree.result().message();
  EXPECT_THAT(disagree.result().message(), HasSubstr("reference.cu disagrees with the PyTorch oracle"));
  const v1::RunnerResult unchecked = JudgeForOracleTest(BothReferences(wrong_body), &Keeper());
  EXPECT_EQ(unchecked.result().verdict(), v1::WRONG_ANSWER) << unchecked.result().message();
}

// A baselines-only job (RunSpec.baselines_only: no source, no plan) of the module problem: no
// candidate, no test shapes; the oracle's bench set and torch_eager, checked as in a full job.
// With torch_eager cached there is nothing left to measure.
TEST(GpuOracle, BaselinesOnlyJobMeasuresTorchEagerWithoutACandidate) {
  SKIP_WITHOUT_MODULE_JOBS();
  v1::RunSpec spec = ModuleRunSpec("");
  spec.set_job_id("baselines-only");
  spec.set_baselines_only(true);
  const v1::RunnerResult r = JudgeForOracleTest(spec, &Keeper());
  EXPECT_EQ(r.result().verdict(), v1::BASELINES_MEASURED) << r.result().message();
  EXPECT_TRUE(HasBaseline(r, "torch_eager")) << r.result().message();
  EXPECT_FALSE(HasBaseline(r, "reference"));  // there is no reference.cu to time
  EXPECT_THAT(r.result().message(), HasSubstr("measured torch_eager at "));
  EXPECT_TRUE(r.result().timings().empty());   // no candidate timings
  EXPECT_TRUE(r.result().tests().empty());     // no test shapes
  EXPECT_TRUE(r.result().speedups().empty());
  EXPECT_EQ(r.result().compile_ms(), 0.0);     // nothing compiled
  EXPECT_TRUE(r.result().candidate_output().empty());
  for (const v1::BaselineTiming& b : r.new_baselines()) {
    EXPECT_GT(b.timing().median_us(), 0.0) << b.name();
    EXPECT_EQ(b.problem(), spec.problem());
    EXPECT_FALSE(b.hardware_key().empty());
  }

  for (const v1::BaselineTiming& b : r.new_baselines()) *spec.add_cached_baselines() = b;
  const v1::RunnerResult again = JudgeForOracleTest(spec, &Keeper());
  EXPECT_EQ(again.result().verdict(), v1::BASELINES_MEASURED) << again.result().message();
  EXPECT_TRUE(again.new_baselines().empty());
  EXPECT_THAT(again.result().message(), HasSubstr("nothing to measure"));
}

// The same problem with reference.cu too: "reference" is timed beside torch_eager, on the bench
// set whose expected outputs reference.cu computed.
TEST(GpuOracle, BaselinesOnlyJobTimesTheCudaReferenceToo) {
  SKIP_WITHOUT_MODULE_JOBS();
  v1::RunSpec spec = BothReferences("fmaxf(x[i], 0.0f)");
  spec.clear_source();
  spec.set_baselines_only(true);
  const v1::RunnerResult r = JudgeForOracleTest(spec, &Keeper());
  EXPECT_EQ(r.result().verdict(), v1::BASELINES_MEASURED) << r.result().message();
  EXPECT_TRUE(HasBaseline(r, "reference")) << r.result().message();
  EXPECT_TRUE(HasBaseline(r, "torch_eager")) << r.result().message();
  EXPECT_TRUE(r.result().timings().empty());
}

}  // namespace
}  // namespace kjudge::runner
