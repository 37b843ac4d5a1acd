// SecretKey and KeyStream: the judge's secrets for everything a candidate must not predict.
//
// Every input set (a test shape, a bench input set, each timed sample, the re-check, a
// baseline's inputs) and the guard canaries of a job get their own 256-bit key drawn from the
// OS CSPRNG (getrandom(2)) just before use. No key is derived from another or from the job's
// seed, so seeing one set (or recovering its key) says nothing about any other set.
//
// The values are ChaCha12 keystream (D. J. Bernstein's ChaCha with 12 rounds, as Rust's
// StdRng; the best published attacks reach 7 rounds): 64-byte block number `counter` under
// (key, nonce), the original layout (constants, key, 64-bit counter, 64-bit nonce). Outputs
// reveal nothing practical about the key, so a kernel cannot rebuild the rest of its inputs
// from a few of them cheaper than by reading them, let alone the next sample's.
// The device twin lives in the judge's utility kernels (worker/judge/device_utilities.cc,
// kj_chacha); tests hold both to the same vectors (RFC 8439's, with 20 rounds).
//
// Contract: SecretKey::Draw() fails only when the OS has no randomness to give (never
// falls back to a weaker source). ChaChaBlock() is a pure function.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace kjudge::runner {

// Rounds of the keystream everywhere in kjudge (inputs, guards): one rule.
inline constexpr int kChaChaRounds = 12;

// What a key's stream is for: the high word of the 64-bit nonce, so two uses of one key never
// share a block (the low word is the tensor's index for inputs).
enum class KeyDomain : uint32_t { kInputs = 1, kGuards = 2 };

struct SecretKey {
  std::array<uint32_t, 8> words{};

  // 256 fresh bits from getrandom(2).
  static absl::StatusOr<SecretKey> Draw();
  // 64 lowercase hex digits (words little-endian, as the key bytes): what a result reports
  // after its verdict so an input set can be regenerated (`kjudge reproduce`).
  std::string Hex() const;
  bool operator==(const SecretKey&) const = default;
};

// The 64-bit nonce of (domain, index).
constexpr uint64_t KeyNonce(KeyDomain domain, uint32_t index) {
  return (uint64_t{static_cast<uint32_t>(domain)} << 32U) | index;
}

// Block `counter` of ChaCha with `rounds` rounds (even) under (key, nonce): 16 words.
std::array<uint32_t, 16> ChaChaBlock(const SecretKey& key, uint64_t counter, uint64_t nonce,
                                     int rounds = kChaChaRounds);

}  // namespace kjudge::runner
