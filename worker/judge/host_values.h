// HostValues: raw device bytes of a tensor, copied to the host, decoded to doubles; and the
// poison patterns the runner fills output buffers with.
//
// Poison (issue 26: "poison values use their own keys"): before every run that must write an
// output, each output tensor of the input set is filled with one element bit pattern, drawn
// afresh for that tensor and that set from the OS CSPRNG (DrawPoison), so no kernel can know
// it in advance or write it on purpose; an output element is "still poisoned" (unwritten) when
// its bytes equal the tensor's current pattern. The pattern is never an ordinary result:
//   * float dtypes: a NaN with a random sign and a random nonzero payload (f32: 2^24 - 2
//     patterns, f64: 2^53 - 2, f16: 2^11 - 2, bf16: 2^8 - 2, fp8 e5m2: 6; fp8 e4m3 has only the
//     two NaNs S.1111.111, so only the sign is secret there);
//   * i32 / i64: a random value with the top bit set (negative: never a valid index or count);
//   * i8 / u8: the fixed byte 0x7F (127). Every byte is a valid 1-byte value, so no pattern can
//     be secret and unrepresentable at once; a kernel that writes 127 where a 1-byte output
//     belongs is counted as unwritten (UNWRITTEN_OUTPUT), never as correct.
// FixedPoison() is the pattern of a set that was never poisoned with a drawn one: all bytes
// 0xFF for floats (a NaN), 0x7F for integers (the pre-issue-26 patterns; still the pattern for
// 1-byte integers).
//
// Contract: DecodeToDouble() decodes `count` little-endian elements of `dtype` from `bytes`
// (which holds at least count * DTypeSize(dtype) bytes); f16, bf16 and the fp8 formats are
// decoded exactly (no CUDA needed). PoisonFromBits() maps 64 random bits to the dtype's
// pattern (pure, so tests can pin it); DrawPoison() feeds it getrandom(2) bits and fails only
// when the OS has no randomness. PoisonMask() marks the elements whose bytes equal `poison`.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dtype.h"

namespace kjudge::runner {

// One output tensor's poison: its dtype and the element's bit pattern in the low
// DTypeSize(dtype) bytes of `bits` (little-endian, the rest zero).
struct PoisonPattern {
  DType dtype = DType::kF32;
  uint64_t bits = 0;
  bool operator==(const PoisonPattern&) const = default;
};

PoisonPattern FixedPoison(DType dtype);
PoisonPattern PoisonFromBits(DType dtype, uint64_t random_bits);
absl::StatusOr<PoisonPattern> DrawPoison(DType dtype);

std::vector<double> DecodeToDouble(DType dtype, std::span<const std::byte> bytes, int64_t count);
std::vector<bool> PoisonMask(const PoisonPattern& poison, std::span<const std::byte> bytes,
                             int64_t count);

double HalfToDouble(uint16_t bits);
double BFloat16ToDouble(uint16_t bits);
double Fp8E4M3ToDouble(uint8_t bits);
double Fp8E5M2ToDouble(uint8_t bits);

}  // namespace kjudge::runner
