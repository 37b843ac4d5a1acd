// libFuzzer target: what the parent decodes from kjudge-compiler (worker/compiler/
// compile_protocol.h), a process that ran NVRTC on hostile input (issue 30 point 6). The input is
// a frame as the compiler could write it: 8-byte header, then the CBOR payload.
//   * ParseFrameHeader never accepts more than its cap;
//   * DecodeResponse / DecodeRequest never crash, overflow the stack or allocate what a length
//     field announces; an accepted response keeps every promise of the contract (kernels
//     capped, kernels_cut >= 0) and survives EncodeResponse -> DecodeResponse unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "worker/compiler/compile_protocol.h"
#include "worker/compiler/ptxas_report.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

constexpr uint64_t kCap = 1 << 20;

void CheckResponse(std::string_view payload) {
  absl::StatusOr<kjudge::compiler::ProtocolResponse> r = kjudge::compiler::DecodeResponse(payload);
  if (!r.ok()) return;
  Require(r->kernels.size() <= kjudge::compiler::kMaxReportedKernels);
  Require(r->kernels_cut >= 0);
  absl::StatusOr<kjudge::compiler::ProtocolResponse> again =
      kjudge::compiler::DecodeResponse(kjudge::compiler::EncodeResponse(*r));
  Require(again.ok());
  Require(again->success == r->success && again->internal_error == r->internal_error);
  Require(again->cubin == r->cubin && again->log == r->log && again->message == r->message);
  Require(again->lowered_names == r->lowered_names && again->limit_hit == r->limit_hit);
  Require(again->log_bytes_cut == r->log_bytes_cut && again->kernels_cut == r->kernels_cut);
  Require(again->kernels.size() == r->kernels.size() && again->sandbox == r->sandbox);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.size() >= 8) {
    absl::StatusOr<uint64_t> announced = kjudge::compiler::ParseFrameHeader(input.substr(0, 8), kCap);
    if (announced.ok()) Require(*announced <= kCap);
    CheckResponse(input.substr(8));
  }
  CheckResponse(input);
  (void)kjudge::compiler::DecodeRequest(input);
  return 0;
}
