// HostValues: raw device bytes of a tensor, copied to the host, decoded to doubles; and the
// poison pattern the runner fills output buffers with.
//
// Poison pattern (chosen so no ordinary result carries it): every byte 0xFF for floating-point
// dtypes (a NaN in f32/f16/bf16/f64 and both fp8 formats), every byte 0x7F for integer dtypes
// (i32 = 0x7F7F7F7F, i64 = 0x7F7F...7F, i8/u8 = 127). An output element is "still poisoned"
// when all of its bytes equal the pattern.
//
// Contract: DecodeToDouble() decodes `count` little-endian elements of `dtype` from `bytes`
// (which holds at least count * DTypeSize(dtype) bytes); f16, bf16 and the fp8 formats are
// decoded exactly (no CUDA needed). Pure C++.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/dtype.h"

namespace kjudge::runner {

unsigned char PoisonByte(DType dtype);
std::vector<double> DecodeToDouble(DType dtype, std::span<const std::byte> bytes, int64_t count);
std::vector<bool> PoisonMask(DType dtype, std::span<const std::byte> bytes, int64_t count);

double HalfToDouble(uint16_t bits);
double BFloat16ToDouble(uint16_t bits);
double Fp8E4M3ToDouble(uint8_t bits);
double Fp8E5M2ToDouble(uint8_t bits);

}  // namespace kjudge::runner
