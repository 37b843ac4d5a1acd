// KernelSection: the job page's "Kernels" section, each compiled kernel's resources
// (JobResult.kernels: registers, spills, local memory, static and dynamic shared memory, the
// register file's limit on threads per block), as ptxas reported them at compile time.
//
// Contract: pure; returns "" for a result without kernels. Every text (kernel and plan names)
// is escaped and capped; numbers are printed as the result holds them. A table with id
// "kernels", one row per kernel (class "kernel", data-name = the lowered name), and a line
// saying how many kernels were not listed when kernels_cut > 0.
#pragma once

#include <string>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::dashboard {

std::string KernelSection(const v1::JobResult& result);

}  // namespace kjudge::dashboard
