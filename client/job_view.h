// JobView: how a job looks to a person in a terminal: a one-line progress status while it
// runs, and a verdict report when it is done (tests, first mismatches, timings, the compile
// log on a compile error, and speedups: each names its baseline, the default one chosen by the
// server, server/kernel_metrics.h, is marked, with KernelBench's number beside it).
#pragma once

#include <ostream>
#include <string>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::client {

std::string ProgressLine(const v1::Job& job);
// A queued job's Job.waiting_reason (why no connected worker can take it), capped at 400 bytes
// with control characters blanked; "" when none.
std::string WaitingReasonText(const v1::Job& job);
void PrintReport(const v1::Job& job, std::ostream& out);

}  // namespace kjudge::client
