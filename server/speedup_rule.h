// SpeedupRule: the server computes every speedup a result carries; a worker's numbers are never
// taken as they come (issue 30: a fake worker posted a 1000x speedup with no timings and it was
// stored). A speedup is baseline median / candidate median at one shape, where the candidate's
// median is the result's own timing at that shape and the baseline's is one the server knows for
// this job: cached for the worker's hardware key (what RunSpec.cached_baselines carried) or
// measured in this job and accepted (CompleteJobRequest.new_baselines the server asked for).
//
// Contract: RecomputeSpeedups() keeps the posted speedups' (shape, baseline) pairs in order,
// sets each value by the rule above, and drops a pair it cannot compute (no timing at the
// shape, no known baseline of that name there, a non-positive median) or a repeated one, adding
// one flag per dropped pair ("speedup_dropped: <baseline> at <shape>: <why>", at most
// kMaxDropFlags, then a count). Returns how many it dropped. Pure; no I/O.
#pragma once

#include <vector>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

inline constexpr int kMaxDropFlags = 8;

int RecomputeSpeedups(const std::vector<v1::BaselineTiming>& known, v1::JobResult* result);

}  // namespace kjudge::server
