// ProblemOrder: the one order in which problems are listed everywhere (ListProblems, `kjudge
// problems`, the dashboard): by KernelBench number, not lexically (issue 27 pt9).
//
// Contract: ProblemNameLess compares names piece by piece, where a piece is a run of digits or a
// run of other characters; digit runs compare as numbers (leading zeros ignored, any length),
// other runs byte-wise. So "level1/2_X" < "level1/10_Y" < "level2/1_Z", and "a9" < "a10". Names
// that are equal as numbers ("a01" and "a1") fall back to plain byte order, so the result is a
// strict weak ordering that tells every two different strings apart (usable as a std::map
// comparator). No allocation; any bytes.
#pragma once

#include <string>
#include <string_view>

namespace kjudge {

// True when problem name `a` comes before `b` in the catalog order described above.
bool ProblemNameLess(std::string_view a, std::string_view b);

// ProblemNameLess as a transparent comparator, e.g. std::map<std::string, T, ProblemNameOrder>.
struct ProblemNameOrder {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return ProblemNameLess(a, b); }
};

}  // namespace kjudge
