// StrUtil: string concatenation that accepts std::string_view. Debian's Abseil is built with
// its own absl::string_view (not std::string_view), so absl::StrCat rejects std::string_view;
// the runner uses Cat()/Append() instead, and Av()/Sv() to cross the boundary explicitly.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace kjudge::runner {

template <typename... Args>
std::string Cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return std::move(out).str();
}

template <typename... Args>
void Append(std::string* dest, const Args&... args) {
  dest->append(Cat(args...));
}

inline absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view Sv(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace kjudge::runner
