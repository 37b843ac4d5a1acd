#include "worker/judge/host_values.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace kjudge::runner {
namespace {

TEST(HostValues, HalfDecoding) {
  EXPECT_EQ(HalfToDouble(0x3C00), 1.0);
  EXPECT_EQ(HalfToDouble(0xC000), -2.0);
  EXPECT_EQ(HalfToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(HalfToDouble(0x7C00)));
  EXPECT_TRUE(std::isnan(HalfToDouble(0xFFFF)));
}

TEST(HostValues, BFloat16Decoding) {
  EXPECT_EQ(BFloat16ToDouble(0x3F80), 1.0);
  EXPECT_EQ(BFloat16ToDouble(0xC040), -3.0);
  EXPECT_TRUE(std::isnan(BFloat16ToDouble(0xFFFF)));
}

TEST(HostValues, Fp8Decoding) {
  EXPECT_EQ(Fp8E4M3ToDouble(0x38), 1.0);
  EXPECT_EQ(Fp8E4M3ToDouble(0x7E), 448.0);  // max finite e4m3
  EXPECT_TRUE(std::isnan(Fp8E4M3ToDouble(0xFF)));
  EXPECT_EQ(Fp8E4M3ToDouble(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(Fp8E5M2ToDouble(0x3C), 1.0);
  EXPECT_EQ(Fp8E5M2ToDouble(0x7B), 57344.0);
  EXPECT_TRUE(std::isinf(Fp8E5M2ToDouble(0x7C)));
  EXPECT_TRUE(std::isnan(Fp8E5M2ToDouble(0xFF)));
}

// Little-endian bytes of `count` elements of `poison`.
std::vector<std::byte> Filled(const PoisonPattern& poison, int64_t count) {
  const size_t size = DTypeSize(poison.dtype);
  std::vector<std::byte> bytes(static_cast<size_t>(count) * size);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::byte>((poison.bits >> (8U * (i % size))) & 0xFFU);
  }
  return bytes;
}

const DType kAllDTypes[] = {DType::kF32,     DType::kF64, DType::kF16, DType::kBF16, DType::kI32,
                            DType::kI64,     DType::kI8,  DType::kU8,  DType::kFP8E4M3,
                            DType::kFP8E5M2};

TEST(HostValues, FixedPoisonIsNaNForFloatsAnd0x7FForIntegers) {
  for (DType d : kAllDTypes) {
    const PoisonPattern p = FixedPoison(d);
    std::vector<std::byte> bytes = Filled(p, 2);
    const auto fill = static_cast<std::byte>(DTypeIsFloat(d) ? 0xFFU : 0x7FU);
    for (std::byte b : bytes) EXPECT_EQ(b, fill) << DTypeName(d);
    bytes[DTypeSize(d)] = std::byte{0};  // element 1 written (partially)
    if (DTypeIsFloat(d)) {
      EXPECT_TRUE(std::isnan(DecodeToDouble(d, bytes, 2)[0])) << DTypeName(d);
    }
    const std::vector<bool> mask = PoisonMask(p, bytes, 2);
    EXPECT_TRUE(mask[0]) << DTypeName(d);
    EXPECT_FALSE(mask[1]) << DTypeName(d);
  }
  EXPECT_EQ(DecodeToDouble(DType::kI32, Filled(FixedPoison(DType::kI32), 1), 1)[0], 2139062143.0);
}

// Every drawn pattern is a NaN (floats) or a negative integer (i32/i64), whatever the bits.
TEST(HostValues, DrawnPoisonIsNeverAnOrdinaryValue) {
  const uint64_t samples[] = {0, ~uint64_t{0}, 1, uint64_t{1} << 63U, 0x0123456789ABCDEFULL,
                              0x8000000000000000ULL, 0x7FFFFFFF00000000ULL};
  for (DType d : kAllDTypes) {
    for (uint64_t r : samples) {
      const PoisonPattern p = PoisonFromBits(d, r);
      EXPECT_EQ(p.dtype, d);
      if (DTypeSize(d) < 8) {
        EXPECT_EQ(p.bits >> (8U * DTypeSize(d)), 0U) << DTypeName(d);
      }
      const double v = DecodeToDouble(d, Filled(p, 1), 1)[0];
      if (DTypeIsFloat(d)) {
        EXPECT_TRUE(std::isnan(v)) << DTypeName(d) << " " << r;
      } else if (d == DType::kI32 || d == DType::kI64) {
        EXPECT_LT(v, 0.0) << DTypeName(d) << " " << r;
      } else {
        EXPECT_EQ(p, FixedPoison(d)) << "1-byte integers keep the documented 0x7F";
      }
    }
  }
}

// The payload and sign are secret: different random bits give different patterns, and the
// draw from getrandom(2) does not repeat.
TEST(HostValues, DrawnPoisonDependsOnTheRandomBits) {
  EXPECT_NE(PoisonFromBits(DType::kF32, 5), PoisonFromBits(DType::kF32, 6));
  EXPECT_NE(PoisonFromBits(DType::kF32, 5), PoisonFromBits(DType::kF32, 5 | (uint64_t{1} << 63U)));
  EXPECT_NE(PoisonFromBits(DType::kI64, 5), PoisonFromBits(DType::kI64, 6));
  for (DType d : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    absl::StatusOr<PoisonPattern> a = DrawPoison(d);
    absl::StatusOr<PoisonPattern> b = DrawPoison(d);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(*a, *b) << DTypeName(d) << ": two draws collided (probability < 2^-23)";
    EXPECT_NE(*a, FixedPoison(d)) << DTypeName(d);
  }
}

// The same output bytes are unwritten under the pattern they were filled with, and written
// under any other pattern (so a kernel cannot make elements "unwritten" without knowing it).
TEST(HostValues, TheSameBytesAreUnwrittenOnlyUnderTheirOwnPattern) {
  for (DType d : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kI64,
                  DType::kFP8E5M2}) {
    const PoisonPattern mine = PoisonFromBits(d, 0x0123456789ABCDEFULL);
    const PoisonPattern other = PoisonFromBits(d, 0x0123456789ABCDEEULL);
    ASSERT_NE(mine, other) << DTypeName(d);
    std::vector<std::byte> bytes = Filled(mine, 3);
    std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(DTypeSize(d)), DTypeSize(d),
                std::byte{0});  // element 1 written
    EXPECT_EQ(PoisonMask(mine, bytes, 3), (std::vector<bool>{true, false, true})) << DTypeName(d);
    EXPECT_EQ(PoisonMask(other, bytes, 3), (std::vector<bool>{false, false, false})) << DTypeName(d);
    EXPECT_EQ(PoisonMask(FixedPoison(d), bytes, 3), (std::vector<bool>{false, false, false}))
        << DTypeName(d);
  }
}

TEST(HostValues, DecodesF32AndIntegers) {
  const float f[] = {1.5F, -0.25F};
  std::vector<std::byte> bytes(sizeof(f));
  std::memcpy(bytes.data(), f, sizeof(f));
  EXPECT_EQ(DecodeToDouble(DType::kF32, bytes, 2), (std::vector<double>{1.5, -0.25}));
  const int32_t i[] = {-7, 9};
  std::memcpy(bytes.data(), i, sizeof(i));
  EXPECT_EQ(DecodeToDouble(DType::kI32, bytes, 2), (std::vector<double>{-7.0, 9.0}));
}

}  // namespace
}  // namespace kjudge::runner
