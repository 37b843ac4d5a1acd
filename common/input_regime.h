// InputRegime: how an input set's float inputs are bent away from the declared init (issue 26
// point 2; problems/README.md documents the rule that admits a regime).
//
// A problem.toml lists, at top level, the regimes its reference stays well conditioned in:
//   regimes = ["offset", "large", "ties", "zeros", "positive", "negative"]   # any subset
// "declared" (the init as written) is always part of a problem's set and is never listed.
// The judge picks one regime per input set, secretly; it changes only "in" tensors of a float
// dtype whose init is scalable, after the draw v (input_scale included) and before the init's
// transform, with sigma the init's std (normal: b; uniform: (b - a) / sqrt(12)):
//   declared v | offset v + 32 sigma | large 100 v | ties q rint(v / q), q = sigma / 2 |
//   zeros 0 where the element's zero bit is 1, else v | positive |v| | negative -|v|
// (worker/judge/device_utilities.h says which bit is the zero bit.)
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace kjudge {

// The numeric values are the kernel argument of kj_fill (worker/judge/device_utilities.cc):
// never renumber.
enum class InputRegime {
  kDeclared = 0,
  kOffset = 1,
  kLarge = 2,
  kTies = 3,
  kZeros = 4,
  kPositive = 5,
  kNegative = 6,
};

// Every regime a problem may list, in canonical order (kDeclared excluded).
inline constexpr std::array<InputRegime, 6> kListableRegimes = {
    InputRegime::kOffset, InputRegime::kLarge,    InputRegime::kTies,
    InputRegime::kZeros,  InputRegime::kPositive, InputRegime::kNegative};

// "declared", "offset", "large", "ties", "zeros", "positive", "negative": the spelling of
// problem.toml and of JobResult.input_keys[i].regime.
std::string_view RegimeName(InputRegime regime);

// The regime spelled `name` (any of the seven, "declared" included); nullopt for anything else
// (case-sensitive, no whitespace trimming).
std::optional<InputRegime> ParseRegimeName(std::string_view name);

// "offset, large, ties, zeros, positive, negative": the names a problem may list, for errors.
std::string_view ListableRegimeNames();

}  // namespace kjudge
