// KernelReport: the compile feedback a result carries for each kernel of the candidate
// (JobResult.kernels): ptxas' resources (worker/compiler/ptxas_report.h), the plan's name
// expressions that lowered to it, and the most dynamic shared memory the plan asks for it.
//
// Contract: pure; reads only the compiled program, the plan and the problem's shapes. A plan
// size that does not evaluate at some shape is skipped here (the run reports it). Kernels keep
// the compiler's order and cap; kernels_cut is carried over.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/launch_plan.h"
#include "common/problem_spec.h"
#include "kjudge/v1/kjudge.pb.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::runner {

// Name expression -> the most dynamic shared memory (bytes) any launch of it asks for at any
// test or bench shape.
std::map<std::string, int64_t> DynamicSharedBytes(const LaunchPlan& plan, const ProblemSpec& spec);

// Sets result->kernels and result->kernels_cut from `program`.
void ReportKernels(const CompiledProgram& program, const LaunchPlan& plan, const ProblemSpec& spec,
                   v1::JobResult* result);

}  // namespace kjudge::runner
