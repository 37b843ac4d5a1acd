#include "common/problem_order.h"

#include <cstddef>

namespace kjudge {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The end of the run (digits or non-digits) that starts at `begin`.
size_t RunEnd(std::string_view s, size_t begin) {
  const bool digits = IsDigit(s[begin]);
  size_t end = begin;
  while (end < s.size() && IsDigit(s[end]) == digits) ++end;
  return end;
}

// Compares two digit runs as numbers of any length: <0, 0 or >0.
int CompareNumbers(std::string_view a, std::string_view b) {
  const size_t a_zeros = a.find_first_not_of('0');
  const size_t b_zeros = b.find_first_not_of('0');
  a = a_zeros == std::string_view::npos ? std::string_view() : a.substr(a_zeros);
  b = b_zeros == std::string_view::npos ? std::string_view() : b.substr(b_zeros);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b);
}

}  // namespace

bool ProblemNameLess(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const size_t a_end = RunEnd(a, i);
    const size_t b_end = RunEnd(b, j);
    const std::string_view a_run = a.substr(i, a_end - i);
    const std::string_view b_run = b.substr(j, b_end - j);
    const int order = IsDigit(a[i]) && IsDigit(b[j]) ? CompareNumbers(a_run, b_run) : a_run.compare(b_run);
    if (order != 0) return order < 0;
    i = a_end;
    j = b_end;
  }
  if ((i < a.size()) != (j < b.size())) return j < b.size();  // a prefix comes first
  return a < b;  // equal as numbers ("01" and "1"): byte order decides
}

}  // namespace kjudge
