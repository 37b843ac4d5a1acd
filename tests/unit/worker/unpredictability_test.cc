// Issue 30 point 2: secrecy tested as what it promises, not as "values differ". A candidate sees
// the keystream words of its sample's inputs; each test runs a known inversion on them and fails
// if it recovers the key or predicts the next words or the next sample's key. A control shows
// each attack works on the weakness it targets (so the test can fail). CPU only, < 1 s.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "worker/gpu/secret_key.h"

namespace kjudge::runner {
namespace {

using Block = std::array<uint32_t, 16>;

void QuarterRound(Block& s, int a, int b, int c, int d) {
  s[a] += s[b]; s[d] = std::rotl(s[d] ^ s[a], 16);
  s[c] += s[d]; s[b] = std::rotl(s[b] ^ s[c], 12);
  s[a] += s[b]; s[d] = std::rotl(s[d] ^ s[a], 8);
  s[c] += s[d]; s[b] = std::rotl(s[b] ^ s[c], 7);
}

void InverseQuarterRound(Block& s, int a, int b, int c, int d) {
  s[b] = std::rotr(s[b], 7) ^ s[c]; s[c] -= s[d];
  s[d] = std::rotr(s[d], 8) ^ s[a]; s[a] -= s[b];
  s[b] = std::rotr(s[b], 12) ^ s[c]; s[c] -= s[d];
  s[d] = std::rotr(s[d], 16) ^ s[a]; s[a] -= s[b];
}

constexpr int kColumns[4][4] = {{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}};
constexpr int kDiagonals[4][4] = {{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}};

Block Permute(Block s, int rounds) {
  for (int r = 0; r < rounds; r += 2) {
    for (const auto& q : kColumns) QuarterRound(s, q[0], q[1], q[2], q[3]);
    for (const auto& q : kDiagonals) QuarterRound(s, q[0], q[1], q[2], q[3]);
  }
  return s;
}

Block InversePermute(Block s, int rounds) {
  for (int r = 0; r < rounds; r += 2) {
    for (int i = 3; i >= 0; --i) {
      const int* q = kDiagonals[i];
      InverseQuarterRound(s, q[0], q[1], q[2], q[3]);
    }
    for (int i = 3; i >= 0; --i) {
      const int* q = kColumns[i];
      InverseQuarterRound(s, q[0], q[1], q[2], q[3]);
    }
  }
  return s;
}

// The state secret_key.h documents: constants, key, 64-bit counter, 64-bit nonce.
Block InitialState(const SecretKey& key, uint64_t counter, uint64_t nonce) {
  Block s{0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; ++i) s[4 + i] = key.words[i];
  s[12] = static_cast<uint32_t>(counter);
  s[13] = static_cast<uint32_t>(counter >> 32U);
  s[14] = static_cast<uint32_t>(nonce);
  s[15] = static_cast<uint32_t>(nonce >> 32U);
  return s;
}

SecretKey Draw() {
  absl::StatusOr<SecretKey> key = SecretKey::Draw();
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : SecretKey{};
}

// Without the final addition of the input state, ChaCha is a permutation anyone can run
// backwards: the key falls out of one block. With it (as ChaChaBlock must), it does not.
TEST(Unpredictability, OneBlockDoesNotGiveBackItsKey) {
  const SecretKey key = Draw();
  const uint64_t nonce = KeyNonce(KeyDomain::kInputs, 3);
  const Block state = InitialState(key, 0, nonce);
  const Block seen = ChaChaBlock(key, 0, nonce);
  // Control: the rounds here are ChaChaBlock's (output = rounds(state) + state), and inverting
  // them recovers the key from a block that lacks the addition.
  Block permuted = Permute(state, kChaChaRounds);
  Block expected = permuted;
  for (int i = 0; i < 16; ++i) expected[i] += state[i];
  ASSERT_EQ(seen, expected) << "the keystream is not the documented ChaCha layout";
  const Block inverted_control = InversePermute(permuted, kChaChaRounds);
  ASSERT_TRUE(std::equal(key.words.begin(), key.words.end(), inverted_control.begin() + 4));
  // The attack on what a candidate sees: run the rounds backwards, also after subtracting the
  // words it knows (constants, counter, nonce).
  Block known_removed = seen;
  for (int i : {0, 1, 2, 3, 12, 13, 14, 15}) known_removed[i] -= state[i];
  for (const Block& attempt :
       {InversePermute(seen, kChaChaRounds), InversePermute(known_removed, kChaChaRounds)}) {
    EXPECT_FALSE(std::equal(key.words.begin(), key.words.end(), attempt.begin() + 4));
  }
}

uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

uint64_t InverseXorShift(uint64_t y, unsigned shift) {
  uint64_t x = y;
  for (unsigned done = shift; done < 64; done += shift) x = y ^ (x >> shift);
  return x;
}

// SplitMix64's output function is a bijection: each output gives back its state.
uint64_t SplitMix64Unmix(uint64_t z) {
  z = InverseXorShift(z, 31);
  z *= 0x319642b2d24d8ec3ULL;  // inverse of 0x94d049bb133111eb mod 2^64
  z = InverseXorShift(z, 27);
  z *= 0x96de1b173f119089ULL;  // inverse of 0xbf58476d1ce4e5b9 mod 2^64
  return InverseXorShift(z, 30);
}

// The words of a sample as 64-bit values, in stream order.
std::vector<uint64_t> Words64(const SecretKey& key, uint64_t nonce, int blocks) {
  std::vector<uint64_t> out;
  for (int b = 0; b < blocks; ++b) {
    const Block block = ChaChaBlock(key, static_cast<uint64_t>(b), nonce);
    for (int i = 0; i < 16; i += 2) out.push_back((uint64_t{block[i + 1]} << 32U) | block[i]);
  }
  return out;
}

// Predicts value i+1 from values 0..i as a SplitMix64 stream (state += gamma, gamma learnt from
// two states) or as a 64-bit LCG with a well-known multiplier (increment learnt).
int Predicted(const std::vector<uint64_t>& v) {
  int hits = 0;
  for (size_t i = 2; i + 1 < v.size(); ++i) {
    const uint64_t s0 = SplitMix64Unmix(v[i - 1]), s1 = SplitMix64Unmix(v[i]);
    if (SplitMix64Mix(s1 + (s1 - s0)) == v[i + 1]) ++hits;
    for (uint64_t a : {6364136223846793005ULL, 2862933555777941757ULL, 3935559000370003845ULL}) {
      const uint64_t c = v[i] - a * v[i - 1];
      if (a * v[i] + c == v[i + 1]) ++hits;
    }
  }
  return hits;
}

TEST(Unpredictability, NoWeakGeneratorPredictsTheNextValues) {
  // Control: the attacks predict the generators they target.
  std::vector<uint64_t> splitmix, lcg;
  uint64_t s = 0x1234, x = 99;
  for (int i = 0; i < 64; ++i) {
    splitmix.push_back(SplitMix64Mix(s += 0x9e3779b97f4a7c15ULL));
    lcg.push_back(x = x * 6364136223846793005ULL + 1442695040888963407ULL);
  }
  ASSERT_GE(Predicted(splitmix), 60);
  ASSERT_GE(Predicted(lcg), 60);
  const SecretKey key = Draw();
  EXPECT_EQ(Predicted(Words64(key, KeyNonce(KeyDomain::kInputs, 0), 8)), 0);
}

// Sample k+1 gets a fresh key: not the same key further along its stream, nor a key that the
// sample k key or stream determines (a counter step, a SplitMix64 step, the stream's next words).
TEST(Unpredictability, TheNextSampleIsNotPredictedFromThisOne) {
  const SecretKey k = Draw();
  const SecretKey next = Draw();
  const uint64_t nonce = KeyNonce(KeyDomain::kInputs, 0);
  const Block next_first = ChaChaBlock(next, 0, nonce);
  for (uint64_t counter = 0; counter < 64; ++counter) {
    for (uint64_t n : {nonce, nonce + 1, KeyNonce(KeyDomain::kGuards, 0)}) {
      EXPECT_NE(ChaChaBlock(k, counter, n), next_first);
    }
  }
  const std::vector<uint64_t> seen = Words64(k, nonce, 4);
  std::vector<uint32_t> guesses;
  for (uint64_t w : seen) {
    guesses.push_back(static_cast<uint32_t>(w));
    guesses.push_back(static_cast<uint32_t>(w >> 32U));
  }
  for (int i = 0; i < 8; ++i) {
    guesses.push_back(k.words[i] + 1);
    guesses.push_back(static_cast<uint32_t>(SplitMix64Mix(k.words[i] + 0x9e3779b97f4a7c15ULL)));
  }
  int matching = 0;
  for (uint32_t word : next.words) {
    for (uint32_t guess : guesses) matching += word == guess ? 1 : 0;
  }
  EXPECT_EQ(matching, 0);
  // And the key bits differ like independent draws (mean 128 of 256; 6 sigma is 48).
  int differing = 0;
  for (int i = 0; i < 8; ++i) differing += std::popcount(k.words[i] ^ next.words[i]);
  EXPECT_GT(differing, 128 - 48);
  EXPECT_LT(differing, 128 + 48);
}

}  // namespace
}  // namespace kjudge::runner
