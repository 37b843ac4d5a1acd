// CompileProtocol: the one request and the one response exchanged between a SandboxedCompiler
// (parent) and one kjudge-compiler process over file descriptor 3.
//
// Contract: a frame is an 8-byte little-endian payload length followed by the payload, a CBOR
// document (nlohmann-json's CBOR: binary-safe, so a log holding arbitrary bytes of the source
// and the cubin travel unchanged, which JSON text would not allow). Each side sends exactly one
// frame. Decoding rejects a frame over the reader's size cap before allocating it, a payload
// that is not a CBOR map, and fields of the wrong type: a hostile or broken peer gets an error
// value, never a crash. Pure functions plus blocking fd helpers; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "worker/compiler/ptxas_report.h"

namespace kjudge::compiler {

// Which limit ended a compile, if any; part of the response and of CompileOutcome.
inline constexpr std::string_view kLimitMemory = "memory";
inline constexpr std::string_view kLimitCpu = "cpu";
inline constexpr std::string_view kLimitTime = "time";
inline constexpr std::string_view kLimitCubin = "cubin";
inline constexpr std::string_view kLimitSource = "source";

struct ProtocolRequest {
  std::string source;
  std::string program_name;
  std::string arch;
  std::vector<std::string> name_expressions;
  std::vector<std::string> include_dirs;  // extra --include-path dirs (CUDA's are implied)
};

struct ProtocolResponse {
  bool success = false;
  // The compiler could not do its job (sandbox unavailable, NVRTC failure): the parent reports
  // an INTERNAL_ERROR Status rather than a compile error.
  bool internal_error = false;
  std::string cubin;
  std::map<std::string, std::string> lowered_names;
  std::string log;             // capped; ends with "[kjudge: N bytes of compiler log cut]"
  uint64_t log_bytes_cut = 0;
  std::string message;
  std::string limit_hit;       // "" or one of the kLimit* names
  std::string sandbox;         // how the compile was confined, e.g. "landlock abi 7, seccomp, uid 65534"
  double compile_ms = 0.0;     // NVRTC time inside the compiler
  // Each kernel's resources (ptxas_report.h); decoding caps them at kMaxReportedKernels (the
  // rest added to kernels_cut) and re-applies SafeKernelName: the peer compiled hostile code.
  std::vector<KernelResources> kernels;
  int64_t kernels_cut = 0;
};

std::string EncodeRequest(const ProtocolRequest& request);
absl::StatusOr<ProtocolRequest> DecodeRequest(std::string_view payload);
std::string EncodeResponse(const ProtocolResponse& response);
absl::StatusOr<ProtocolResponse> DecodeResponse(std::string_view payload);

// The 8-byte length header of a frame holding `payload_size` bytes.
std::string FrameHeader(uint64_t payload_size);
// Decodes a header; an error when it announces more than max_payload bytes.
absl::StatusOr<uint64_t> ParseFrameHeader(std::string_view header, uint64_t max_payload);

// Blocking helpers for the compiler side (fd 3 is blocking there). WriteFrame retries short
// writes and EINTR; ReadFrame reads exactly one frame of at most max_payload bytes.
absl::Status WriteFrame(int fd, std::string_view payload);
absl::StatusOr<std::string> ReadFrame(int fd, uint64_t max_payload);

}  // namespace kjudge::compiler
