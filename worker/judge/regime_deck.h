// The judge's secret choice of input regimes (issue 26 point 2; common/input_regime.h).
//
// InputSecret: everything that determines one input set besides the spec and the shape: its
// ChaCha key and its regime. Both are drawn by the judge from the OS CSPRNG right before the
// set is generated and revealed only with the verdict (JobResult.input_keys).
//
// DrawRegime(): one regime uniformly from a problem's drawable set (test shapes, the bench
// warm-up set). RegimeDeck: the timed samples' regimes, a secret random permutation of the
// timed set (TimedRegimes) dealt one card per sample and reshuffled when empty, so every timed
// regime is timed and checked within the first |set| samples of a bench shape, and a kernel cannot
// tell which card comes next from anything it sees (nothing in the deck comes from the job's
// seed, the keys or any input).
//
// Timed or not (issue 26, sparsity): a kernel may test for zero inputs and skip work; that is
// legitimate while its outputs stay correct, but "zeros" (half the elements exactly 0) is the
// one regime that gives a correct kernel less work to do, and the bench sets are otherwise
// dense. So "zeros" is never dealt to a timed sample (TimedRegimes: its times would let a
// kernel win by being fast only on zero-heavy sets); it is checked at the bench shape instead
// by the re-check after the timed samples, which draws among the untimed regimes when the
// problem has any (RecheckRegime), as well as on the test shapes and the warm-up set (DrawRegime
// over the whole set). Every other regime is timed and checked as before.
//
// Contract: randomness comes only from getrandom(2) (SecretKey::Draw); a failure to draw is an
// error, never a fallback. Choices are exactly uniform (rejection sampling, no modulo bias).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/input_regime.h"
#include "worker/gpu/secret_key.h"

namespace kjudge::runner {

struct InputSecret {
  SecretKey key;
  InputRegime regime = InputRegime::kDeclared;
  bool operator==(const InputSecret&) const = default;
};

// For failure details, revealed with the verdict: "" for kDeclared, else
// ", inputs in regime 'large'".
std::string RegimeNote(InputRegime regime);

// A secret uniform integer in [0, n) (n >= 1), from the OS CSPRNG.
absl::StatusOr<uint32_t> SecretUniform(uint32_t n);

// A secret uniform choice among `regimes` (non-empty: ProblemSpec::DrawableRegimes()).
absl::StatusOr<InputRegime> DrawRegime(const std::vector<InputRegime>& regimes);

// Whether a timed sample may be drawn in `regime`: every regime but kZeros.
bool TimedRegime(InputRegime regime);
// The regimes of `drawable` that TimedRegime admits, in order (the timed samples' deck; it keeps
// kDeclared, so it is never empty when `drawable` holds kDeclared, as DrawableRegimes does).
std::vector<InputRegime> TimedRegimes(const std::vector<InputRegime>& drawable);
// The re-check's regime at a bench shape: a secret uniform choice among the regimes of
// `drawable` that are never timed, so that each is checked there; among all of `drawable` when
// every one is timed.
absl::StatusOr<InputRegime> RecheckRegime(const std::vector<InputRegime>& drawable);

class RegimeDeck {
 public:
  // The deck of `regimes` (non-empty; ProblemSpec::DrawableRegimes()); shuffled on first use.
  explicit RegimeDeck(std::vector<InputRegime> regimes) : regimes_(std::move(regimes)) {}

  // The next card: a fresh secret permutation of the set is shuffled when the last one is
  // dealt out, so cards k * |set| .. (k + 1) * |set| - 1 hold every regime exactly once.
  absl::StatusOr<InputRegime> Next();

 private:
  std::vector<InputRegime> regimes_;
  // The current permutation's undealt cards, dealt from the back.
  std::vector<InputRegime> remaining_;
};

}  // namespace kjudge::runner
