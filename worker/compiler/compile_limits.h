// Compile limits: a compile's limits are set in ONE place, its CPU seconds; everything else
// that bounds a compile in time follows from it here, so the limits always agree.
//
// Contract: header-only constants and constexpr functions (no dependencies), included by the
// sandboxed compiler (CompilerLimits), the runner and the worker (its compile watchdog).
#pragma once

#include <cstdint>

namespace kjudge::compiler {

// The default CPU limit. The sandbox's own limits fire before the worker's watchdog, so a bomb
// ends as a COMPILE_ERROR naming its limit, never as a worker-level TIMEOUT.
inline constexpr int kDefaultCompileCpuSeconds = 30;
// NVRTC compiles on one thread, so a compile needs about as much wall time as CPU time; twice
// that plus 5 s leaves room for a loaded machine (the judge and the compile-ahead runner
// compile at once) while a compile that sleeps or blocks still ends.
constexpr int CompileWallSeconds(int cpu_seconds) { return 2 * cpu_seconds + 5; }
// The worker's watchdog on a compiling runner (worker/runner_supervisor.h): past the wall limit
// with room for spawning the compiler and reading its answer, so it fires only for a runner that
// is itself stuck.
constexpr int CompileWatchdogSeconds(int cpu_seconds) { return CompileWallSeconds(cpu_seconds) + 20; }
// The largest cubin a compile may produce, by default (a 405-byte source can unroll into 60 MB).
inline constexpr uint64_t kDefaultCubinMib = 32;

}  // namespace kjudge::compiler
