// JobOutcome: THE rule for whether a finished job succeeded (issue 29: the CLI and the Python
// client disagreed on BASELINES_MEASURED). The server sets Job.succeeded from it on every Job it
// returns; clients read that field and never decide it themselves.
//
// Contract: a job succeeded when it is DONE with the verdict its kind asks for: CORRECT for a
// full job, COMPILED for a compile-only job, BASELINES_MEASURED for a baselines-only job. A
// compile-only job that somehow ended CORRECT, or a full job COMPILED (a worker without a GPU
// would say so), did not get what was asked and is not a success.
#pragma once

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

bool JobSucceeded(const v1::Job& job);

}  // namespace kjudge::server
