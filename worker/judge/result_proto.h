// ResultProto: the printing side of the verdict protocol: turns measurements (comparison
// results, sample summaries, errors) into kjudge.v1 messages. No CUDA, no state.
#pragma once

#include <string>

#include "common/output_comparison.h"
#include "common/sample_statistics.h"
#include "kjudge/v1/kjudge.pb.h"
#include "worker/gpu/runner_error.h"
#include "worker/judge/verdict_decision.h"

namespace kjudge::runner {

v1::Timing ToTimingProto(const SampleSummary& summary);
v1::TestOutcome ToTestOutcome(const std::string& shape, const ComparisonResult& result);
// The fault an error ends a job with (VerdictDecision::Faulted decides on it).
Fault FaultOf(const ErrorInfo& error);
std::string VerdictName(v1::Verdict verdict);

}  // namespace kjudge::runner
