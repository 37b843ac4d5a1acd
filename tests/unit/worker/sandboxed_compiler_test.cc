// kjudge-compiler with real NVRTC, as the runner uses it: hostile includes read nothing, limits
// end in a compile error naming them, huge logs are capped, normal kernels still compile.
// Works as root (CI: the compiler drops to nobody) and as any other user.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
#include "proto/result_caps.h"
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

// What the compile says about an `#include "X"` with X replaced by a placeholder: equal for
// two paths means the answer tells nothing about which of them exists.
std::string AnswerFor(const SandboxedCompiler& compiler, const std::string& include) {
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request("#include " + include + "\n"));
  if (!o.ok()) return "status: " + o.status().ToString();
  std::string text = "success=" + std::to_string(o->success) + "\nmessage=" + o->message + "\nlog=" + o->log;
  const std::string name = include.substr(1, include.size() - 2);
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 6)) {
    text.replace(at, name.size(), "<X>");
  }
  // The caret under the name follows its length: "   ^" -> "^".
  for (size_t caret = text.find(" ^"); caret != std::string::npos; caret = text.find(" ^")) {
    const size_t from = text.find_last_not_of(' ', caret) + 1;
    text.erase(from, caret + 1 - from);
  }
  return text;
}

// The existence oracle: missing, unreadable, a directory, /proc, /etc/passwd, traversal: one
// answer, no errno text.
TEST_F(SecretFiles, CannotOpenReadsTheSameWhetherAPathExistsOrNot) {
  const fs::path unreadable = dir_ / "unreadable.h";
  Write(unreadable, "int x;\n");
  fs::permissions(unreadable, fs::perms::none);
  std::string up;
  for (int i = 0; i < 12; ++i) up += "../";
  const SandboxedCompiler compiler(Options());
  const std::string missing = AnswerFor(compiler, "\"" + (dir_ / "no-such-file.h").string() + "\"");
  const std::string missing_angled = AnswerFor(compiler, "<" + (dir_ / "no-such-file.h").string() + ">");
  EXPECT_NE(missing.find("cannot open source file \"<X>\"\n"), std::string::npos) << missing;
  EXPECT_NE(missing.find("message=solution.cu(1): catastrophic error: cannot open source file \"<X>\"\n"),
            std::string::npos)
      << missing;
  for (const std::string& include :
       {"\"" + unreadable.string() + "\"", "\"" + (dir_ / "secret.h").string() + "\"", "\"" + dir_.string() + "\"",
        "\"" + (dir_ / "sub").string() + "/\"", std::string("\"/proc/self/status\""), std::string("</proc/1/status>"),
        "\"/proc/" + std::to_string(::getpid()) + "/status\"", std::string("\"/etc/passwd\""),
        std::string("<") + up + "etc/passwd>", std::string("\"../../../../../../etc/hostname\""),
        std::string("\"/etc\""), std::string("\"/root/.bashrc\"")}) {
    SCOPED_TRACE(include);
    const std::string answer = AnswerFor(compiler, include);
    // The echoed source line keeps the include's own brackets.
    EXPECT_EQ(answer, include[0] == '<' ? missing_angled : missing);
    EXPECT_EQ(answer.find("denied"), std::string::npos) << answer;
    EXPECT_EQ(answer.find("directory"), std::string::npos) << answer;
  }
}

// __has_include must not become the oracle the diagnostics no longer are.
TEST_F(SecretFiles, HasIncludeSeesNoHostPath) {
  const SandboxedCompiler compiler(Options());
  const auto probe = [&compiler](const std::string& path) {
    absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(
        "#if __has_include(\"" + path + "\")\n#error present\n#else\n#error absent\n#endif\n"));
    if (!o.ok()) return o.status().ToString();
    return o->message.substr(o->message.find("directive: ") + 11);
  };
  EXPECT_EQ(probe("cuda_runtime.h"), "present");  // the control: it works where it may
  for (const std::string& path : {(dir_ / "secret.h").string(), (dir_ / "missing.h").string(), dir_.string(),
                                  std::string("/etc/passwd"), std::string("/proc/self/status"),
                                  std::string("/proc/1/status")}) {
    EXPECT_EQ(probe(path), "absent") << path;
  }
}

// No absolute host path in a message or log: the include roots read as <kjudge-include> and
// <cuda-include>, whatever they are on this host.
TEST(SandboxedCompiler, NoAbsoluteHostPathInMessages) {
  const SandboxedCompiler compiler(Options());
  ASSERT_TRUE(compiler.std_headers_status().ok()) << compiler.std_headers_status();
  std::vector<std::string> roots = compiler.options().include_dirs;
  roots.push_back(runner::CudaIncludeDir());
  std::error_code ec;
  roots.push_back(fs::canonical(runner::CudaIncludeDir(), ec).string());
  const auto expect_clean = [&roots](const CompileOutcome& o) {
    for (const std::string& root : roots) {
      EXPECT_EQ(o.message.find(root), std::string::npos) << root << "\n" << o.message;
      EXPECT_EQ(o.log.find(root), std::string::npos) << root << "\n" << o.log;
    }
  };
  // A host-only header: kjudge's #error header answers, named by its place in the include root.
  absl::StatusOr<CompileOutcome> iostream = compiler.Compile(Request("#include <iostream>\n"));
  ASSERT_TRUE(iostream.ok()) << iostream.status();
  EXPECT_FALSE(iostream->success);
  expect_clean(*iostream);
  EXPECT_EQ(iostream->message.rfind("<kjudge-include>/iostream(", 0), 0u) << iostream->message;
  // An error inside a kjudge-provided header (and the CUDA headers it includes). <type_traits>
  // is not in the nvcc prelude, so the error stays when the retry pre-includes it.
  absl::StatusOr<CompileOutcome> inside =
      compiler.Compile(Request("#define is_same 42\n#include <type_traits>\n"));
  ASSERT_TRUE(inside.ok()) << inside.status();
  EXPECT_FALSE(inside->success);
  expect_clean(*inside);
  EXPECT_NE(inside->log.find("-include>/"), std::string::npos) << inside->log.substr(0, 3000);
  EXPECT_EQ(inside->log.find("(0): "), std::string::npos);
}

TEST(SandboxedCompiler, NormalKernelCompilesWithLoweredNames) {
  const std::string source = R"(#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>
template <int B> __global__ void scale(float* x, float a) { x[blockIdx.x * B + threadIdx.x] *= a; }
__global__ void relu(float* x) { x[threadIdx.x] = fmaxf(x[threadIdx.x], 0.0f); }
)";
  const SandboxedCompiler compiler(Options());
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(source, {"relu", "scale<256>"}));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->success) << o->log << o->message;
  EXPECT_EQ(o->program.cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(o->program.lowered_names.at("relu"), "_Z4reluPf");
  EXPECT_EQ(o->program.lowered_names.at("scale<256>"), "_Z5scaleILi256EEvPff");
  // What the sandbox applied is tried from inside it in sandbox_limits_test.cc.
  EXPECT_GT(o->peak_rss_kib, 0);
  EXPECT_TRUE(o->limit_hit.empty());
  // The same cubin as an in-process compile with the same include path (kjudge's std_headers
  // first: -lineinfo records header paths): the sandbox changes nothing about the output.
  absl::StatusOr<CompileOutcome> direct = runner::CompileWithNvrtc(
      Request(source, {"relu", "scale<256>"}), compiler.options().include_dirs);
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
  EXPECT_EQ(o->message, "compile exceeded its 384 MiB memory limit");
  EXPECT_LT(seconds, 10.0);
  EXPECT_LT(o->peak_rss_kib, 384 << 10);
  std::printf("template bomb: %.2f s to verdict, peak RSS %lld MiB\n", seconds,
              static_cast<long long>(o->peak_rss_kib >> 10));
}

TEST(SandboxedCompiler, CpuAndWallLimitsNameThemselves) {
  SandboxedCompilerOptions options = Options();
  options.limits.memory_mib = 8192;
  options.limits.cpu_seconds = 1;
  options.limits.wall_seconds = 120;  // the CPU limit alone, even on a loaded machine
  absl::StatusOr<CompileOutcome> cpu = SandboxedCompiler(options).Compile(Request(kTemplateBomb));
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_FALSE(cpu->success);
  EXPECT_EQ(cpu->limit_hit, "cpu") << cpu->message;
  EXPECT_EQ(cpu->message, "compile exceeded its 1 s CPU limit");

  options.limits.cpu_seconds = 60;
  options.limits.wall_seconds = 1;
  absl::StatusOr<CompileOutcome> wall = SandboxedCompiler(options).Compile(Request(kTemplateBomb));
  ASSERT_TRUE(wall.ok()) << wall.status();
  EXPECT_FALSE(wall->success);
  EXPECT_EQ(wall->limit_hit, "time") << wall->message;
  EXPECT_EQ(wall->message, "compile exceeded its 1 s wall-clock limit");
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
  EXPECT_LE(o->message.size(), kMaxMessageBytes);
}

// A 1 MB `#error` line: NVRTC puts it in the log and the one-line message; neither may carry it.
TEST(SandboxedCompiler, OneHugeErrorLineIsCappedInLogAndMessage) {
  const std::string source = "#error " + std::string(1 << 20, 'E') + "\n";
  absl::StatusOr<CompileOutcome> o = SandboxedCompiler(Options()).Compile(Request(source));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_LE(o->message.size(), kMaxMessageBytes) << o->message.substr(0, 200);
  EXPECT_NE(o->message.find("#error directive: EEEE"), std::string::npos) << o->message.substr(0, 200);
  EXPECT_NE(o->message.find(" bytes cut]"), std::string::npos);
  // Each log line is capped on its own, so the log stays small, not just under its 64 KiB cap.
  EXPECT_LE(o->log.size(), 4 * (kMaxLogLineBytes + kjudge::kCapNoteBytes)) << o->log.size();
  EXPECT_GT(o->log_bytes_cut, 1000000u);
  EXPECT_NE(o->log.find(" bytes cut]"), std::string::npos);
}

TEST(SandboxedCompiler, ALimitIsSetByItsCpuSecondsAlone) {
  CompilerLimits limits;
  EXPECT_EQ(limits.cpu_seconds, 30);
  EXPECT_EQ(limits.WallSeconds(), CompileWallSeconds(30));
  // The sandbox's wall limit sits below the worker's compile watchdog, whatever the CPU limit.
  for (int cpu : {1, 2, 30, 600}) EXPECT_LT(CompileWallSeconds(cpu), CompileWatchdogSeconds(cpu)) << cpu;
  EXPECT_GE(CompileWallSeconds(2), 2 * 2);  // NVRTC is one thread: wall time >= CPU time
  EXPECT_EQ(limits.cubin_bytes, 32u << 20);
}

// A cubin over the cap is a compile error that says so (a 405-byte source can unroll into
// tens of MB of SASS).
TEST(SandboxedCompiler, CubinOverItsCapIsACompileError) {
  SandboxedCompilerOptions options = Options();
  options.limits.cubin_bytes = 4096;  // any real kernel's cubin is larger
  absl::StatusOr<CompileOutcome> o =
      SandboxedCompiler(options).Compile(Request("__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n", {"k"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_EQ(o->limit_hit, "cubin");
  EXPECT_TRUE(o->program.cubin.empty());
  EXPECT_NE(o->message.find("compile produced a cubin of "), std::string::npos) << o->message;
  EXPECT_NE(o->message.find("bytes, over its 4096 byte cubin limit"), std::string::npos) << o->message;
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
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("/nonexistent/kjudge-compiler"), std::string::npos)
      << o.status();
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

// ---- kjudge's NVRTC standard headers (worker/compiler/std_headers/README.md) ----

// Where the default options found them (build tree: bin/../share/kjudge/std_headers).
fs::path StdHeadersDir() {
  const SandboxedCompiler compiler(Options());
  EXPECT_TRUE(compiler.std_headers_status().ok()) << compiler.std_headers_status();
  return compiler.options().std_headers_dir.value_or("");
}

struct HeaderCase {
  const char* includes;
  const char* body;  // the body of `__global__ void k(float* x, double* d, int* i, int n)`
};

// Each header with the names kernels use it for. The kernel writes every value, so nothing is
// optimised away before the front end has checked it.
const HeaderCase kHeaderCases[] = {
    // The issue's own case: as with nvcc, -INFINITY needs no <cmath>.
    {"#include <cfloat>\n#include <cstdint>\n",
     "float m = -INFINITY; for (int j = 0; j < n; ++j) m = fmaxf(m, x[j]);"
     " x[0] = m > -FLT_MAX ? m : 0.f; i[0] = (int32_t)n + (int)M_PI;"},
    {"#include <cmath>\n",
     "constexpr float kNegInf = -INFINITY; x[0] = kNegInf + NAN + HUGE_VALF + (float)HUGE_VAL;"
     "x[1] = M_PI + M_E + M_LOG2E + M_LOG10E + M_LN2 + M_LN10 + M_PI_2 + M_PI_4 + M_1_PI + M_2_PI +"
     " M_2_SQRTPI + M_SQRT2 + M_SQRT1_2 + M_PIf;"
     "x[2] = std::exp(x[2]) + std::fmax(x[3], 1.f) + std::fmin(x[3], 1.f) + std::abs(x[4]) +"
     " std::abs(n) + std::sqrt(x[5]) + std::tanh(x[6]) + std::pow(x[7], 2.f) + std::log(x[8]) +"
     " std::floor(x[9]) + std::fabs(x[10]) + std::expf(x[11]) + std::fma(x[1], x[2], x[3]) +"
     " std::lerp(x[1], x[2], 0.5f);"
     "i[0] = std::isinf(x[0]) + std::isnan(x[1]) + std::signbit(x[2]) + std::isfinite(x[3]) +"
     " std::isnormal(x[4]) + (std::fpclassify(x[5]) == FP_SUBNORMAL) + std::isless(x[1], x[2]);"
     "d[0] = std::exp(d[1]) + std::isnan(d[2]) + M_PI + HUGE_VAL;"},
    // C++'s integer and mixed-type overloads: doubles, as with libstdc++.
    {"#include <cmath>\n",
     "static_assert(sizeof(std::sqrt(n)) == 8 && sizeof(std::sqrt(x[0])) == 4, \"\");"
     "static_assert(sizeof(std::pow(x[0], 2.0)) == 8 && sizeof(std::fmax(x[0], d[0])) == 8, \"\");"
     "x[0] = std::sqrt(n) + std::exp(n) + std::pow(x[1], 2.0) + std::pow(2, n) + std::fabs(n) +"
     " std::atan2(n, 1) + std::isinf(n) + std::fpclassify(n);"},
    {"#include <math.h>\n",
     "x[0] = -INFINITY + expf(x[1]) + fmaxf(x[2], 0.f) + isinf(x[3]) + M_PI + rsqrtf(x[4]);"},
    {"#include <cmath>\n#include <algorithm>\nusing namespace std;\n",
     "x[0] = exp(x[1]) + sqrt(x[2]) + abs(x[3]) + max(x[4], x[5]) + min(x[6], 1.f) + fmax(x[7], x[8]);"
     "i[0] = isinf(x[1]) + isnan(x[2]) + max(1, n) + min(n, 3);"},
    {"#include <cfloat>\n",
     "x[0] = -FLT_MAX + FLT_MIN + FLT_EPSILON + FLT_TRUE_MIN + (float)DBL_MAX + FLT_MANT_DIG + FLT_DIG;"
     "d[0] = DBL_MAX + DBL_MIN + DBL_EPSILON;"},
    {"#include <float.h>\n", "x[0] = -FLT_MAX + FLT_EPSILON;"},
    {"#include <cstdint>\n",
     "int32_t a = INT32_MAX; std::int64_t b = INT64_MIN; uint8_t c = UINT8_MAX; std::uint32_t e ="
     " UINT32_MAX; uint64_t f = UINT64_C(1) << 40; intptr_t g = 0; std::size_t h = SIZE_MAX;"
     " i[0] = (int)(a + b + c + e + f + g + h);"},
    {"#include <cinttypes>\n", "if (n == 7) printf(\"%\" PRId64 \" %\" PRIu32 \"\\n\", (int64_t)n, (uint32_t)n);"},
    {"#include <stdint.h>\n", "int16_t a = INT16_MAX; uint16_t b = UINT16_MAX; i[0] = a + b;"},
    {"#include <climits>\n", "i[0] = INT_MAX + CHAR_BIT + SHRT_MAX + (int)(LLONG_MAX & 1) + (int)(UINT_MAX & 1);"},
    {"#include <limits.h>\n", "i[0] = INT_MIN + CHAR_BIT;"},
    {"#include <limits>\n",
     "constexpr float kInf = std::numeric_limits<float>::infinity();"
     "x[0] = -kInf + std::numeric_limits<float>::max() + std::numeric_limits<float>::lowest() +"
     " std::numeric_limits<float>::epsilon() + std::numeric_limits<float>::quiet_NaN();"
     "i[0] = std::numeric_limits<int>::max() + std::numeric_limits<int>::min();"
     "d[0] = std::numeric_limits<double>::infinity();"},
    {"#include <type_traits>\n",
     "static_assert(std::is_same<float, float>::value, \"\"); static_assert(std::is_same_v<int, int>, \"\");"
     "static_assert(std::is_floating_point<float>::value && std::is_integral_v<int>, \"\");"
     "using T = std::conditional_t<true, float, int>; using U = std::remove_cv_t<const T>;"
     "x[0] = U(1) + std::enable_if_t<true, float>(2);"},
    {"#include <cstddef>\n", "std::size_t a = sizeof(float); std::ptrdiff_t b = 1; std::byte c{1};"
     " i[0] = (int)(a + b) + (int)c;"},
    {"#include <stddef.h>\n", "size_t a = sizeof(float); ptrdiff_t b = 1; i[0] = (int)(a + b) + (NULL == 0);"},
    {"#include <cassert>\n", "assert(n >= 0); x[0] = 1;"},
    {"#include <assert.h>\n", "assert(n >= 0 && \"n is a size\"); x[0] = 1;"},
    {"#define NDEBUG\n#include <cassert>\n", "assert(undeclared_when_ndebug_works); x[0] = 1;"},
    {"#include <cstdio>\n", "if (n == 7) printf(\"n=%d\\n\", n); if (n == 8) std::printf(\"%f\\n\", x[0]);"},
    {"#include <stdio.h>\n", "if (n == 7) printf(\"n=%d\\n\", n);"},
    {"#include <utility>\n",
     "std::swap(x[0], x[1]); auto p = std::make_pair(1, 2.f); x[2] = p.second + std::move(x[3]);"},
    {"#include <algorithm>\n",
     "x[0] = std::min(x[1], x[2]) + std::max(x[3], x[4]) + std::clamp(x[5], 0.f, 1.f) +"
     " std::max({1.f, x[6], x[7]}); i[0] = std::min(n, 4) + std::max(n, 1);"
     " int a[4] = {3, 1, 2, 0}; std::fill(a, a + 2, 5); i[1] = *std::max_element(a, a + 4);"},
    {"#include <cstdlib>\n", "i[0] = std::abs(n) + abs(n) + EXIT_SUCCESS; float* p = (float*)malloc(4);"
     " if (p) { *p = 1; x[0] = *p; free(p); }"},
    {"#include <stdlib.h>\n", "i[0] = abs(n);"},
    {"#include <cstring>\n", "float t[2]; std::memcpy(t, x, sizeof(t)); memset(t, 0, 4); x[0] = t[1];"},
    {"#include <array>\n#include <tuple>\n#include <functional>\n#include <numeric>\n",
     "std::array<float, 4> a{}; a[0] = x[0]; x[1] = a[0] + std::get<0>(std::make_tuple(1.f, 2));"
     " int b[3] = {1, 2, 3}; i[0] = std::accumulate(b, b + 3, 0) + std::plus<int>()(1, 2);"},
    {"#include <bit>\n#include <atomic>\n#include <complex>\n#include <new>\n",
     "x[0] = std::bit_cast<float>(0x3f800000u); std::complex<float> c(1.f, 2.f); x[1] = c.real();"
     " i[0] = std::popcount(unsigned(n));"},
    {"#include <cuda.h>\n", "i[0] = CUDA_VERSION + threadIdx.x;"},
    {"#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <mma.h>\n"
     "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n#include <cuda/pipeline>\n"
     "#include <cuda/barrier>\n#include <cfloat>\n#include <cstdint>\n#include <cmath>\n#include <limits>\n",
     "namespace cg = cooperative_groups; auto w = cg::tiled_partition<32>(cg::this_thread_block());"
     " float v = cg::reduce(w, x[threadIdx.x], cg::greater<float>()); x[0] = fmaxf(v, -FLT_MAX);"
     " __half h = __float2half(x[1]); __nv_bfloat16 b = __float2bfloat16(x[2]);"
     " x[3] = __half2float(h) + __bfloat162float(b) - INFINITY;"},
};

std::string HeaderKernel(const HeaderCase& c) {
  return std::string(c.includes) + "__global__ void k(float* x, double* d, int* i, int n) {\n" +
         c.body + "\n}\n";
}

TEST(StdHeaders, EachHeaderCompilesWithTheNamesKernelsUse) {
  const SandboxedCompiler compiler(Options());
  constexpr size_t kCases = sizeof(kHeaderCases) / sizeof(kHeaderCases[0]);
  std::vector<absl::StatusOr<CompileOutcome>> results(kCases, absl::UnknownError("not run"));
  // Three at a time (libcu++'s <type_traits> alone costs NVRTC ~0.7 s of CPU): concurrent
  // compiles are separate processes, as in the worker.
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(3);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < kCases; i = next++) {
        results[i] = compiler.Compile(Request(HeaderKernel(kHeaderCases[i]), {"k"}));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < kCases; ++i) {
    SCOPED_TRACE(HeaderKernel(kHeaderCases[i]));
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    EXPECT_TRUE(results[i]->success) << results[i]->log << results[i]->message;
  }
}

TEST(StdHeaders, WithoutThemTheSameKernelsDoNotCompile) {
  // Proves the test above meaningful: NVRTC alone has none of these headers.
  SandboxedCompilerOptions options = Options();
  options.std_headers_dir = "";
  const SandboxedCompiler compiler(options);
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(HeaderKernel(kHeaderCases[1]), {"k"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_NE(o->log.find("cannot open source file \"cmath\""), std::string::npos) << o->log;
}

// nvcc's implicit prelude (issue 27 pt3): what nvcc makes visible without an #include, as
// load_inline-style kernels use it; __kjudge/nvcc_prelude.h is pre-included into every compile.
constexpr const char* kNoIncludeKernel = R"(__global__ void k(float* x, double* d, int* i, int n) {
  constexpr float kNegInf = -INFINITY;
  x[0] = kNegInf + NAN + HUGE_VALF + (float)HUGE_VAL + M_PI + M_SQRT1_2 + M_PIf + -FLT_MAX + FLT_EPSILON;
  x[1] = std::exp(x[1]) + std::fmax(x[2], 1.f) + std::abs(x[3]) + std::sqrt(x[4]) + std::tanh(x[5]) +
         std::pow(x[6], 2.f) + std::log(x[7]) + std::numeric_limits<float>::max();
  int64_t a = n; uint32_t b = 3u; int8_t c = 1; size_t e = sizeof(float); ptrdiff_t f = 1;
  i[0] = (int)(a + b + c + e + f) + INT_MAX + CHAR_BIT + (int)(INT32_MAX & 1) + std::isnan(x[8]) +
         (std::fpclassify(x[9]) == FP_NAN);
  float t[2]; memcpy(t, x, sizeof(t)); x[2] = t[1];
  d[0] = DBL_MAX + std::exp(d[1]) + M_E;
}
)";

TEST(StdHeaders, NvccPreludeNeedsNoInclude) {
  const SandboxedCompiler compiler(Options());
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(kNoIncludeKernel, {"k"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->success) << o->log << o->message;
  // A kernel that includes the same headers itself (and cub, which brings libcu++'s <cmath>)
  // sees each name once: no redefinition.
  const std::string with_includes =
      std::string("#include <cmath>\n#include <cfloat>\n#include <cstdint>\n#include <climits>\n"
                  "#include <cub/cub.cuh>\n") + kNoIncludeKernel;
  o = compiler.Compile(Request(with_includes, {"k"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->success) << o->log << o->message;
  EXPECT_EQ(o->log.find("redefinition"), std::string::npos) << o->log;
}

TEST(StdHeaders, WithoutThePreludeNoIncludeKernelsDoNotCompile) {
  // Proves the test above meaningful: without kjudge's std_headers there is no prelude.
  SandboxedCompilerOptions options = Options();
  options.std_headers_dir = "";
  const SandboxedCompiler compiler(options);
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(kNoIncludeKernel, {"k"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_NE(o->log.find("identifier \"INFINITY\" is undefined"), std::string::npos) << o->log;
}

TEST(StdHeaders, CubUmbrellaCompilesAndHostSideCubSaysWhatToUse) {
  const SandboxedCompiler compiler(Options());
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(R"(#include <cub/cub.cuh>
#include <cfloat>
__global__ void row_max(const float* x, float* y, int n) {
  using Reduce = cub::BlockReduce<float, 256>;
  __shared__ typename Reduce::TempStorage tmp;
  float m = -FLT_MAX;
  for (int j = threadIdx.x; j < n; j += 256) m = fmaxf(m, x[blockIdx.x * n + j]);
  m = Reduce(tmp).Reduce(m, cub::Max());  // CUB 2.x spelling: CCCL 3 removed it, kjudge restores it
  float s = Reduce(tmp).Reduce(m, cub::Sum());
  if (threadIdx.x == 0) y[gridDim.x + blockIdx.x] = CUB_MAX(s, 0.f);
  if (threadIdx.x == 0) y[blockIdx.x] = m;
}
)", {"row_max"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->success) << o->log;

  o = compiler.Compile(Request("#include <cub/device/device_reduce.cuh>\n"));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_NE(o->log.find("kjudge: <cub/device/device_reduce.cuh> (cub::DeviceReduce) is host-side "
                        "cub"),
            std::string::npos)
      << o->log;
  EXPECT_NE(o->log.find("cub::BlockReduce (<cub/block/block_reduce.cuh>)"), std::string::npos) << o->log;
}

// Every host-only header of the folder (its body is `#error "kjudge: ...`) fails with its
// own message, which names the header, says why and what to use.
TEST(StdHeaders, HostOnlyHeadersSayWhatToUseInstead) {
  const fs::path dir = StdHeadersDir();
  ASSERT_FALSE(dir.empty());
  std::vector<std::string> headers;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("#error \"kjudge: <") != std::string::npos) {
      headers.push_back(fs::relative(entry.path(), dir).string());
    }
  }
  std::sort(headers.begin(), headers.end());
  ASSERT_GE(headers.size(), 40u);
  for (const char* must : {"iostream", "vector", "string", "thread", "fstream", "torch/extension.h",
                           "ATen/ATen.h", "c10/cuda/CUDAGuard.h", "pybind11/pybind11.h",
                           "cublas_v2.h", "cub/device/device_reduce.cuh", "cute/tensor.hpp"}) {
    EXPECT_NE(std::find(headers.begin(), headers.end(), must), headers.end()) << must;
  }
  // In-process NVRTC with the same include path (a process per header would cost ~10 s); the
  // sandboxed compiler's messages are the same (HostOnlyMessagesAreExact).
  for (const std::string& header : headers) {
    SCOPED_TRACE(header);
    absl::StatusOr<CompileOutcome> o = runner::CompileWithNvrtc(
        Request("#include <" + header + ">\n__global__ void k() {}\n"), {dir.string()});
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_FALSE(o->success);
    EXPECT_NE(o->log.find("#error directive: \"kjudge: <" + header + ">"), std::string::npos) << o->log;
    EXPECT_NE(o->log.find("device code only"), std::string::npos) << o->log;
  }
}

TEST(StdHeaders, HostOnlyMessagesAreExact) {
  const SandboxedCompiler compiler(Options());
  const std::pair<const char*, const char*> cases[] = {
      {"iostream",
       "#error directive: \"kjudge: <iostream> is a host-only header. kjudge compiles device code "
       "only (NVRTC; there is no host code: kjudge launches your kernels from the launch plan). "
       "Remove the include; for debugging output use device printf (<cstdio>).\""},
      {"torch/extension.h",
       "#error directive: \"kjudge: <torch/extension.h> is a host-only header. kjudge compiles "
       "device code only (NVRTC; there is no host code: kjudge launches your kernels from the "
       "launch plan). Remove the include; kjudge takes __global__ kernels plus a launch plan "
       "instead of a PyTorch extension's host wrapper: drop the wrapper and the include, take "
       "plain pointers (float*, __half* from <cuda_fp16.h>, __nv_bfloat16* from <cuda_bf16.h>) "
       "and write the launches in the plan (problems/README.md).\""},
  };
  for (const auto& [header, message] : cases) {
    absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(
        std::string("#include <") + header + ">\n__global__ void k() {}\n"));
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_FALSE(o->success);
    EXPECT_NE(o->log.find(message), std::string::npos) << o->log;
  }
}

TEST_F(SecretFiles, TraversalThroughTheStdHeadersDirReadsNothing) {
  const fs::path std_dir = StdHeadersDir();
  ASSERT_FALSE(std_dir.empty());
  // From the std_headers dir (first on the include path) up and over to the secret.
  const std::string up = fs::relative(dir_ / "secret.h", std_dir).string();
  ASSERT_EQ(up.substr(0, 3), "../");
  ExpectNoLeak(StringifiedInclude("<" + up + ">"), marker_);
  ExpectNoLeak(StringifiedInclude("\"" + up + "\""), marker_);
  ExpectNoLeak(StringifiedInclude("<cub/../" + up + ">"), marker_);
  ExpectNoLeak(StringifiedInclude("<__kjudge/../../" + up + ">"), marker_);
  const std::string name = std_dir.filename().string();  // "std_headers"
  ExpectNoLeak(StringifiedInclude("\"" + name + "/../" + up + "\""), marker_);
  ExpectNoLeak("#include <../../../etc/passwd>\n", "root:");
  ExpectNoLeak("#include \"" + name + "/../../x\"\n", marker_);
  ExpectNoLeak("#include <" + (std_dir / "../../../../../../../../etc/passwd").string() + ">\n", "root:");
}

TEST(StdHeaders, DigestFollowsTheContent) {
  char tmpl[] = "/tmp/kjudge-std-headers-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const fs::path copy = fs::path(tmpl) / "std_headers";
  fs::copy(StdHeadersDir(), copy, fs::copy_options::recursive);
  fs::permissions(tmpl, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  SandboxedCompilerOptions options = Options();
  options.std_headers_dir = copy.string();
  const std::string before = SandboxedCompiler(options).include_digest();
  EXPECT_EQ(before, SandboxedCompiler(options).include_digest());
  std::ofstream(copy / "cfloat", std::ios::app) << "// edited\n";
  const SandboxedCompiler edited(options);
  EXPECT_NE(edited.include_digest(), before);
  EXPECT_EQ(edited.options().include_dirs.front(), fs::canonical(copy).string());
  fs::remove_all(tmpl);
}

// A bundle under a folder nobody cannot enter (e.g. /root): as root, the compiler drops to
// nobody, so the headers are used from a world-readable copy, which goes with the compiler.
TEST(StdHeaders, HeadersNobodyCannotReachAreUsedFromACopy) {
  if (::geteuid() != 0) GTEST_SKIP() << "only as root does the compiler change uid";
  char tmpl[] = "/tmp/kjudge-std-headers-private-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);  // 0700
  const fs::path hidden = fs::path(tmpl) / "std_headers";
  fs::copy(StdHeadersDir(), hidden, fs::copy_options::recursive);
  ASSERT_FALSE(ReadableByOthers(hidden.string()).ok());
  SandboxedCompilerOptions options = Options();
  options.std_headers_dir = hidden.string();
  std::string copy;
  {
    const SandboxedCompiler compiler(options);
    ASSERT_TRUE(compiler.std_headers_status().ok()) << compiler.std_headers_status();
    copy = compiler.options().include_dirs.front();
    EXPECT_EQ(copy.rfind("/tmp/kjudge-std-headers-", 0), 0u) << copy;
    EXPECT_TRUE(ReadableByOthers(copy).ok());
    absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(
        "#include <cfloat>\n__global__ void k(float* x) { *x = -INFINITY + FLT_MAX; }\n", {"k"}));
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_TRUE(o->success) << o->log;
    EXPECT_NE(o->sandbox.find("uid 65534"), std::string::npos) << o->sandbox;
  }
  EXPECT_FALSE(fs::exists(copy));
  fs::remove_all(tmpl);
}

TEST(StdHeaders, MissingOrUnreadableDirIsAClearInternalError) {
  SandboxedCompilerOptions options = Options();
  options.std_headers_dir = "/nonexistent/std_headers";
  absl::StatusOr<CompileOutcome> o = SandboxedCompiler(options).Compile(Request("__global__ void k() {}"));
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("/nonexistent/std_headers"), std::string::npos) << o.status();

  absl::StatusOr<std::string> none = FindStdHeadersDir("/nonexistent/bin/kjudge-compiler");
  ::unsetenv("KJUDGE_STD_HEADERS");
  none = FindStdHeadersDir("/nonexistent/bin/kjudge-compiler");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("/nonexistent/share/kjudge/std_headers"), std::string::npos)
      << none.status();
  EXPECT_NE(none.status().message().find("$KJUDGE_STD_HEADERS"), std::string::npos) << none.status();

  char tmpl[] = "/tmp/kjudge-std-headers-private-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);  // 0700: nobody cannot enter it
  fs::create_directories(fs::path(tmpl) / "std_headers");
  const absl::Status readable = ReadableByOthers((fs::path(tmpl) / "std_headers").string());
  EXPECT_EQ(readable.code(), absl::StatusCode::kPermissionDenied) << readable;
  EXPECT_NE(readable.message().find(tmpl), std::string::npos) << readable;
  fs::remove_all(tmpl);
  EXPECT_TRUE(ReadableByOthers(StdHeadersDir().string()).ok());
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

TEST(LogCap, LongLinesAreCutOneByOne) {
  const std::string log = "a.cu(1): error: " + std::string(10000, 'x') + "\nshort line\n";
  const CappedLog capped = CapLog(log, 64 << 10);
  EXPECT_EQ(capped.bytes_cut, 10000 + 16 - kMaxLogLineBytes);
  EXPECT_NE(capped.log.find(" ... [" + std::to_string(capped.bytes_cut) + " bytes cut]\nshort line\n"),
            std::string::npos)
      << capped.log.substr(kMaxLogLineBytes - 10);
}

TEST(LogCap, CleaningDropsErrnoTextAndNamesIncludeRoots) {
  const IncludeRoots roots = {{"/opt/kj/share/std_headers", "<kjudge-include>"}, {"/usr/local/cuda/include", "<cuda-include>"}};
  EXPECT_EQ(CleanCompilerText("x.cu(1): catastrophic error: cannot open source file \"/etc/a\": Permission denied\n  #include \"/etc/a\"\n", roots),
            "x.cu(1): catastrophic error: cannot open source file \"/etc/a\"\n  #include \"/etc/a\"\n");
  EXPECT_EQ(CleanCompilerText("cannot open source file \"d\"q\": is a directory", roots),
            "cannot open source file \"d\"q\"");
  EXPECT_EQ(CleanCompilerText("/opt/kj/share/std_headers/iostream(4): error\n/usr/local/cuda/include/cuda/std/x(1): note", roots),
            "<kjudge-include>/iostream(4): error\n<cuda-include>/cuda/std/x(1): note");
}

}  // namespace
}  // namespace kjudge::compiler
