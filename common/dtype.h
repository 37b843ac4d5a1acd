// DType: the element types a problem's tensors and scratch buffers may have.
//
// Contract: ParseDType accepts the short names used in problem specs and launch plans
// ("f32", "f16", "bf16", "f64", "i32", "i64", "u8", "i8", "fp8_e4m3", "fp8_e5m2") and returns
// an error naming the accepted set otherwise. DTypeSize is the element size in bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kjudge {

enum class DType { kF32, kF16, kBF16, kF64, kI32, kI64, kU8, kI8, kFP8E4M3, kFP8E5M2 };

absl::StatusOr<DType> ParseDType(std::string_view name);
std::string_view DTypeName(DType dtype);
size_t DTypeSize(DType dtype);
bool DTypeIsFloat(DType dtype);
// The C++ spelling inside CUDA device code ("float", "__half", "__nv_bfloat16", ...).
std::string_view DTypeCudaName(DType dtype);

}  // namespace kjudge
