// OracleProcess (worker/oracle_client/) against the real PyTorch oracle
// (`python3 -m kjudge_oracle`, worker/oracle/) in "host" memory mode: tensors in memfds, no
// GPU. The module is written here in KernelBench's form; its outputs are checked against the
// same arithmetic done in C++. Failure modes use the real oracle too: a forward that sleeps
// (timeout: killed), one that ends the process (dead oracle), one that writes garbage to the
// oracle's socket (a bad reply: killed), a module that does not execute (ok false: it serves
// on). Skips (visibly) when the oracle package or the interpreter with torch is missing.
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "worker/oracle_client/oracle_process.h"
#include "worker/process/unique_fd.h"

namespace kjudge::oracle {
namespace {

using ::testing::HasSubstr;

constexpr int kBatch = 3;
constexpr int kFeatures = 5;
constexpr int kOut = 4;

// KernelBench's form: size globals, Model, get_inputs, get_init_inputs. `body` is the forward.
std::string ModuleSource(const std::string& body) {
  return "import os, time\n"
         "import torch\n"
         "import torch.nn as nn\n\n"
         "batch_size = 16\n"
         "in_features = 32\n"
         "out_features = 4\n\n"
         "class Model(nn.Module):\n"
         "    def __init__(self, in_features, out_features):\n"
         "        super().__init__()\n"
         "        self.linear = nn.Linear(in_features, out_features)\n\n"
         "    def forward(self, x):\n" +
         body +
         "\n\n"
         "def get_inputs():\n"
         "    return [torch.randn(batch_size, in_features)]\n\n"
         "def get_init_inputs():\n"
         "    return [in_features, out_features]\n";
}

const char* kScaledRelu = "        return torch.relu(self.linear(x)) * 2.0";

std::string Python() { return KJUDGE_TORCH_PYTHON; }
std::string Package() { return std::string(KJUDGE_SOURCE_DIR) + "/worker/oracle"; }

bool OracleMissing(std::string* why) {
  if (!std::filesystem::exists(Package() + "/kjudge_oracle/__main__.py")) {
    *why = "the oracle package is not in this tree (" + Package() +
           "/kjudge_oracle/__main__.py missing): oracle client tests skipped";
    return true;
  }
  if (access(Python().c_str(), X_OK) != 0) {
    *why = "no interpreter at KJUDGE_TORCH_PYTHON=" + Python() + ": oracle client tests skipped";
    return true;
  }
  return false;
}

#define SKIP_WITHOUT_ORACLE()                   \
  do {                                          \
    std::string why;                            \
    if (OracleMissing(&why)) GTEST_SKIP() << why; \
  } while (false)

OracleOptions Options(std::chrono::milliseconds timeout = std::chrono::milliseconds(60000)) {
  OracleOptions o;
  o.python = Python();
  o.package_dir = Package();
  o.request_timeout = timeout;
  return o;
}

// One tensor in a memfd of its own, `offset` bytes in (the protocol's offset is honoured).
struct HostTensor {
  process::UniqueFd fd;
  size_t bytes = 0;
  size_t offset = 0;
  float* data = nullptr;
  size_t count = 0;

  HostTensor(size_t n, size_t off) : bytes(off + n * sizeof(float) + 128), offset(off), count(n) {
    fd = process::UniqueFd(memfd_create("kjudge-oracle-test", MFD_CLOEXEC));
    EXPECT_GE(fd.get(), 0);
    EXPECT_EQ(ftruncate(fd.get(), static_cast<off_t>(bytes)), 0);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    EXPECT_NE(p, MAP_FAILED);
    data = reinterpret_cast<float*>(static_cast<char*>(p) + offset);
  }
  ~HostTensor() { munmap(reinterpret_cast<char*>(data) - offset, bytes); }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  OracleTensor Describe(const std::string& name, std::vector<int64_t> shape) const {
    return OracleTensor{name, "f32", std::move(shape), fd.get(), bytes, offset};
  }
};

OracleLoad LoadOf(const std::string& source, const std::string& key) {
  OracleLoad load;
  load.key = key;
  load.problem = "test/scaled_relu_linear";
  load.filename = "reference.py";
  load.source = source;
  load.globals = {{"batch_size", kBatch}, {"in_features", kFeatures}};
  load.forward = {"x"};
  load.parameters = {{"linear.weight", "linear_weight"}, {"linear.bias", "linear_bias"}};
  load.outputs = {"out"};
  return load;
}

// Inputs, parameters and an output filled with NaN, in memfds at odd offsets.
struct Problem {
  HostTensor x{kBatch * kFeatures, 64};
  HostTensor w{kOut * kFeatures, 4096};
  HostTensor b{kOut, 0};
  HostTensor out{kBatch * kOut, 256};

  Problem() {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0F, 1.0F);
    for (size_t i = 0; i < x.count; ++i) x.data[i] = normal(rng);
    for (size_t i = 0; i < w.count; ++i) w.data[i] = normal(rng);
    for (size_t i = 0; i < b.count; ++i) b.data[i] = normal(rng);
    for (size_t i = 0; i < out.count; ++i) out.data[i] = std::nanf("");
  }
  std::vector<OracleTensor> Tensors() const {
    return {x.Describe("x", {kBatch, kFeatures}), w.Describe("linear_weight", {kOut, kFeatures}),
            b.Describe("linear_bias", {kOut}), out.Describe("out", {kBatch, kOut})};
  }
  // 2 * relu(x @ W^T + b), in double.
  double Expected(int r, int c) const {
    double acc = b.data[c];
    for (int k = 0; k < kFeatures; ++k) {
      acc += static_cast<double>(x.data[r * kFeatures + k]) * w.data[c * kFeatures + k];
    }
    return 2.0 * std::max(acc, 0.0);
  }
};

TEST(OracleClient, HelloNamesTorch) {
  SKIP_WITHOUT_ORACLE();
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(Options());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  absl::StatusOr<OracleHello> hello = (*oracle)->AwaitHello();
  ASSERT_TRUE(hello.ok()) << hello.status();
  EXPECT_FALSE(hello->torch.empty());
  EXPECT_TRUE((*oracle)->alive());
}

TEST(OracleClient, LoadAndRunComputeTheModuleIntoTheOutputs) {
  SKIP_WITHOUT_ORACLE();
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(Options());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const std::string key = "test/scaled_relu_linear|batch_size=3,in_features=5";
  ASSERT_TRUE((*oracle)->Load(LoadOf(ModuleSource(kScaledRelu), key)).ok());
  Problem p;
  const std::vector<float> x_before(p.x.data, p.x.data + p.x.count);
  absl::StatusOr<double> ms = (*oracle)->Run(key, "f64", "host", p.Tensors());
  ASSERT_TRUE(ms.ok()) << ms.status();
  int positive = 0;
  for (int r = 0; r < kBatch; ++r) {
    for (int c = 0; c < kOut; ++c) {
      const double want = p.Expected(r, c);
      EXPECT_NEAR(p.out.data[r * kOut + c], want, 1e-5 * (1.0 + std::abs(want)))
          << "out[" << r << "," << c << "]";
      positive += want > 0.0 ? 1 : 0;
    }
  }
  EXPECT_GT(positive, 0);  // the relu did not zero everything: the weights were the judge's
  EXPECT_TRUE(std::equal(x_before.begin(), x_before.end(), p.x.data));  // inputs untouched
  // The same key again, other inputs: the module is kept, the outputs follow the inputs.
  for (size_t i = 0; i < p.x.count; ++i) p.x.data[i] = -p.x.data[i];
  ASSERT_TRUE((*oracle)->Run(key, "f64", "host", p.Tensors()).ok());
  EXPECT_NEAR(p.out.data[0], p.Expected(0, 0), 1e-5 * (1.0 + std::abs(p.Expected(0, 0))));
}

// The runner's two oracles (worker/judge/main.cc): the eager one begun at start-up, the compile
// one begun by its first Get(). Two live processes at once, each with its own loads.
TEST(OracleClient, TwoKeepersRunTwoOraclesWithTheirOwnLoads) {
  SKIP_WITHOUT_ORACLE();
  OracleKeeper eager(Options());
  OracleOptions compile_options = Options();
  compile_options.name = "PyTorch compile oracle";
  OracleKeeper compile(compile_options);
  eager.Begin();
  eager.Finish();
  ASSERT_TRUE(eager.available()) << eager.why_not();
  EXPECT_FALSE(compile.available());  // not started: nothing until its first need
  EXPECT_FALSE(compile.gave_up());
  absl::StatusOr<OracleProcess*> a = eager.Get();
  absl::StatusOr<OracleProcess*> b = compile.Get();
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(compile.available()) << compile.why_not();
  EXPECT_NE((*a)->pid(), (*b)->pid());
  EXPECT_EQ(eager.Get().value(), *a);  // the same process while it lives
  const std::string key = "test/scaled_relu_linear|batch_size=3,in_features=5";
  ASSERT_TRUE((*a)->Load(LoadOf(ModuleSource(kScaledRelu), key)).ok());
  Problem p;
  // Loaded in the eager oracle only: the compile oracle does not know the key.
  absl::StatusOr<double> unknown = (*b)->Run(key, "f64", "host", p.Tensors());
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("PyTorch compile oracle, op 'run'"));
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("unknown key"));
  // Its own load, another module under the same key: each process computes its own.
  ASSERT_TRUE((*b)->Load(LoadOf(ModuleSource("        return torch.relu(self.linear(x))"), key))
                  .ok());
  ASSERT_TRUE((*a)->Run(key, "f64", "host", p.Tensors()).ok());
  const float from_eager = p.out.data[0];
  ASSERT_TRUE((*b)->Run(key, "f64", "host", p.Tensors()).ok());
  EXPECT_NEAR(from_eager, p.Expected(0, 0), 1e-5 * (1.0 + std::abs(p.Expected(0, 0))));
  EXPECT_NEAR(p.out.data[0], p.Expected(0, 0) / 2.0, 1e-5 * (1.0 + std::abs(p.Expected(0, 0))));
  EXPECT_TRUE((*a)->alive());
  EXPECT_TRUE((*b)->alive());
}

// A compile keeper whose oracle cannot start gives up once and says why, without a retry.
TEST(OracleClient, ALazyKeeperThatCannotStartGivesUpOnce) {
  OracleOptions o;
  o.name = "PyTorch compile oracle";
  o.python = "/nonexistent/python3";
  OracleKeeper keeper(o);
  absl::StatusOr<OracleProcess*> p = keeper.Get();
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("this runner has no PyTorch compile oracle: --oracle-python"));
  EXPECT_TRUE(keeper.gave_up());
}

// Torch without torch.compile (Debian's 1.13): the state is "failed" with a reason, the oracle
// serves on, and asking again says the same (the oracle keeps the failed job). On a torch with
// torch.compile the compile runs to "ready" or "failed" instead.
TEST(OracleClient, CompileWithoutTorchCompileFailsWithAReason) {
  SKIP_WITHOUT_ORACLE();
  OracleKeeper keeper(Options());
  absl::StatusOr<OracleProcess*> oracle = keeper.Get();
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const std::string key = "test/scaled_relu_linear|compile";
  ASSERT_TRUE((*oracle)->Load(LoadOf(ModuleSource(kScaledRelu), key)).ok());
  absl::StatusOr<CompileState> state = (*oracle)->Compile(key);
  ASSERT_TRUE(state.ok()) << state.status();
  if (keeper.torch_version().rfind("1.", 0) != 0) {
    GTEST_SKIP() << "torch " << keeper.torch_version()
                 << " has torch.compile: the failed path is for torch 1.x (tests/oracle covers "
                    "a compile in progress)";
  }
  EXPECT_EQ(state->state, "failed");
  EXPECT_THAT(state->error, HasSubstr("has no torch.compile"));
  EXPECT_THAT(state->error, HasSubstr("reference.py"));
  absl::StatusOr<CompileState> again = (*oracle)->Compile(key);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->state, "failed");
  EXPECT_TRUE((*oracle)->alive());
  EXPECT_FALSE(keeper.compile_failed(key));  // the judge marks it (verdict_oracle.cc)
  keeper.set_compile_failed(key);
  keeper.set_compile_failed(key);
  EXPECT_TRUE(keeper.compile_failed(key));
  EXPECT_FALSE(keeper.compile_failed("test/scaled_relu_linear|other"));
}

// OracleOptions::env reaches the oracle (the compile oracle's TORCHINDUCTOR_COMPILE_THREADS).
TEST(OracleClient, ExtraEnvironmentReachesTheOracle) {
  SKIP_WITHOUT_ORACLE();
  OracleOptions o = Options();
  o.env = {"KJUDGE_TEST_SCALE=3"};
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(o);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const std::string key = "env|k";
  ASSERT_TRUE((*oracle)
                  ->Load(LoadOf(ModuleSource("        return torch.relu(self.linear(x)) * "
                                             "float(os.environ['KJUDGE_TEST_SCALE'])"),
                                key))
                  .ok());
  Problem p;
  ASSERT_TRUE((*oracle)->Run(key, "f64", "host", p.Tensors()).ok());
  EXPECT_NEAR(p.out.data[0], 1.5 * p.Expected(0, 0), 1e-5 * (1.0 + std::abs(p.Expected(0, 0))));
}

// The compile oracle sees what the oracle sees: the judge puts its device
// (CUDA_VISIBLE_DEVICES=GPU-<uuid>) in the eager options' env, and the compile options keep it
// beside their own variables (no oracle process needed).
TEST(OracleClient, CompileOracleOptionsKeepTheOraclesEnvironment) {
  OracleOptions eager;
  eager.env = {"CUDA_VISIBLE_DEVICES=GPU-00112233-4455-6677-8899-aabbccddeeff"};
  const OracleOptions compile = CompileOracleOptions(eager, "/tmp/kjudge-inductor");
  EXPECT_EQ(compile.name, "PyTorch compile oracle");
  EXPECT_EQ(compile.env, (std::vector<std::string>{
                             "CUDA_VISIBLE_DEVICES=GPU-00112233-4455-6677-8899-aabbccddeeff",
                             "KJUDGE_ORACLE_ROLE=compile", "TORCHINDUCTOR_COMPILE_THREADS=1",
                             "TORCHINDUCTOR_CACHE_DIR=/tmp/kjudge-inductor"}));
}

// A model binds one descriptor per tensor, more than one packet carries (250): 300 parameters,
// the input and the output (302 memfds) reach the oracle over fds packets, in order, and its
// output is x + the sum of all 300 parameters, each a different value.
TEST(OracleClient, AModelWithMoreTensorsThanAPacketCarriesRuns) {
  SKIP_WITHOUT_ORACLE();
  constexpr int kRows = 4;
  constexpr int kTerms = 300;
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n\n"
      "rows = 4\n"
      "n_terms = 3\n\n"
      "class Model(nn.Module):\n"
      "    def __init__(self, rows, n_terms):\n"
      "        super().__init__()\n"
      "        self.terms = nn.ParameterList([nn.Parameter(torch.zeros(rows)) "
      "for _ in range(n_terms)])\n\n"
      "    def forward(self, x):\n"
      "        for t in self.terms:\n"
      "            x = x + t\n"
      "        return x\n\n"
      "def get_inputs():\n"
      "    return [torch.randn(rows)]\n\n"
      "def get_init_inputs():\n"
      "    return [rows, n_terms]\n";
  OracleLoad load;
  load.key = "many|k";
  load.problem = "test/many_parameters";
  load.filename = "reference.py";
  load.source = source;
  load.globals = {{"rows", kRows}, {"n_terms", kTerms}};
  load.forward = {"x"};
  load.outputs = {"out"};
  std::vector<std::unique_ptr<HostTensor>> held;
  std::vector<OracleTensor> tensors;
  held.push_back(std::make_unique<HostTensor>(kRows, 0));
  tensors.push_back(held.back()->Describe("x", {kRows}));
  for (int r = 0; r < kRows; ++r) held[0]->data[r] = static_cast<float>(r);
  for (int t = 0; t < kTerms; ++t) {
    const std::string name = "t" + std::to_string(t);
    load.parameters.emplace_back("terms." + std::to_string(t), name);
    held.push_back(std::make_unique<HostTensor>(kRows, 64));
    for (int r = 0; r < kRows; ++r) held.back()->data[r] = static_cast<float>(t + 1) * (r + 1);
    tensors.push_back(held.back()->Describe(name, {kRows}));
  }
  held.push_back(std::make_unique<HostTensor>(kRows, 128));
  for (int r = 0; r < kRows; ++r) held.back()->data[r] = std::nanf("");
  tensors.push_back(held.back()->Describe("out", {kRows}));
  ASSERT_GT(tensors.size(), kMaxPacketFds);

  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(Options());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  ASSERT_TRUE((*oracle)->Load(load).ok());
  const absl::StatusOr<double> run = (*oracle)->Run(load.key, "f64", "host", tensors);
  ASSERT_TRUE(run.ok()) << run.status();
  // sum over t of (t + 1) * (r + 1) = (r + 1) * kTerms * (kTerms + 1) / 2
  for (int r = 0; r < kRows; ++r) {
    EXPECT_DOUBLE_EQ(held.back()->data[r], r + (r + 1) * kTerms * (kTerms + 1) / 2.0) << r;
  }
  // The oracle serves on: the same run again (its fds packets did not desynchronize it).
  for (int r = 0; r < kRows; ++r) held.back()->data[r] = std::nanf("");
  ASSERT_TRUE((*oracle)->Run(load.key, "f64", "host", tensors).ok());
  EXPECT_DOUBLE_EQ(held.back()->data[0], kTerms * (kTerms + 1) / 2.0);
}

TEST(OracleClient, AnErrorReplyNamesTheFileAndTheOracleServesOn) {
  SKIP_WITHOUT_ORACLE();
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(Options());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  absl::StatusOr<double> bad = (*oracle)->Load(LoadOf("def broken(:\n", "bad|k"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("PyTorch oracle, op 'load'"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("reference.py"));
  EXPECT_TRUE((*oracle)->alive());
  EXPECT_TRUE((*oracle)->Load(LoadOf(ModuleSource(kScaledRelu), "good|k")).ok());
}

// OracleOptions::patience (the compile oracle's): a load that takes longer is "busy" at once,
// the oracle lives on, a second impatient request is refused while the reply is due, and the
// late reply is read and dropped by the next patient request (the load itself took effect).
TEST(OracleClient, AnImpatientLoadIsBusyNotKilledAndItsLateReplyIsDropped) {
  SKIP_WITHOUT_ORACLE();
  OracleOptions o = Options();
  o.patience = std::chrono::milliseconds(250);
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(o);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  ASSERT_TRUE((*oracle)->AwaitHello().ok());
  const std::string slow = "import time\ntime.sleep(1.5)\n" + ModuleSource(kScaledRelu);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<double> loaded = (*oracle)->Load(LoadOf(slow, "slow|k"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDeadlineExceeded) << loaded.status();
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("busy"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1200));
  EXPECT_TRUE((*oracle)->alive());
  absl::StatusOr<double> again = (*oracle)->Load(LoadOf(ModuleSource(kScaledRelu), "fast|k"));
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(std::string(again.status().message()), HasSubstr("still unanswered"));
  Problem p;
  absl::StatusOr<double> ran = (*oracle)->Run("slow|k", "f64", "host", p.Tensors());
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_NEAR(p.out.data[0], p.Expected(0, 0), 1e-5);
  EXPECT_TRUE((*oracle)->alive());
}

TEST(OracleClient, ARequestPastItsTimeoutKillsTheOracle) {
  SKIP_WITHOUT_ORACLE();
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle =
      OracleProcess::Start(Options(std::chrono::milliseconds(1500)));
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const std::string key = "slow|k";
  ASSERT_TRUE((*oracle)->Load(LoadOf(ModuleSource("        time.sleep(60)\n        return x"),
                                     key)).ok());
  Problem p;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<double> ran = (*oracle)->Run(key, "f64", "host", p.Tensors());
  ASSERT_FALSE(ran.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_THAT(std::string(ran.status().message()), HasSubstr("op 'run'"));
  EXPECT_THAT(std::string(ran.status().message()), HasSubstr("no reply within 1.5 s"));
  EXPECT_FALSE((*oracle)->alive());
  absl::StatusOr<double> after = (*oracle)->Run(key, "f64", "host", p.Tensors());
  ASSERT_FALSE(after.ok());
  EXPECT_THAT(std::string(after.status().message()), HasSubstr("killed by signal 9"));
}

TEST(OracleClient, AnOracleThatDiesSaysHowItEnded) {
  SKIP_WITHOUT_ORACLE();
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(Options());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const std::string key = "dies|k";
  ASSERT_TRUE((*oracle)->Load(LoadOf(ModuleSource("        os._exit(7)"), key)).ok());
  Problem p;
  absl::StatusOr<double> ran = (*oracle)->Run(key, "f64", "host", p.Tensors());
  ASSERT_FALSE(ran.ok());
  EXPECT_THAT(std::string(ran.status().message()),
              HasSubstr("PyTorch oracle, op 'run': the oracle process exited with status 7"));
  EXPECT_FALSE((*oracle)->alive());
}

TEST(OracleClient, AnUnparsableReplyKillsTheOracle) {
  SKIP_WITHOUT_ORACLE();
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(Options());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const std::string key = "garbage|k";
  // The module writes into the oracle's own socket (descriptor 3) before the real reply.
  ASSERT_TRUE((*oracle)->Load(LoadOf(ModuleSource("        os.write(3, b'{not json')\n"
                                                  "        return torch.relu(self.linear(x))"),
                                     key)).ok());
  Problem p;
  absl::StatusOr<double> ran = (*oracle)->Run(key, "f64", "host", p.Tensors());
  ASSERT_FALSE(ran.ok());
  EXPECT_THAT(std::string(ran.status().message()), HasSubstr("an unparsable reply"));
  EXPECT_THAT(std::string(ran.status().message()), HasSubstr("{not json"));
  EXPECT_FALSE((*oracle)->alive());
}

// Needs neither torch nor the package: an interpreter that exits at once.
TEST(OracleClient, AnOracleThatNeverSaysHelloIsAClearError) {
  OracleOptions o;
  o.python = "/bin/false";
  o.package_dir = "/nonexistent";
  o.hello_timeout = std::chrono::milliseconds(10000);
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Start(o);
  ASSERT_FALSE(oracle.ok());
  EXPECT_THAT(std::string(oracle.status().message()),
              HasSubstr("PyTorch oracle, op 'hello': the oracle process exited with status 1"));
}

TEST(OracleClient, AMissingInterpreterIsNamed) {
  OracleOptions o;
  o.python = "/nonexistent/python3";
  absl::StatusOr<std::unique_ptr<OracleProcess>> oracle = OracleProcess::Spawn(o);
  ASSERT_FALSE(oracle.ok());
  EXPECT_THAT(std::string(oracle.status().message()),
              HasSubstr("--oracle-python /nonexistent/python3 is not executable"));
}

}  // namespace
}  // namespace kjudge::oracle
