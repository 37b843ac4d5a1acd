#include "worker/judge/host_values.h"

#include <cmath>
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

TEST(HostValues, PoisonPatternIsNaNForFloatsAndDetected) {
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kFP8E4M3,
                  DType::kFP8E5M2}) {
    const size_t size = DTypeSize(d);
    std::vector<std::byte> bytes(2 * size, std::byte{PoisonByte(d)});
    bytes[size] = std::byte{0};  // element 1 written (partially)
    const std::vector<double> values = DecodeToDouble(d, bytes, 2);
    EXPECT_TRUE(std::isnan(values[0])) << DTypeName(d);
    const std::vector<bool> mask = PoisonMask(d, bytes, 2);
    EXPECT_TRUE(mask[0]) << DTypeName(d);
    EXPECT_FALSE(mask[1]) << DTypeName(d);
  }
}

TEST(HostValues, IntegerPoisonIs0x7F) {
  std::vector<std::byte> bytes(8, std::byte{0x7F});
  EXPECT_EQ(PoisonByte(DType::kI32), 0x7F);
  EXPECT_EQ(DecodeToDouble(DType::kI32, bytes, 2)[0], 2139062143.0);
  EXPECT_TRUE(PoisonMask(DType::kI32, bytes, 2)[1]);
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
