// SandboxedCompiler: compiles untrusted CUDA source in a fresh kjudge-compiler process per
// compile (README.md): Landlock read-only to the include dirs, seccomp, rlimits, no secrets.
//
// Contract: Compile() spawns the compiler (posix_spawn: nothing of the parent, e.g. a CUDA
// context, runs in the child before exec), with fd 3 a socketpair end, stdin/stdout /dev/null,
// stderr inherited, every other fd closed, and an environment holding only LD_LIBRARY_PATH and
// CUDA_HOME (when the parent has them): no KJUDGE_API_KEY or other secret can reach it. It writes
// the request, reads the response within the wall-clock limit (poll), and reaps the child with
// wait4 (peak RSS). Outcomes:
//  * success, or a compile error with the capped log: as CompileWithNvrtc;
//  * a limit hit (memory, CPU time, wall time, cubin size, source size): success == false,
//    limit_hit names it and message reads e.g. "compile exceeded its 2048 MiB memory limit"
//    -- a verdict about the submission, never an error Status (so no retry);
//  * an error Status (INTERNAL_ERROR via MakeRunnerError) only when the compiler cannot do its
//    job at all: binary missing, spawn failure, sandbox unavailable, a crash not explained by a
//    limit, a malformed response.
// Thread-safe: no shared mutable state; concurrent Compile() calls run separate processes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "worker/compiler/compile_limits.h"
#include "worker/gpu/nvrtc_compiler.h"
#include "worker/process/child_process.h"
#include "worker/process/unique_fd.h"

namespace kjudge::compiler {

// kjudge-compiler's exit status when its own allocation failed under RLIMIT_AS.
inline constexpr int kCompilerExitOutOfMemory = 86;

struct CompilerLimits {
  // RLIMIT_AS. A normal kernel needs ~75 MiB RSS and compiles under 150 MiB of address space;
  // heavy CUB/CuTe headers need a few hundred MiB. 2 GiB leaves a wide margin and stops a
  // template bomb within seconds.
  uint64_t memory_mib = 2048;
  int cpu_seconds = kDefaultCompileCpuSeconds;  // RLIMIT_CPU
  // Killed by the parent past this. 0: CompileWallSeconds(cpu_seconds), as everywhere but in
  // tests of the wall limit itself.
  int wall_seconds = 0;
  uint64_t log_bytes = 64 << 10;
  // A cubin over this is a compile error: a 405-byte source can unroll into a 60 MB cubin.
  uint64_t cubin_bytes = kDefaultCubinMib << 20;
  uint64_t source_bytes = 8 << 20;

  int WallSeconds() const { return wall_seconds > 0 ? wall_seconds : CompileWallSeconds(cpu_seconds); }
};

struct SandboxedCompilerOptions {
  std::string compiler_path;  // "": FindCompilerBinary("")
  CompilerLimits limits;
  // kjudge's NVRTC standard headers (std_headers/README.md): nullopt = FindStdHeadersDir() for
  // the compiler binary; "" = none. Put first in include_dirs by the constructor.
  std::optional<std::string> std_headers_dir;
  // --include-path dirs searched BEFORE CUDA's (so kjudge's <cub/cub.cuh> and <cuda.h> win);
  // also readable (Landlock). Their paths and content digest are part of the cubin cache key.
  std::vector<std::string> include_dirs;
  // Dirs the compiler may read (its Landlock rules): read_dirs (empty: DefaultReadDirs())
  // plus include_dirs.
  std::vector<std::string> read_dirs;
  std::optional<uid_t> uid;   // the uid to drop to when run as root; default nobody (65534)
  std::optional<gid_t> gid;
  bool allow_unsandboxed = false;  // kernels without Landlock only; logged loudly
};

// The next compile's process is started ahead (spawned, NVRTC loaded, sandboxed, waiting on
// its fd 3), so a compile pays only for NVRTC itself: a spare is taken by each Compile() and
// the next one started right away.
class SandboxedCompiler {
 public:
  explicit SandboxedCompiler(SandboxedCompilerOptions options = {});
  ~SandboxedCompiler();
  SandboxedCompiler(const SandboxedCompiler&) = delete;
  SandboxedCompiler& operator=(const SandboxedCompiler&) = delete;

  absl::StatusOr<runner::CompileOutcome> Compile(const runner::CompileRequest& request) const;

  // include_dirs holds the std_headers dir first (when used) once constructed.
  const SandboxedCompilerOptions& options() const { return options_; }
  // TreeDigest of every include dir, in order: changes whenever a header does, so it goes into
  // the cubin cache key (worker/judge/cubin_cache.cc).
  const std::string& include_digest() const { return include_digest_; }
  // OK, or why the std_headers could not be used (every Compile() then returns it as an
  // INTERNAL_ERROR: a broken installation, not the submission's fault). When they exist but
  // the compiler's uid could not read them where they are, a WorldReadableCopy() is used
  // (options().std_headers_dir names it) and removed by the destructor.
  const absl::Status& std_headers_status() const { return std_headers_status_; }
  // The kjudge-compiler command line (without the binary), for logs and tests.
  std::vector<std::string> Arguments() const;

 private:
  struct Spawned {
    process::ChildProcess child;
    process::UniqueFd fd;  // our end of its fd 3
  };
  absl::StatusOr<Spawned> Launch() const;
  // A live spare, or an empty Spawned (child.pid() -1) when none.
  Spawned TakeSpare() const;
  void StartSpare() const;

  void UseStdHeaders();

  SandboxedCompilerOptions options_;
  std::string include_digest_;
  absl::Status std_headers_status_;
  std::string std_headers_copy_;  // a world-readable copy this object made and removes; "" if none
  mutable std::mutex mu_;
  mutable Spawned spare_;  // guarded by mu_
};

// The compiler binary: explicit_path when not empty; else kjudge-compiler in the directory of
// /proc/self/exe (bin/ beside kjudge-runner); else $KJUDGE_COMPILER. NOT_FOUND naming every
// place looked at when none is an executable file.
absl::StatusOr<std::string> FindCompilerBinary(const std::string& explicit_path);

// kjudge's standard headers for the compiler binary at compiler_binary, as a real path:
// <its dir>/../share/kjudge/std_headers (the build tree and the deploy/pack.sh bundle both put
// them there), else $KJUDGE_STD_HEADERS. NOT_FOUND naming every place looked at.
absl::StatusOr<std::string> FindStdHeadersDir(const std::string& compiler_binary);

// SHA-256 (hex) over the relative path and bytes of every regular file beneath dir, in path
// order. An error Status when dir or a file in it cannot be read.
absl::StatusOr<std::string> TreeDigest(const std::string& dir);

// OK when a process of another uid (the compiler drops to nobody when the worker runs as
// root) can read every file beneath dir: dir and its ancestors searchable by others, files
// readable by others. Otherwise PERMISSION_DENIED naming the first path that is not.
absl::Status ReadableByOthers(const std::string& dir);

// A copy of dir that other uids can read: a fresh /tmp/kjudge-std-headers-XXXXXX (mkdtemp:
// an unpredictable name, created by us, so no other user can plant headers in it), dirs 0755,
// files 0644. Used when the bundle lives under a folder nobody cannot enter (e.g. /root); the
// caller removes it.
absl::StatusOr<std::string> WorldReadableCopy(const std::string& dir);

// CudaIncludeDir() and its cccl/ subdirectory (when present), as real paths.
std::vector<std::string> DefaultReadDirs();

// "compile exceeded its 30 s CPU limit" and the like; amount in the limit's unit (MiB for
// memory, seconds for cpu/time, bytes for cubin/source).
std::string LimitMessage(std::string_view limit, uint64_t amount);
// "compile produced a cubin of N bytes, over its 32 MiB cubin limit".
std::string CubinLimitMessage(uint64_t cubin_bytes, uint64_t limit_bytes);

}  // namespace kjudge::compiler
