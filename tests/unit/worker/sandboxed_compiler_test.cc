// kjudge-compiler with real NVRTC, as the runner uses it: hostile includes read nothing, limits
// end in a compile error naming them, huge logs are capped, normal kernels still compile.
// Works as root (CI: the compiler drops to nobody) and as any other user.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "worker/compiler/compile_protocol.h"
#include "worker/compiler/landlock.h"
#include "worker/compiler/log_cap.h"
#include "worker/compiler/sandboxed_compiler.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::compiler {
namespace {

namespace fs = std::filesystem;
using runner::CompileOutcome;
using runner::CompileRequest;

SandboxedCompilerOptions Options() {
  SandboxedCompilerOptions options;
  options.compiler_path = KJUDGE_COMPILER_PATH;
  return options;
}

CompileRequest Request(std::string source, std::vector<std::string> names = {}) {
  CompileRequest request;
  request.source = std::move(source);
  request.name_expressions = std::move(names);
  return request;
}

std::string RandomMarker() {
  std::random_device rd;
  return "KJSECRET" + std::to_string(rd()) + "X" + std::to_string(rd());
}

// Every byte the compile produced that a submitter could see.
std::string Visible(const CompileOutcome& o) {
  std::string all = o.log + "\n" + o.message + "\n" + o.program.cubin;
  for (const auto& [expr, lowered] : o.program.lowered_names) all += expr + lowered;
  return all;
}

// A world-readable secret (so only the sandbox, not file permissions, keeps it from a
// compiler running as nobody), holding a C string literal: an include of it that works would
// compile and put the marker in the cubin.
class SecretFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kjudge-sandbox-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    marker_ = RandomMarker();
    Write(dir_ / "secret.h", "\"" + marker_ + "\"\n");
    fs::create_directories(dir_ / "sub");
    Write(dir_ / "x", "\"" + marker_ + "\"\n");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static void Write(const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                              fs::perms::others_read);
  }
  // An include whose contents end up in a __device__ string: a leak even with an empty log.
  static std::string StringifiedInclude(const std::string& include) {
    return "__device__ const char leak[] =\n#include " + include +
           "\n;\n__global__ void k(char* o) { o[0] = leak[threadIdx.x]; }\n";
  }
  void ExpectNoLeak(const std::string& source, const std::string& marker) {
    SCOPED_TRACE(source);
    absl::StatusOr<CompileOutcome> o = SandboxedCompiler(Options()).Compile(Request(source));
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_FALSE(o->success);
    EXPECT_TRUE(o->program.cubin.empty());
    EXPECT_EQ(Visible(*o).find(marker), std::string::npos) << o->log;
  }
  fs::path dir_;
  std::string marker_;
};

TEST_F(SecretFiles, ControlTheSecretLeaksWithoutTheSandbox) {
  // Proves the other tests meaningful: in-process NVRTC reads the secret into the cubin.
  absl::StatusOr<CompileOutcome> o =
      runner::CompileWithNvrtc(Request(StringifiedInclude("\"" + (dir_ / "secret.h").string() + "\"")));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->success) << o->log;
  EXPECT_NE(o->program.cubin.find(marker_), std::string::npos);
}

TEST_F(SecretFiles, AbsoluteIncludesReadNothing) {
  ExpectNoLeak(StringifiedInclude("\"" + (dir_ / "secret.h").string() + "\""), marker_);
  ExpectNoLeak(StringifiedInclude("<" + (dir_ / "secret.h").string() + ">"), marker_);
  ExpectNoLeak("#include \"/etc/passwd\"\n", "root:");
  ExpectNoLeak("#include </proc/self/status>\n", "VmRSS");
  ExpectNoLeak("#include \"/proc/self/environ\"\n", "PATH=");
}

TEST_F(SecretFiles, ParentEnvironmentNeverReachesTheCompiler) {
  ::setenv("KJUDGE_API_KEY", marker_.c_str(), 1);
  ExpectNoLeak("#include \"/proc/self/environ\"\n", marker_);
  ExpectNoLeak("#include \"/proc/" + std::to_string(::getpid()) + "/environ\"\n", marker_);
  ExpectNoLeak("#include \"/proc/" + std::to_string(::getppid()) + "/environ\"\n", marker_);
  ::unsetenv("KJUDGE_API_KEY");
}

TEST_F(SecretFiles, RelativeIncludesReadNothing) {
  // <../..> climbs out of the CUDA include dir; "../x" resolves against the working directory.
  std::string up;
  for (int i = 0; i < 12; ++i) up += "../";
  ExpectNoLeak(StringifiedInclude("<" + up + (dir_ / "secret.h").string().substr(1) + ">"), marker_);
  ExpectNoLeak("#include <../../../etc/passwd>\n", "root:");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_ / "sub");
  ExpectNoLeak(StringifiedInclude("\"../x\""), marker_);
  fs::current_path(cwd);
}

TEST(SandboxedCompiler, NormalKernelCompilesWithLoweredNames) {
  const std::string source = R"(#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>
template <int B> __global__ void scale(float* x, float a) { x[blockIdx.x * B + threadIdx.x] *= a; }
__global__ void relu(float* x) { x[threadIdx.x] = fmaxf(x[threadIdx.x], 0.0f); }
)";
  absl::StatusOr<CompileOutcome> o =
      SandboxedCompiler(Options()).Compile(Request(source, {"relu", "scale<256>"}));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->success) << o->log << o->message;
  EXPECT_EQ(o->program.cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(o->program.lowered_names.at("relu"), "_Z4reluPf");
  EXPECT_EQ(o->program.lowered_names.at("scale<256>"), "_Z5scaleILi256EEvPff");
  EXPECT_NE(o->sandbox.find("landlock abi"), std::string::npos) << o->sandbox;
  EXPECT_NE(o->sandbox.find("seccomp"), std::string::npos) << o->sandbox;
  if (::geteuid() == 0) {
    EXPECT_NE(o->sandbox.find("uid 65534"), std::string::npos) << o->sandbox;
  }
  EXPECT_GT(o->peak_rss_kib, 0);
  EXPECT_TRUE(o->limit_hit.empty());
  // The same cubin as an in-process compile: the sandbox changes nothing about the output.
  absl::StatusOr<CompileOutcome> direct = runner::CompileWithNvrtc(Request(source, {"relu", "scale<256>"}));
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->program.cubin, o->program.cubin);
}

TEST(SandboxedCompiler, CompileErrorsKeepNvrtcLineNumbers) {
  absl::StatusOr<CompileOutcome> o =
      SandboxedCompiler(Options()).Compile(Request("__global__ void k() {\n  undeclared_value = 1;\n}\n"));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_NE(o->log.find("solution.cu(2)"), std::string::npos) << o->log;
  EXPECT_NE(o->message.find("undeclared_value"), std::string::npos) << o->message;
  EXPECT_TRUE(o->limit_hit.empty());
}

TEST(SandboxedCompiler, ConcurrentCompilesAreIndependent) {
  const SandboxedCompiler compiler(Options());
  std::vector<absl::StatusOr<CompileOutcome>> results(3, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = compiler.Compile(
          Request("__global__ void k" + std::to_string(i) + "(int* x) { *x = " + std::to_string(i) + "; }",
                  {"k" + std::to_string(i)}));
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    EXPECT_TRUE(results[i]->success) << results[i]->log;
    EXPECT_EQ(results[i]->program.lowered_names.count("k" + std::to_string(i)), 1u);
  }
}

// Exponential template instantiation: NVRTC alone grows to several GB.
const char kTemplateBomb[] = R"(
template <int N, int M> struct B { static constexpr long v = B<N - 1, M * 2 + 1>::v + B<N - 1, M * 2>::v; };
template <int M> struct B<0, M> { static constexpr long v = M; };
__global__ void k(long* o) { *o = B<28, 1>::v; }
)";

TEST(SandboxedCompiler, TemplateBombHitsTheMemoryLimit) {
  SandboxedCompilerOptions options = Options();
  options.limits.memory_mib = 384;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CompileOutcome> o = SandboxedCompiler(options).Compile(Request(kTemplateBomb));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_EQ(o->limit_hit, "memory") << o->message << o->log.substr(0, 2000);
  EXPECT_EQ(o->message, "compile aborted: memory limit (384 MiB) exceeded");
  EXPECT_LT(seconds, 10.0);
  EXPECT_LT(o->peak_rss_kib, 384 << 10);
  std::printf("template bomb: %.2f s to verdict, peak RSS %lld MiB\n", seconds,
              static_cast<long long>(o->peak_rss_kib >> 10));
}

TEST(SandboxedCompiler, CpuAndWallLimitsNameThemselves) {
  SandboxedCompilerOptions options = Options();
  options.limits.memory_mib = 8192;
  options.limits.cpu_seconds = 1;
  absl::StatusOr<CompileOutcome> cpu = SandboxedCompiler(options).Compile(Request(kTemplateBomb));
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_FALSE(cpu->success);
  EXPECT_EQ(cpu->limit_hit, "cpu") << cpu->message;
  EXPECT_EQ(cpu->message, "compile aborted: CPU time limit (1 s) exceeded");

  options.limits.cpu_seconds = 60;
  options.limits.wall_seconds = 1;
  absl::StatusOr<CompileOutcome> wall = SandboxedCompiler(options).Compile(Request(kTemplateBomb));
  ASSERT_TRUE(wall.ok()) << wall.status();
  EXPECT_FALSE(wall->success);
  EXPECT_EQ(wall->limit_hit, "time") << wall->message;
  EXPECT_EQ(wall->message, "compile aborted: time limit (1 s) exceeded");
}

// One ~220 KB line with hundreds of undefined identifiers: NVRTC echoes the whole line with
// every error (it stops at 100), ~22 MB of log.
std::string HugeLogSource() {
  std::string line = "__global__ void k(int* o) { *o = 0";
  for (int i = 0; line.size() < 220000; ++i) line += " + undefined_identifier_number_" + std::to_string(i);
  return line + "; }\n";
}

TEST(SandboxedCompiler, HugeLogIsCapped) {
  absl::StatusOr<CompileOutcome> o = SandboxedCompiler(Options()).Compile(Request(HugeLogSource()));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_GT(o->log_bytes_cut, 10u << 20);
  EXPECT_LE(o->log.size(), (64u << 10) + kLogCapNoteBytes);
  EXPECT_NE(o->log.find("undefined_identifier_number_0"), std::string::npos);
  EXPECT_NE(o->log.find("bytes of compiler log cut]"), std::string::npos);
  EXPECT_LE(o->message.size(), 300000u);
}

TEST(SandboxedCompiler, OversizedSourceIsALimitNotAnError) {
  SandboxedCompilerOptions options = Options();
  options.limits.source_bytes = 1000;
  absl::StatusOr<CompileOutcome> o =
      SandboxedCompiler(options).Compile(Request(std::string(2000, ' ')));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->limit_hit, "source");
}

TEST(SandboxedCompiler, MissingBinaryIsAnInternalError) {
  SandboxedCompilerOptions options = Options();
  options.compiler_path = "/nonexistent/kjudge-compiler";
  absl::StatusOr<CompileOutcome> o = SandboxedCompiler(options).Compile(Request("x"));
  EXPECT_FALSE(o.ok());
}

// Not a pass/fail number: prints what the process per compile costs (spawn, warm-up compile,
// sandbox) over an in-process compile of the same small kernel.
TEST(SandboxedCompiler, ReportsTheOverheadOverInProcessNvrtc) {
  const CompileRequest request = Request(
      "#include <cuda_runtime.h>\n__global__ void relu(float* x) { x[threadIdx.x] = fmaxf(x[threadIdx.x], 0.f); }\n",
      {"relu"});
  const SandboxedCompiler compiler(Options());
  auto median_ms = [](auto&& compile) {
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      const auto start = std::chrono::steady_clock::now();
      EXPECT_TRUE(compile());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  const double direct = median_ms([&] {
    absl::StatusOr<CompileOutcome> o = runner::CompileWithNvrtc(request);
    return o.ok() && o->success;
  });
  int64_t peak_kib = 0;
  const double sandboxed = median_ms([&] {
    absl::StatusOr<CompileOutcome> o = compiler.Compile(request);
    if (o.ok()) peak_kib = o->peak_rss_kib;
    return o.ok() && o->success;
  });
  std::printf("small kernel: in-process %.0f ms, sandboxed %.0f ms (+%.0f ms), compiler peak RSS %lld MiB\n",
              direct, sandboxed, sandboxed - direct, static_cast<long long>(peak_kib >> 10));
}

TEST(Landlock, ThisKernelHasIt) { EXPECT_GE(LandlockAbi(), 1); }

TEST(CompileProtocol, RoundTripsArbitraryBytes) {
  ProtocolResponse response;
  response.success = true;
  response.cubin = std::string("\x7f" "ELF\0\xff\xfe", 7);
  response.log = std::string("bad utf8 \xc3\x28 and \0 nul", 22);
  response.lowered_names = {{"k<1>", "_Z1kILi1EEvv"}};
  response.log_bytes_cut = 12345678901ULL;
  absl::StatusOr<ProtocolResponse> back = DecodeResponse(EncodeResponse(response));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->cubin, response.cubin);
  EXPECT_EQ(back->log, response.log);
  EXPECT_EQ(back->lowered_names, response.lowered_names);
  EXPECT_EQ(back->log_bytes_cut, response.log_bytes_cut);

  EXPECT_FALSE(DecodeResponse("not cbor").ok());
  EXPECT_FALSE(ParseFrameHeader(FrameHeader(1 << 30), 1 << 20).ok());
  EXPECT_EQ(*ParseFrameHeader(FrameHeader(77), 100), 77u);
}

TEST(LogCap, KeepsTheHeadAndCountsTheCut) {
  EXPECT_EQ(CapLog("short", 100).log, "short");
  CappedLog capped = CapLog("line one\nline two\nline three\n", 20);
  EXPECT_EQ(capped.log, "line one\nline two\n[kjudge: 12 bytes of compiler log cut]");
  EXPECT_EQ(capped.bytes_cut, 12u);
  CappedLog one_line = CapLog(std::string(1000, 'a'), 100);
  EXPECT_EQ(one_line.bytes_cut, 900u);
}

}  // namespace
}  // namespace kjudge::compiler
