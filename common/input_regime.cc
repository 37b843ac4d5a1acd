// RegimeName / ParseRegimeName (declared in input_regime.h).
#include "common/input_regime.h"

namespace kjudge {

std::string_view RegimeName(InputRegime regime) {
  switch (regime) {
    case InputRegime::kDeclared: return "declared";
    case InputRegime::kOffset: return "offset";
    case InputRegime::kLarge: return "large";
    case InputRegime::kTies: return "ties";
    case InputRegime::kZeros: return "zeros";
    case InputRegime::kPositive: return "positive";
    case InputRegime::kNegative: return "negative";
  }
  return "declared";
}

std::optional<InputRegime> ParseRegimeName(std::string_view name) {
  if (name == RegimeName(InputRegime::kDeclared)) return InputRegime::kDeclared;
  for (InputRegime regime : kListableRegimes) {
    if (name == RegimeName(regime)) return regime;
  }
  return std::nullopt;
}

std::string_view ListableRegimeNames() { return "offset, large, ties, zeros, positive, negative"; }

}  // namespace kjudge
