// kjudge-compiler's sandbox observed from INSIDE: the real binary, started by the real
// SandboxedCompiler with the runner's command line, runs test code (sandbox_probe.cc, preloaded
// by sandbox_exec_wrapper.cc) after EnterSandbox() and reports what each system call did. Each
// promise of worker/compiler/README.md is tried, not read from the sandbox's description: denied
// system calls fail with EPERM, every rlimit holds when exceeded, the uid/gid/capabilities after
// the drop, Landlock refuses files outside the read dirs (world-readable and writable ones, so
// only Landlock stands in the way), and without Landlock the compiler refuses to compile unless
// --allow-unsandboxed (the control run that also shows the probes can see a success).
// Works as root (CI: the compiler drops to nobody) and as any other user. ~4 s.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "worker/compiler/sandboxed_compiler.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::compiler {
namespace {

namespace fs = std::filesystem;
using runner::CompileOutcome;
using runner::CompileRequest;
using Probes = std::map<std::string, std::string>;

constexpr uint64_t kMemoryMib = 1536;

SandboxedCompilerOptions Options(const char* wrapper) {
  SandboxedCompilerOptions options;
  options.compiler_path = wrapper;
  // The wrapper is not in bin/: name the headers the real compiler would find.
  absl::StatusOr<std::string> headers = FindStdHeadersDir(KJUDGE_COMPILER_PATH);
  options.std_headers_dir = headers.ok() ? *headers : "";
  options.limits.memory_mib = kMemoryMib;
  return options;
}

// "probe NAME=RESULT" lines of the compile log (each an #error of the probe's source).
Probes ParseProbes(const std::string& log) {
  Probes probes;
  static const std::regex line(R"(probe ([a-z0-9_]+)=(\S+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it) {
    probes[(*it)[1]] = (*it)[2];
  }
  return probes;
}

// A world-writable dir holding a world-readable and -writable secret: file permissions let
// nobody (and anyone) read, write, create and delete here; only the sandbox may refuse.
class SandboxFromInside : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kjudge-sandbox-limits-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::permissions(dir_, fs::perms::all);
    secret_ = dir_ / "secret";
    std::ofstream(secret_) << "KJSECRET";
    fs::permissions(secret_, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                 fs::perms::group_write | fs::perms::others_read | fs::perms::others_write);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs the probes inside a compiler started with `options`; fails the test unless they ran.
  Probes Run(const SandboxedCompilerOptions& options, const std::string& extra = "") {
    const SandboxedCompiler compiler(options);
    CompileRequest request;
    request.source = "// KJUDGE_SANDBOX_PROBE secret=" + secret_.string() + " dir=" + dir_.string() +
                     " allowed=" + AllowedFile(compiler) + " " + extra + "\n__global__ void k() {}\n";
    absl::StatusOr<CompileOutcome> o = compiler.Compile(request);
    EXPECT_TRUE(o.ok()) << o.status();
    if (!o.ok()) return {};
    last_ = *o;
    Probes probes = ParseProbes(o->log);
    EXPECT_FALSE(probes.empty()) << "the probes did not run: " << o->log << o->message;
    return probes;
  }

  // A file in the first include dir (kjudge's std_headers): Landlock lets the compiler read it.
  static std::string AllowedFile(const SandboxedCompiler& compiler) {
    const std::string& dir = compiler.options().include_dirs.at(0);
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
      if (e.is_regular_file()) return e.path().string();
    }
    return dir;
  }

  fs::path dir_;
  fs::path secret_;
  CompileOutcome last_;
};

TEST_F(SandboxFromInside, SeccompRefusesWhatThePolicyNames) {
  Probes p = Run(Options(KJUDGE_SANDBOX_PROBE_EXEC));
  EXPECT_EQ(p["seccomp_mode"], "2");
  EXPECT_EQ(p["no_new_privs"], "1");
  EXPECT_EQ(p["dumpable"], "0");
  // Sockets (fd 3 is one: connecting it elsewhere is refused too), exec, new processes,
  // namespaces, other processes, kernel attack surface, identity changes.
  for (const char* call : {"socket_unix", "socket_inet", "socketpair", "connect_fd3", "execve", "fork",
                           "unshare_user", "ptrace_parent", "kill_group", "kill_parent", "tkill_self",
                           "pidfd_open_self", "process_vm_readv_self", "io_uring_setup",
                           "perf_event_open", "bpf", "keyctl", "mount", "setuid_0"}) {
    EXPECT_EQ(p[call], "EPERM") << call;
  }
  EXPECT_EQ(p["clone3"], "ENOSYS");  // so glibc falls back to clone, whose flags seccomp can see
  // What a compiler needs still works: threads, signals to itself.
  EXPECT_EQ(p["pthread_create"], "ok");
  EXPECT_EQ(p["kill_self"], "ok");
  EXPECT_EQ(p["tgkill_self"], "ok");
  // A filter binds only the loading thread and those it starts, unless synchronized: any thread
  // the warm-up compile left (an H200 host's NVRTC leaves one) is counted by the sandbox, which
  // put seccomp on all of them (TSYNC; the load fails otherwise).
  const int others = std::atoi(p["other_threads"].c_str());
  EXPECT_NE(last_.sandbox.find(absl::StrCat("seccomp (all ", others + 1, " thread(s))")), std::string::npos)
      << "probe saw " << others << " other thread(s); sandbox: " << last_.sandbox;
}

TEST_F(SandboxFromInside, EachRlimitHoldsWhenExceeded) {
  Probes p = Run(Options(KJUDGE_SANDBOX_PROBE_EXEC));
  const std::string as = std::to_string(kMemoryMib << 20);
  EXPECT_EQ(p["limit_as"], as + "/" + as);
  EXPECT_EQ(p["mmap_as_limit"], "ENOMEM");  // the whole limit at once cannot fit
  EXPECT_EQ(p["limit_nofile"], "64/64");
  EXPECT_EQ(p["nofile_exhaust"], "EMFILE:63");
  EXPECT_EQ(p["limit_fsize"], "0/0");
  EXPECT_EQ(p["memfd_create"], "ok");  // a scratch file Landlock does not govern...
  EXPECT_EQ(p["memfd_write"], "EFBIG");  // ...that cannot grow (SIGXFSZ ignored: EFBIG, no kill)
  EXPECT_EQ(p["memfd_ftruncate"], "EFBIG");
  EXPECT_EQ(p["limit_core"], "0/0");
  EXPECT_EQ(p["limit_memlock"], "0/0");
  EXPECT_TRUE(p["mlock"] == "EPERM" || p["mlock"] == "ENOMEM") << p["mlock"];
  // CPU: the compile's own seconds on top of what the warm-up used, SIGKILL 1 s later.
  const std::string cpu = p["limit_cpu"];
  const size_t slash = cpu.find('/');
  ASSERT_NE(slash, std::string::npos) << cpu;
  const long soft = std::atol(cpu.substr(0, slash).c_str());
  EXPECT_GE(soft, kDefaultCompileCpuSeconds) << cpu;
  EXPECT_LE(soft, kDefaultCompileCpuSeconds + 10) << cpu;
  EXPECT_EQ(cpu.substr(slash + 1), std::to_string(soft + 1)) << cpu;
  // No limit can be raised back (no CAP_SYS_RESOURCE left).
  for (const char* raise :
       {"raise_as", "raise_cpu", "raise_fsize", "raise_nofile", "raise_core", "raise_memlock"}) {
    EXPECT_EQ(p[raise], "EPERM") << raise;
  }
}

TEST_F(SandboxFromInside, CpuLimitEndsASpinningCompile) {
  SandboxedCompilerOptions options = Options(KJUDGE_SANDBOX_PROBE_EXEC);
  options.limits.cpu_seconds = 1;
  options.limits.wall_seconds = 60;  // the CPU limit alone ends it
  const SandboxedCompiler compiler(options);
  CompileRequest request;
  request.source = "// KJUDGE_SANDBOX_PROBE spin=1\n";
  absl::StatusOr<CompileOutcome> o = compiler.Compile(request);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->success);
  EXPECT_EQ(o->limit_hit, "cpu") << o->message;
  EXPECT_EQ(o->message, "compile exceeded its 1 s CPU limit");
}

TEST_F(SandboxFromInside, IdentityIsDroppedForGood) {
  SandboxedCompilerOptions options = Options(KJUDGE_SANDBOX_PROBE_EXEC);
  // Not nobody: the ids come from the options, not from a constant.
  options.uid = 54321;
  options.gid = 43210;
  Probes p = Run(options);
  if (::geteuid() == 0) {
    EXPECT_EQ(p["uids"], "54321,54321,54321");
    EXPECT_EQ(p["gids"], "43210,43210,43210");
    EXPECT_EQ(p["groups"], "0");
  } else {
    const std::string uid = std::to_string(::getuid());
    EXPECT_EQ(p["uids"], uid + "," + uid + "," + uid);
  }
  EXPECT_EQ(p["cap_effective"], "0");
  EXPECT_EQ(p["cap_permitted"], "0");
}

TEST_F(SandboxFromInside, LandlockRefusesEveryFileOutsideTheReadDirs) {
  Probes p = Run(Options(KJUDGE_SANDBOX_PROBE_EXEC));
  EXPECT_GE(std::atoi(p["landlock_abi"].c_str()), 1) << p["landlock_abi"];
  EXPECT_EQ(p["read_allowed"], "ok");
  for (const char* denied : {"read_secret", "write_secret", "read_etc_passwd", "list_root", "create_in_dir",
                             "mkdir_in_dir", "unlink_secret", "truncate_secret"}) {
    EXPECT_EQ(p[denied], "EACCES") << denied;
  }
  std::ifstream secret(secret_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(secret), {}), "KJSECRET");
  EXPECT_FALSE(fs::exists(dir_ / "created"));
  EXPECT_FALSE(fs::exists(dir_ / "made"));
}

TEST_F(SandboxFromInside, WithoutLandlockTheCompilerRefuses) {
  const SandboxedCompiler compiler(Options(KJUDGE_SANDBOX_NO_LANDLOCK_EXEC));
  CompileRequest request;
  request.source = "// KJUDGE_SANDBOX_PROBE\n__global__ void k() {}\n";
  absl::StatusOr<CompileOutcome> o = compiler.Compile(request);
  ASSERT_FALSE(o.ok()) << "compiled without a filesystem sandbox: " << o->log;
  EXPECT_NE(o.status().message().find("refusing to compile untrusted code without a filesystem sandbox"),
            std::string::npos)
      << o.status();
  EXPECT_NE(o.status().message().find("--allow-unsandboxed"), std::string::npos) << o.status();
}

// The control for the Landlock test (the same probes see the secret when only Landlock is
// missing) and --allow-unsandboxed's promise: it says so, and seccomp and rlimits still hold.
TEST_F(SandboxFromInside, AllowUnsandboxedSaysSoAndKeepsTheOtherWalls) {
  SandboxedCompilerOptions options = Options(KJUDGE_SANDBOX_NO_LANDLOCK_EXEC);
  options.allow_unsandboxed = true;
  Probes p = Run(options);
  EXPECT_NE(last_.sandbox.find("UNSANDBOXED"), std::string::npos) << last_.sandbox;
  EXPECT_EQ(p["landlock_abi"], "ENOSYS");
  EXPECT_EQ(p["read_secret"], "ok");
  EXPECT_EQ(p["read_etc_passwd"], "ok");
  EXPECT_EQ(p["seccomp_mode"], "2");
  EXPECT_EQ(p["socket_inet"], "EPERM");
  EXPECT_EQ(p["execve"], "EPERM");
  EXPECT_EQ(p["limit_nofile"], "64/64");
  EXPECT_EQ(p["memfd_write"], "EFBIG");
}

}  // namespace
}  // namespace kjudge::compiler
