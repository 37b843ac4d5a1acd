// absl_compat (internal to kjudge_common): Debian's Abseil 20220623 is built with
// ABSL_OPTION_USE_STD_STRING_VIEW=0, so absl::string_view is its own type and absl::StrCat,
// absl::StrJoin and absl::Status do not accept std::string_view. These convert explicitly.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace kjudge {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view ToStd(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace kjudge
