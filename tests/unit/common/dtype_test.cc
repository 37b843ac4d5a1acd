#include "common/dtype.h"

#include <gtest/gtest.h>

#include <string>

namespace kjudge {
namespace {

TEST(DTypeTest, RoundTripsEveryName) {
  for (const char* name : {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "i8", "fp8_e4m3",
                           "fp8_e5m2"}) {
    absl::StatusOr<DType> dtype = ParseDType(name);
    ASSERT_TRUE(dtype.ok()) << name << ": " << dtype.status();
    EXPECT_EQ(DTypeName(*dtype), name);
  }
}

TEST(DTypeTest, SizesAndKinds) {
  EXPECT_EQ(DTypeSize(DType::kF32), 4u);
  EXPECT_EQ(DTypeSize(DType::kBF16), 2u);
  EXPECT_EQ(DTypeSize(DType::kF64), 8u);
  EXPECT_EQ(DTypeSize(DType::kI64), 8u);
  EXPECT_EQ(DTypeSize(DType::kFP8E4M3), 1u);
  EXPECT_TRUE(DTypeIsFloat(DType::kF16));
  EXPECT_TRUE(DTypeIsFloat(DType::kFP8E5M2));
  EXPECT_FALSE(DTypeIsFloat(DType::kI32));
  EXPECT_FALSE(DTypeIsFloat(DType::kU8));
}

TEST(DTypeTest, CudaNames) {
  EXPECT_EQ(DTypeCudaName(DType::kF32), "float");
  EXPECT_EQ(DTypeCudaName(DType::kF16), "__half");
  EXPECT_EQ(DTypeCudaName(DType::kBF16), "__nv_bfloat16");
  EXPECT_EQ(DTypeCudaName(DType::kFP8E4M3), "__nv_fp8_e4m3");
}

TEST(DTypeTest, UnknownNameListsAcceptedSet) {
  absl::StatusOr<DType> dtype = ParseDType("float32");
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(dtype.status().message());
  EXPECT_NE(message.find("'float32'"), std::string::npos) << message;
  EXPECT_NE(message.find("f32, f16, bf16"), std::string::npos) << message;
  EXPECT_NE(message.find("fp8_e5m2"), std::string::npos) << message;
}

}  // namespace
}  // namespace kjudge
