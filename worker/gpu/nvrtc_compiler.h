// NvrtcCompiler: compiles CUDA C++ device code to a cubin for one architecture with NVRTC.
//
// Contract: Compile() returns a CompileOutcome for every source NVRTC could be asked about:
// success == false is a compile error (an expected outcome, not a Status error), with NVRTC's
// full log (lines read "<program_name>(12): error ...") and a one-line message; a plan kernel
// that does not exist in the source is named in that message. An error Status means NVRTC
// itself failed (INTERNAL_ERROR). Options: --gpu-architecture=<arch>, -std=c++17, -lineinfo,
// --include-path for extra_include_dirs (kjudge's std_headers: searched first), then the CUDA
// include dir (CUDA_HOME/include if CUDA_HOME is set, else /usr/local/cuda/include) and its
// cccl/ subdirectory when present. No -O3 (NVRTC 13 rejects
// it; device optimisation is the default) and no -rdc. --ptxas-options=-v: its report becomes
// program.kernels and is taken out of the log (compiler::SplitPtxasReport). Every name expression is registered
// with nvrtcAddNameExpression and its lowered (mangled) name returned. Thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "worker/compiler/ptxas_report.h"

namespace kjudge::runner {

struct CompileRequest {
  std::string source;
  std::string program_name = "solution.cu";  // appears in the log's line references
  std::string arch = "sm_90a";
  std::vector<std::string> name_expressions;  // e.g. "relu", "row_finish<256>"
};

struct CompiledProgram {
  std::string cubin;
  std::map<std::string, std::string> lowered_names;  // name expression -> lowered name
  // Each kernel's resources, from ptxas' -v report (worker/compiler/ptxas_report.h), at most
  // compiler::kMaxReportedKernels; kernels_cut counts the rest.
  std::vector<compiler::KernelResources> kernels;
  int64_t kernels_cut = 0;
};

struct CompileOutcome {
  bool success = false;
  std::string log;
  std::string message;  // "" on success
  CompiledProgram program;
  double compile_ms = 0.0;
  bool cache_hit = false;
  // Set by a sandboxed compile (worker/compiler/sandboxed_compiler.h): which limit ended it
  // ("memory", "cpu", "time", "cubin", "source"; "" when none), the log bytes cut by the log
  // cap, the compiler process's peak RSS and how it was confined.
  std::string limit_hit;
  uint64_t log_bytes_cut = 0;
  int64_t peak_rss_kib = 0;
  std::string sandbox;
};

// kjudge's pre-included header, relative to its std_headers folder: what nvcc makes visible
// without an #include (worker/compiler/std_headers/README.md, "nvcc's implicit prelude").
inline constexpr const char* kNvccPrelude = "__kjudge/nvcc_prelude.h";

// The options Compile() passes, in order (also part of the cubin cache key). When the first
// extra include dir holds kNvccPrelude (kjudge's std_headers), the last option pre-includes it;
// CompileWithNvrtc uses that option only when the source fails to compile without it.
std::vector<std::string> NvrtcOptions(std::string_view arch,
                                      const std::vector<std::string>& extra_include_dirs = {});
// The directory holding cuda_runtime.h etc. as found at run time.
std::string CudaIncludeDir();
// "13.0".
std::string NvrtcVersionString();

// extra_include_dirs: --include-path dirs searched before CUDA's (kjudge's std_headers; a
// sandboxed compile passes those of its SandboxedCompilerOptions).
absl::StatusOr<CompileOutcome> CompileWithNvrtc(const CompileRequest& request,
                                                const std::vector<std::string>& extra_include_dirs = {});

}  // namespace kjudge::runner
