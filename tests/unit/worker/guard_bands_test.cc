// Guard bands without a GPU: the host pattern, the regions a check covers, and the message an
// out-of-bounds write produces.
#include "worker/gpu/guard_bands.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "worker/gpu/secret_key.h"

namespace kjudge::runner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(GuardBands, GuardSizeKeepsDataAlignedForVectorLoads) {
  EXPECT_EQ(kGuardBytes % 256, 0U);
  EXPECT_GE(kGuardBytes, 256U);
}

SecretKey TestKey(uint32_t first) {
  SecretKey key;
  key.words = {first, 2, 3, 4, 5, 6, 7, 8};
  return key;
}

TEST(GuardBands, PatternIsTheDocumentedKeystreamOfTheAddress) {
  const GuardPattern p(TestKey(12345));
  EXPECT_EQ(p.key(), TestKey(12345));
  const uintptr_t address = 0x7f0000001003;  // unaligned, as an after-guard may start
  const std::vector<std::byte> bytes = p.Bytes(address, kGuardBytes);
  ASSERT_EQ(bytes.size(), kGuardBytes);
  for (size_t j : {size_t{0}, size_t{1}, size_t{4}, size_t{5}, size_t{61}, size_t{1001}, kGuardBytes - 1}) {
    const uint64_t a = address + j;
    const std::array<uint32_t, 16> block =
        ChaChaBlock(TestKey(12345), a / 64, KeyNonce(KeyDomain::kGuards, 0));
    EXPECT_EQ(static_cast<unsigned>(bytes[j]), (block[(a % 64) / 4] >> (8 * (a % 4))) & 0xFFU) << j;
  }
  // A function of the address: any window of it agrees.
  const std::vector<std::byte> tail = p.Bytes(address + 100, 20);
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), bytes.begin() + 100));
}

TEST(GuardBands, PatternVariesPerJobAndPerGuard) {
  // The guard key is a secret of its own (VerdictProtocol draws it fresh), not derived from
  // anything an input set uses: reading guard bytes tells a kernel nothing about its inputs.
  const uintptr_t address = 0x7f0000000000;
  const std::vector<std::byte> a = GuardPattern(TestKey(7)).Bytes(address, kGuardBytes);
  const std::vector<std::byte> b = GuardPattern(TestKey(6)).Bytes(address, kGuardBytes);
  EXPECT_EQ(a, GuardPattern(TestKey(7)).Bytes(address, kGuardBytes));
  EXPECT_NE(a, b);
  // Two guards of one job differ, so copying one guard's bytes into another is still seen.
  EXPECT_NE(a, GuardPattern(TestKey(7)).Bytes(address + 3 * kGuardBytes, kGuardBytes));
  size_t distinct = 0;
  std::vector<bool> seen(256, false);
  for (std::byte x : a) {
    if (!seen[static_cast<size_t>(x)]) ++distinct;
    seen[static_cast<size_t>(x)] = true;
  }
  EXPECT_GT(distinct, 200U);  // a hash, not a repeated byte a kernel could guess
}

// A host array standing in for a guarded allocation: [guard][data][guard].
struct FakeAllocation {
  explicit FakeAllocation(size_t bytes) : memory(bytes + 2 * kGuardBytes) {}
  GuardedBuffer Buffer(std::string label, size_t bytes) const {
    return GuardedBuffer{std::move(label), memory.data() + kGuardBytes, bytes, kGuardBytes};
  }
  std::vector<std::byte> memory;
};

TEST(GuardBands, RegionsAreBeforeTheFirstAndFromTheLastByteOn) {
  const FakeAllocation y(4000);
  const std::vector<GuardedBuffer> buffers = {
      y.Buffer("output 'Y' (1000 x f32)", 4000),
      GuardedBuffer{"unguarded", nullptr, 16, 0},
  };
  const std::vector<GuardRegion> regions = GuardRegionsOf(buffers);
  ASSERT_EQ(regions.size(), 2U);
  EXPECT_EQ(regions[0].ptr, y.memory.data());
  EXPECT_EQ(regions[0].bytes, kGuardBytes);
  EXPECT_EQ(regions[1].ptr, y.memory.data() + kGuardBytes + 4000);  // exactly at byte n
  EXPECT_EQ(regions[1].bytes, kGuardBytes);
}

TEST(GuardBands, NoDamageNoMessage) {
  const FakeAllocation y(4000);
  EXPECT_EQ(DescribeGuardDamage({y.Buffer("output 'Y' (1000 x f32)", 4000)}, {{}, {}}), "");
}

TEST(GuardBands, OnePastTheEnd) {
  const FakeAllocation y(4000);
  const std::string msg =
      DescribeGuardDamage({y.Buffer("output 'Y' (1000 x f32)", 4000)}, {{}, {4, 0, 3}});
  EXPECT_EQ(msg,
            "out-of-bounds write: 4 bytes after the end of output 'Y' (1000 x f32) were "
            "modified (first at +0, last at +3 bytes past the end)");
}

TEST(GuardBands, OneBeforeTheStart) {
  const FakeAllocation y(4000);
  const GuardDamage before{4, static_cast<int64_t>(kGuardBytes) - 4,
                           static_cast<int64_t>(kGuardBytes) - 1};
  const std::string msg =
      DescribeGuardDamage({y.Buffer("output 'Y' (1000 x f32)", 4000)}, {before, {}});
  EXPECT_EQ(msg,
            "out-of-bounds write: 4 bytes before the start of output 'Y' (1000 x f32) were "
            "modified (from -4 to -1 bytes from the start)");
}

TEST(GuardBands, DamageAtTheFarEdgeSaysItMayReachFurther) {
  const FakeAllocation s(64);
  const auto last = static_cast<int64_t>(kGuardBytes) - 1;
  const std::string after =
      DescribeGuardDamage({s.Buffer("scratch 'partial' (16 x f32)", 64)}, {{}, {1, last, last}});
  EXPECT_THAT(after, HasSubstr("1 byte after the end of scratch 'partial' (16 x f32)"));
  EXPECT_THAT(after, HasSubstr("far edge of the 4096-byte guard"));
  const std::string before =
      DescribeGuardDamage({s.Buffer("scratch 'partial' (16 x f32)", 64)}, {{8, 0, 7}, {}});
  EXPECT_THAT(before, HasSubstr("8 bytes before the start of scratch 'partial'"));
  EXPECT_THAT(before, HasSubstr("from -4096 to -4089 bytes from the start"));
  EXPECT_THAT(before, HasSubstr("far edge"));
  const std::string near =
      DescribeGuardDamage({s.Buffer("scratch 'partial' (16 x f32)", 64)}, {{}, {4, 0, 3}});
  EXPECT_THAT(near, Not(HasSubstr("far edge")));
}

TEST(GuardBands, DamageIsMatchedToTheRightBufferAndSide) {
  const FakeAllocation x(400);
  const FakeAllocation y(400);
  // Unguarded buffers take no regions, so the damage list skips them.
  const std::vector<GuardedBuffer> buffers = {
      x.Buffer("input 'X' (100 x f32)", 400),
      GuardedBuffer{"unguarded", nullptr, 16, 0},
      y.Buffer("output 'Y' (100 x f32)", 400),
  };
  const std::string msg = DescribeGuardDamage(buffers, {{}, {}, {}, {2, 5, 6}});
  EXPECT_THAT(msg, HasSubstr("2 bytes after the end of output 'Y' (100 x f32)"));
  EXPECT_THAT(msg, HasSubstr("first at +5, last at +6"));
  EXPECT_THAT(msg, Not(HasSubstr("input 'X'")));
}

TEST(GuardBands, ManyDamagedGuardsAreSummarised) {
  std::vector<FakeAllocation> allocations;
  std::vector<GuardedBuffer> buffers;
  std::vector<GuardDamage> damage;
  allocations.reserve(3);
  for (int i = 0; i < 3; ++i) allocations.emplace_back(16);
  for (int i = 0; i < 3; ++i) {
    buffers.push_back(allocations[i].Buffer("t" + std::to_string(i), 16));
    damage.push_back({1, static_cast<int64_t>(kGuardBytes) - 1,
                      static_cast<int64_t>(kGuardBytes) - 1});
    damage.push_back({1, 0, 0});
  }
  const std::string msg = DescribeGuardDamage(buffers, damage);
  EXPECT_THAT(msg, HasSubstr("before the start of t0"));
  EXPECT_THAT(msg, HasSubstr("after the end of t0"));
  EXPECT_THAT(msg, HasSubstr("before the start of t1"));
  EXPECT_THAT(msg, Not(HasSubstr("after the end of t1")));
  EXPECT_THAT(msg, HasSubstr("and 3 more modified guards"));
}

}  // namespace
}  // namespace kjudge::runner
