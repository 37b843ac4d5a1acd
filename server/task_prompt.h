// TaskPrompt: the text an LLM is given to solve one problem: the problem's description, its
// tensors, sizes, shapes, scalars and tolerance, the submission format (device code plus a
// kjudge-plan launch plan, with the plan grammar), the rules the judge enforces, and the
// starter file as an example. `kjudge problem NAME --prompt` prints it; the API returns the
// same text in Problem.prompt. Pure function of the problem's files.
#pragma once

#include <string>

#include "common/problem_dir.h"

namespace kjudge::server {

std::string BuildTaskPrompt(const ProblemFiles& files, const std::string& starter_source);

}  // namespace kjudge::server
