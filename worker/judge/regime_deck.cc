// SecretUniform, DrawRegime and RegimeDeck (declared in regime_deck.h).
#include "worker/judge/regime_deck.h"

#include <utility>

namespace kjudge::runner {

std::string RegimeNote(InputRegime regime) {
  if (regime == InputRegime::kDeclared) return "";
  return std::string(", inputs in regime '") + std::string(RegimeName(regime)) + "'";
}

absl::StatusOr<uint32_t> SecretUniform(uint32_t n) {
  if (n == 0) return absl::InternalError("SecretUniform: an empty range (n = 0)");
  // Accept a 32-bit word below the largest multiple of n: then word % n is exactly uniform.
  const uint64_t span = uint64_t{1} << 32U;
  const uint64_t limit = span - span % n;
  for (;;) {
    absl::StatusOr<SecretKey> bits = SecretKey::Draw();
    if (!bits.ok()) return bits.status();
    for (uint32_t word : bits->words) {
      if (word < limit) return word % n;
    }
  }
}

absl::StatusOr<InputRegime> DrawRegime(const std::vector<InputRegime>& regimes) {
  if (regimes.empty()) return absl::InternalError("DrawRegime: no regimes to draw from");
  absl::StatusOr<uint32_t> index = SecretUniform(static_cast<uint32_t>(regimes.size()));
  if (!index.ok()) return index.status();
  return regimes[*index];
}

bool TimedRegime(InputRegime regime) { return regime != InputRegime::kZeros; }

std::vector<InputRegime> TimedRegimes(const std::vector<InputRegime>& drawable) {
  std::vector<InputRegime> timed;
  for (const InputRegime regime : drawable) {
    if (TimedRegime(regime)) timed.push_back(regime);
  }
  return timed;
}

absl::StatusOr<InputRegime> RecheckRegime(const std::vector<InputRegime>& drawable) {
  std::vector<InputRegime> untimed;
  for (const InputRegime regime : drawable) {
    if (!TimedRegime(regime)) untimed.push_back(regime);
  }
  return DrawRegime(untimed.empty() ? drawable : untimed);
}

absl::StatusOr<InputRegime> RegimeDeck::Next() {
  if (regimes_.empty()) return absl::InternalError("RegimeDeck: an empty set of regimes");
  if (remaining_.empty()) {
    remaining_ = regimes_;
    // Fisher-Yates with secret uniform indices: every permutation equally likely.
    for (size_t k = remaining_.size(); k > 1; --k) {
      absl::StatusOr<uint32_t> j = SecretUniform(static_cast<uint32_t>(k));
      if (!j.ok()) return j.status();
      std::swap(remaining_[k - 1], remaining_[*j]);
    }
  }
  const InputRegime card = remaining_.back();
  remaining_.pop_back();
  return card;
}

}  // namespace kjudge::runner
