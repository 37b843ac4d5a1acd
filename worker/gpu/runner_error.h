// RunnerError: how the runner's modules report failures that end a job with a verdict.
//
// Contract: every module returns absl::Status / StatusOr. A failure that maps to a specific
// verdict carries it as a payload (MakeRunnerError); an untagged error means INTERNAL_ERROR.
// A CUDA error is "sticky" when the CUDA context cannot be used after it (illegal address,
// launch failure, misaligned address, illegal instruction, hardware stack error, device-side
// assert, ...): such an error carries the sticky flag, and the runner writes its Result and
// exits with status 3 (kStickyExitCode). WithContext prefixes the message, keeping payloads.
#pragma once

#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::runner {

inline constexpr int kStickyExitCode = 3;

struct ErrorInfo {
  v1::Verdict verdict = v1::INTERNAL_ERROR;
  std::string message;
  std::string cuda_error;  // "cudaErrorIllegalAddress: an illegal memory access ..."
  bool sticky = false;
};

absl::Status MakeRunnerError(v1::Verdict verdict, std::string_view message,
                             std::string_view cuda_error = "", bool sticky = false);
ErrorInfo DescribeError(const absl::Status& status);
absl::Status WithContext(const absl::Status& status, std::string_view prefix);

bool IsStickyCudaError(cudaError_t err);
std::string CudaErrorText(cudaError_t err);  // "name: description"

// OK for cudaSuccess. A sticky error becomes RUNTIME_ERROR (sticky); any other error becomes
// `nonsticky_verdict`. `what` names the call, e.g. "cudaMalloc(X, 4096 bytes)".
absl::Status CudaStatus(cudaError_t err, std::string_view what,
                        v1::Verdict nonsticky_verdict = v1::INTERNAL_ERROR);

// For errors seen while waiting for kernels to finish: any error there is treated as sticky
// (RUNTIME_ERROR), since the context's state after a failed execution is not trusted.
absl::Status SyncStatus(cudaError_t err, std::string_view what);

}  // namespace kjudge::runner
