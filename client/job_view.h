// JobView: how a job looks to a person in a terminal: a one-line progress status while it
// runs, and a verdict report when it is done (tests, first mismatches, timings, speedups, the
// compile log on a compile error).
#pragma once

#include <ostream>
#include <string>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::client {

std::string ProgressLine(const v1::Job& job);
void PrintReport(const v1::Job& job, std::ostream& out);

}  // namespace kjudge::client
