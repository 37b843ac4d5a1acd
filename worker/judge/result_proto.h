// ResultProto: the printing side of the verdict protocol: turns measurements (comparison
// results, sample summaries, errors) into kjudge.v1 messages. No CUDA, no state.
#pragma once

#include <string>

#include "common/output_comparison.h"
#include "common/sample_statistics.h"
#include "kjudge/v1/kjudge.pb.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {

v1::Timing ToTimingProto(const SampleSummary& summary);
v1::TestOutcome ToTestOutcome(const std::string& shape, const ComparisonResult& result);
// Sets verdict, message and cuda_error from an error.
void SetError(const ErrorInfo& error, v1::JobResult* result);
std::string VerdictName(v1::Verdict verdict);

}  // namespace kjudge::runner
