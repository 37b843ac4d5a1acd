#include "worker/gpu/runner_error.h"

#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

constexpr std::string_view kVerdictKey = "kjudge/verdict";
constexpr std::string_view kCudaKey = "kjudge/cuda_error";
constexpr std::string_view kStickyKey = "kjudge/sticky";

absl::StatusCode CodeFor(v1::Verdict verdict) {
  switch (verdict) {
    case v1::REJECTED:
    case v1::COMPILE_ERROR:
    case v1::LAUNCH_ERROR: return absl::StatusCode::kInvalidArgument;
    case v1::RUNTIME_ERROR: return absl::StatusCode::kAborted;
    case v1::INTERNAL_ERROR: return absl::StatusCode::kInternal;
    default: return absl::StatusCode::kFailedPrecondition;
  }
}

}  // namespace

absl::Status MakeRunnerError(v1::Verdict verdict, std::string_view message,
                             std::string_view cuda_error, bool sticky) {
  absl::Status status(CodeFor(verdict), Av(message));
  status.SetPayload(Av(kVerdictKey), absl::Cord(Cat(static_cast<int>(verdict))));
  if (!cuda_error.empty()) status.SetPayload(Av(kCudaKey), absl::Cord(Av(cuda_error)));
  if (sticky) status.SetPayload(Av(kStickyKey), absl::Cord("1"));
  return status;
}

ErrorInfo DescribeError(const absl::Status& status) {
  ErrorInfo info;
  info.message = std::string(status.message());
  if (auto v = status.GetPayload(Av(kVerdictKey))) {
    int value = 0;
    if (absl::SimpleAtoi(std::string(*v), &value) && v1::Verdict_IsValid(value)) {
      info.verdict = static_cast<v1::Verdict>(value);
    }
  }
  if (auto c = status.GetPayload(Av(kCudaKey))) info.cuda_error = std::string(*c);
  info.sticky = status.GetPayload(Av(kStickyKey)).has_value();
  return info;
}

absl::Status WithContext(const absl::Status& status, std::string_view prefix) {
  if (status.ok()) return status;
  absl::Status out(status.code(), Cat(prefix, ": ", status.message()));
  status.ForEachPayload(
      [&out](absl::string_view key, const absl::Cord& value) { out.SetPayload(key, value); });
  return out;
}

bool IsStickyCudaError(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorContextIsDestroyed:
    case cudaErrorExternalDevice:
    case cudaErrorIllegalState:
    case cudaErrorUnknown: return true;
    default: return false;
  }
}

std::string CudaErrorText(cudaError_t err) {
  return Cat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}

absl::Status CudaStatus(cudaError_t err, std::string_view what, v1::Verdict nonsticky_verdict) {
  if (err == cudaSuccess) return absl::OkStatus();
  const std::string text = CudaErrorText(err);
  if (IsStickyCudaError(err)) {
    return MakeRunnerError(v1::RUNTIME_ERROR, Cat(what, " failed: ", text), text, true);
  }
  return MakeRunnerError(nonsticky_verdict, Cat(what, " failed: ", text), text);
}

absl::Status SyncStatus(cudaError_t err, std::string_view what) {
  if (err == cudaSuccess) return absl::OkStatus();
  const std::string text = CudaErrorText(err);
  return MakeRunnerError(v1::RUNTIME_ERROR, Cat(what, " failed: ", text), text, true);
}

}  // namespace kjudge::runner
