#include "common/dtype.h"

#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/absl_compat.h"

namespace kjudge {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  size_t size;
  bool is_float;
  std::string_view cuda_name;
};

constexpr std::array<DTypeInfo, 10> kDTypes = {{
    {DType::kF32, "f32", 4, true, "float"},
    {DType::kF16, "f16", 2, true, "__half"},
    {DType::kBF16, "bf16", 2, true, "__nv_bfloat16"},
    {DType::kF64, "f64", 8, true, "double"},
    {DType::kI32, "i32", 4, false, "int32_t"},
    {DType::kI64, "i64", 8, false, "int64_t"},
    {DType::kU8, "u8", 1, false, "uint8_t"},
    {DType::kI8, "i8", 1, false, "int8_t"},
    {DType::kFP8E4M3, "fp8_e4m3", 1, true, "__nv_fp8_e4m3"},
    {DType::kFP8E5M2, "fp8_e5m2", 1, true, "__nv_fp8_e5m2"},
}};

const DTypeInfo& Info(DType dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  return kDTypes[0];  // unreachable for valid enum values
}

}  // namespace

absl::StatusOr<DType> ParseDType(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  std::string accepted;
  for (const DTypeInfo& info : kDTypes) {
    absl::StrAppend(&accepted, accepted.empty() ? "" : ", ", ToAbsl(info.name));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", ToAbsl(name), "'; expected one of ", accepted));
}

std::string_view DTypeName(DType dtype) { return Info(dtype).name; }
size_t DTypeSize(DType dtype) { return Info(dtype).size; }
bool DTypeIsFloat(DType dtype) { return Info(dtype).is_float; }
std::string_view DTypeCudaName(DType dtype) { return Info(dtype).cuda_name; }

}  // namespace kjudge
