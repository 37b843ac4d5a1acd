// PtxasReport: each kernel's resource usage (registers, spills, static shared memory, local
// memory, the register file's limit on threads per block), read from the report that ptxas adds
// to an NVRTC log under kPtxasVerboseOption, and the log with that report taken out; each
// kernel's __launch_bounds__ read from the cubin (LaunchBoundsFromCubin).
//
// Contract: SplitPtxasReport() is a pure function over untrusted text. It reads only the
// log's trailing run of lines that start with "ptxas" (NVRTC writes ptxas' output after every
// front-end message, and a front-end message is always followed by its source line and caret,
// so text a source prints, e.g. with #pragma message, never reaches that run); within it a
// kernel is a line "Compiling entry function '<name>'" followed by its "Used N registers, ...
// N bytes smem" and "N bytes stack frame, N bytes spill stores, N bytes spill loads" lines, and
// a kernel named again replaces the earlier record. Only numbers and a kernel's lowered name
// (bytes outside [A-Za-z0-9_$.] become '?', cut to kMaxKernelNameBytes) leave it: no other log
// text. At most `max_kernels` kernels are kept, in the order ptxas compiled them; the others
// are counted in kernels_cut. Numbers that do not parse, or do not fit an int64, read as 0.
// The returned log is the input without ptxas' -v lines ("ptxas info" and its "ptxas ." property
// lines); ptxas warnings and errors stay, so the log a submitter sees is the one NVRTC writes
// without -v. Linear in the log's size; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace kjudge::compiler {

// The NVRTC option that makes ptxas report every kernel's resources in the program log.
inline constexpr std::string_view kPtxasVerboseOption = "--ptxas-options=-v";
// A hostile source may declare thousands of kernels: a result reports at most this many.
inline constexpr size_t kMaxReportedKernels = 64;
inline constexpr size_t kMaxKernelNameBytes = 256;
// The register file every architecture kjudge judges on (sm_70..sm_120) gives one block, and
// the hardware's cap on threads per block.
inline constexpr int64_t kRegistersPerBlock = 65536;
inline constexpr int64_t kMaxThreadsPerBlockCap = 1024;

struct KernelResources {
  std::string name;                  // lowered (mangled) name, as the cubin's symbol
  int64_t registers = 0;             // per thread
  int64_t spill_store_bytes = 0;     // per thread
  int64_t spill_load_bytes = 0;      // per thread
  int64_t static_shared_bytes = 0;   // __shared__ arrays, per block
  int64_t local_bytes = 0;           // stack frame (local arrays and spills), per thread
  int64_t barriers = 0;              // named barriers used
  // The most threads one block may have given its registers (CUDA allocates 256 registers per
  // warp at a time, from one of 4 quarters of kRegistersPerBlock), at most 1024, and at most the kernel's
  // __launch_bounds__ (ApplyLaunchBounds, from the cubin); 0 when not one warp fits.
  int64_t max_threads_per_block = 0;
};

struct PtxasReport {
  std::vector<KernelResources> kernels;
  int64_t kernels_cut = 0;  // kernels ptxas reported beyond the cap
  std::string log;          // the input without the -v report's lines
};

PtxasReport SplitPtxasReport(std::string_view log, size_t max_kernels = kMaxReportedKernels);

// The register file's limit on threads per block for a kernel using `registers` per thread.
int64_t MaxThreadsForRegisters(int64_t registers);

// `name` with bytes outside [A-Za-z0-9_$.] replaced by '?' and cut to kMaxKernelNameBytes: what
// a result may carry as a kernel's name (also applied by the parent to the compiler's answer).
std::string SafeKernelName(std::string_view name);

// Each kernel's __launch_bounds__ maximum (x * y * z of its EIATTR_MAX_THREADS attribute in the
// cubin's ".nv.info.<name>" section), by the kernel's lowered name; kernels without one are
// absent. `cubin` is untrusted bytes: every offset is bounds-checked, a malformed ELF or
// attribute list ends the reading (what was read so far is returned), never a crash.
std::map<std::string, int64_t> LaunchBoundsFromCubin(std::string_view cubin);
// Lowers each kernel's max_threads_per_block to its __launch_bounds__ maximum, read from `cubin`.
void ApplyLaunchBounds(std::string_view cubin, std::vector<KernelResources>* kernels);

// Kernels as a JSON (or CBOR) array of objects with the KernelResources field names: the
// compiler's answer to its parent (compile_protocol.h) and a cubin cache entry carry them so.
nlohmann::json KernelsToJson(const std::vector<KernelResources>& kernels);
// The inverse, for data from a peer or a file: nullopt when `doc` is not an array of objects
// whose fields are of the right kind; numbers below 0 read as 0, at most `max_kernels` kept
// (the rest added to *cut), names passed through SafeKernelName.
std::optional<std::vector<KernelResources>> KernelsFromJson(const nlohmann::json& doc, int64_t* cut,
                                                            size_t max_kernels = kMaxReportedKernels);

}  // namespace kjudge::compiler
