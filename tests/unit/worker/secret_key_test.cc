// The judge's secret keys and their keystream, without a GPU: ChaCha against RFC 8439's block
// test vector (the round function the device twin kj_chacha copies), the 12-round stream the
// judge uses, and draws from the OS CSPRNG. The device twin is held to the same bytes on a GPU
// (test_worker_gpu: guard bands written by the host, checked by kj_guard_check).
#include "worker/gpu/secret_key.h"

#include <array>
#include <cstdint>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace kjudge::runner {
namespace {

SecretKey RfcKey() {  // 00 01 02 ... 1f, little-endian words
  SecretKey key;
  for (uint32_t i = 0; i < 8; ++i) {
    key.words[i] = (4 * i) | ((4 * i + 1) << 8U) | ((4 * i + 2) << 16U) | ((4 * i + 3) << 24U);
  }
  return key;
}

TEST(SecretKey, ChaCha20MatchesRfc8439BlockVector) {
  // RFC 8439 2.3.2: block count 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00. In the original
  // layout kjudge uses (64-bit counter in words 12-13, 64-bit nonce in 14-15) that state is
  // counter = 0x09000000'00000001, nonce = 0x4a000000.
  const std::array<uint32_t, 16> out =
      ChaChaBlock(RfcKey(), (uint64_t{0x09000000} << 32U) | 1U, 0x4a000000U, 20);
  const std::array<uint32_t, 16> expected = {
      0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
      0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
  EXPECT_EQ(out, expected);
}

TEST(SecretKey, TheJudgesStreamIsTwelveRoundsAndSeparatesDomainsAndBlocks) {
  EXPECT_EQ(kChaChaRounds, 12);
  const SecretKey key = RfcKey();
  const auto inputs = ChaChaBlock(key, 0, KeyNonce(KeyDomain::kInputs, 0));
  EXPECT_EQ(inputs, ChaChaBlock(key, 0, KeyNonce(KeyDomain::kInputs, 0), 12));
  EXPECT_NE(inputs, ChaChaBlock(key, 0, KeyNonce(KeyDomain::kInputs, 0), 20));
  EXPECT_NE(inputs, ChaChaBlock(key, 0, KeyNonce(KeyDomain::kGuards, 0)));
  EXPECT_NE(inputs, ChaChaBlock(key, 0, KeyNonce(KeyDomain::kInputs, 1)));  // another tensor
  EXPECT_NE(inputs, ChaChaBlock(key, 1, KeyNonce(KeyDomain::kInputs, 0)));  // the next block
  EXPECT_EQ(KeyNonce(KeyDomain::kInputs, 7), (uint64_t{1} << 32U) | 7U);  // as kj_fill builds it
  EXPECT_EQ(KeyNonce(KeyDomain::kGuards, 0), uint64_t{2} << 32U);         // as kj_guard_check
  // One bit of key changes about half of the output bits.
  SecretKey flipped = key;
  flipped.words[3] ^= 1U;
  const auto other = ChaChaBlock(flipped, 0, KeyNonce(KeyDomain::kInputs, 0));
  int differing = 0;
  for (size_t i = 0; i < 16; ++i) differing += __builtin_popcount(inputs[i] ^ other[i]);
  EXPECT_GT(differing, 200);
  EXPECT_LT(differing, 312);
}

TEST(SecretKey, DrawsAreFreshAndHexIsTheKeyBytesInOrder) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<SecretKey> key = SecretKey::Draw();
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_TRUE(seen.insert(key->Hex()).second);
  }
  EXPECT_EQ(RfcKey().Hex(), "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
}

}  // namespace
}  // namespace kjudge::runner
