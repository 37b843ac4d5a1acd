#include "worker/gpu/nvrtc_compiler.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "worker/gpu/str_util.h"
#include "absl/strings/str_join.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

struct ProgramDeleter {
  void operator()(nvrtcProgram prog) const { nvrtcDestroyProgram(&prog); }
};
using ProgramHandle = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

absl::Status NvrtcStatus(nvrtcResult result, std::string_view what) {
  if (result == NVRTC_SUCCESS) return absl::OkStatus();
  return MakeRunnerError(v1::INTERNAL_ERROR,
                         Cat(what, " failed: ", nvrtcGetErrorString(result)));
}

std::string ProgramLog(nvrtcProgram prog) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The first "error" line of the log, for the one-line message.
std::string FirstErrorLine(std::string_view log) {
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(start, end - start);
    if (line.find("error") != std::string_view::npos) return std::string(line);
    start = end + 1;
  }
  return "";
}

// NVRTC reports a name expression it cannot resolve in a synthetic "__nv_name_map" unit:
//   Input name expression was: " row_finish<256>"
// Name the plan kernel in that case; otherwise quote the first error line.
std::string FailureMessage(const CompileRequest& request, std::string_view log) {
  for (const std::string& expr : request.name_expressions) {
    const std::string marker = Cat("Input name expression was: \" ", expr, "\"");
    const std::string base = expr.substr(0, expr.find('<'));
    const bool base_undefined =
        log.find("__nv_name_map(") != std::string_view::npos &&
        log.find(Cat("identifier \"", base, "\" is undefined")) != std::string_view::npos;
    if (log.find(marker) != std::string_view::npos || base_undefined) {
      return Cat("kernel `", expr, "` named by the launch plan was not found in ",
                          request.program_name,
                          " (it must be a __global__ function, or a template of one, with "
                          "that name)");
    }
  }
  const std::string first = FirstErrorLine(log);
  return first.empty() ? "NVRTC rejected the source" : first;
}

absl::StatusOr<std::string> ReadCubin(nvrtcProgram prog) {
  size_t size = 0;
  KJ_RETURN_IF_ERROR(NvrtcStatus(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize"));
  std::string cubin(size, '\0');
  KJ_RETURN_IF_ERROR(NvrtcStatus(nvrtcGetCUBIN(prog, cubin.data()), "nvrtcGetCUBIN"));
  return cubin;
}

absl::StatusOr<std::map<std::string, std::string>> LoweredNames(
    nvrtcProgram prog, const std::vector<std::string>& exprs) {
  std::map<std::string, std::string> names;
  for (const std::string& expr : exprs) {
    const char* lowered = nullptr;
    KJ_RETURN_IF_ERROR(NvrtcStatus(nvrtcGetLoweredName(prog, expr.c_str(), &lowered),
                                   Cat("nvrtcGetLoweredName(", expr, ")")));
    names[expr] = lowered;
  }
  return names;
}

}  // namespace

std::string CudaIncludeDir() {
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    return Cat(home, "/include");
  }
  return "/usr/local/cuda/include";
}

std::vector<std::string> NvrtcOptions(std::string_view arch,
                                      const std::vector<std::string>& extra_include_dirs) {
  const std::string include = CudaIncludeDir();
  std::vector<std::string> options = {Cat("--gpu-architecture=", arch), "-std=c++17", "-lineinfo",
                                      std::string(compiler::kPtxasVerboseOption)};
  // kjudge's own headers first: its <cub/cub.cuh>, <cuda.h> and host-only #error headers must
  // win over the CUDA include tree's (worker/compiler/std_headers/README.md).
  for (const std::string& dir : extra_include_dirs) options.push_back(Cat("--include-path=", dir));
  options.push_back(Cat("--include-path=", include));
  std::error_code ec;
  if (std::filesystem::is_directory(include + "/cccl", ec)) {
    options.push_back(Cat("--include-path=", include, "/cccl"));
  }
  // nvcc's implicit prelude (its <cuda_runtime.h> brings the host math headers): INFINITY, NAN,
  // M_PI, FLT_MAX, int64_t, std::exp... without an #include, from kjudge's std_headers when they
  // are the first include dir (worker/compiler/std_headers/README.md).
  if (!extra_include_dirs.empty() &&
      std::filesystem::is_regular_file(Cat(extra_include_dirs.front(), "/", kNvccPrelude), ec)) {
    options.push_back(Cat("--pre-include=", kNvccPrelude));
  }
  return options;
}

std::string NvrtcVersionString() {
  int major = 0;
  int minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return Cat(major, ".", minor);
}

namespace {

// One NVRTC compile of `request` with exactly `options`.
struct NvrtcRun {
  ProgramHandle prog;
  nvrtcResult result = NVRTC_SUCCESS;
};

absl::StatusOr<NvrtcRun> RunNvrtc(const CompileRequest& request,
                                  const std::vector<std::string>& options) {
  nvrtcProgram raw = nullptr;
  KJ_RETURN_IF_ERROR(NvrtcStatus(nvrtcCreateProgram(&raw, request.source.c_str(),
                                                    request.program_name.c_str(), 0, nullptr,
                                                    nullptr),
                                 "nvrtcCreateProgram"));
  NvrtcRun run{ProgramHandle(raw)};
  for (const std::string& expr : request.name_expressions) {
    KJ_RETURN_IF_ERROR(NvrtcStatus(nvrtcAddNameExpression(run.prog.get(), expr.c_str()),
                                   Cat("nvrtcAddNameExpression(", expr, ")")));
  }
  std::vector<const char*> argv;
  argv.reserve(options.size());
  for (const std::string& o : options) argv.push_back(o.c_str());
  run.result = nvrtcCompileProgram(run.prog.get(), static_cast<int>(argv.size()), argv.data());
  return run;
}

}  // namespace

absl::StatusOr<CompileOutcome> CompileWithNvrtc(const CompileRequest& request,
                                                const std::vector<std::string>& extra_include_dirs) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> options = NvrtcOptions(request.arch, extra_include_dirs);
  // The nvcc prelude is a fallback, not a default: pre-including it cost every compile 80-190 ms
  // (an H200 host's cold ReLU job went from 1.0 to 1.3 s: candidate and reference compiles both
  // paid), while only a source written for nvcc's implicit includes needs it. A source that
  // compiles without it is compiled exactly as before; one that fails gets one more compile with
  // it, and that compile's outcome (success, or its log) is the answer. The prelude only adds
  // names, so a source that compiles either way means the same thing (nvcc would accept both).
  const std::string prelude = Cat("--pre-include=", kNvccPrelude);
  const bool has_prelude = !options.empty() && options.back() == prelude;
  std::vector<std::string> plain = options;
  if (has_prelude) plain.pop_back();
  KJ_ASSIGN_OR_RETURN(NvrtcRun run, RunNvrtc(request, plain));
  if (has_prelude && run.result == NVRTC_ERROR_COMPILATION) {
    KJ_ASSIGN_OR_RETURN(run, RunNvrtc(request, options));
  }
  const nvrtcResult result = run.result;
  ProgramHandle prog = std::move(run.prog);

  CompileOutcome outcome;
  // ptxas' -v report becomes numbers; the log keeps what NVRTC writes without -v.
  compiler::PtxasReport report = compiler::SplitPtxasReport(ProgramLog(prog.get()));
  outcome.log = std::move(report.log);
  if (result == NVRTC_ERROR_COMPILATION || result == NVRTC_ERROR_INVALID_OPTION) {
    outcome.message = FailureMessage(request, outcome.log);
  } else {
    KJ_RETURN_IF_ERROR(NvrtcStatus(result, "nvrtcCompileProgram"));
    KJ_ASSIGN_OR_RETURN(outcome.program.cubin, ReadCubin(prog.get()));
    KJ_ASSIGN_OR_RETURN(outcome.program.lowered_names,
                        LoweredNames(prog.get(), request.name_expressions));
    outcome.program.kernels = std::move(report.kernels);
    compiler::ApplyLaunchBounds(outcome.program.cubin, &outcome.program.kernels);
    outcome.program.kernels_cut = report.kernels_cut;
    outcome.success = true;
  }
  outcome.compile_ms = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  return outcome;
}

}  // namespace kjudge::runner
