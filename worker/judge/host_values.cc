#include "worker/judge/host_values.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "worker/gpu/runner_error.h"
#include "worker/gpu/secret_key.h"

namespace kjudge::runner {
namespace {

template <typename T>
T Load(std::span<const std::byte> bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

// A minifloat with `exp_bits` exponent bits and `man_bits` mantissa bits (IEEE-like, with
// subnormals). `ieee_specials`: max exponent means Inf/NaN (f16, e5m2); otherwise (e4m3) only
// the all-ones pattern is NaN.
double DecodeMinifloat(uint32_t bits, int exp_bits, int man_bits, bool ieee_specials) {
  const uint32_t sign = (bits >> (exp_bits + man_bits)) & 1U;
  const uint32_t exp = (bits >> man_bits) & ((1U << exp_bits) - 1U);
  const uint32_t man = bits & ((1U << man_bits) - 1U);
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t max_exp = (1U << exp_bits) - 1U;
  double value = 0.0;
  if (ieee_specials && exp == max_exp) {
    value = man == 0 ? std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::quiet_NaN();
  } else if (!ieee_specials && exp == max_exp && man == (1U << man_bits) - 1U) {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    value = std::ldexp(static_cast<double>(man), 1 - bias - man_bits);
  } else {
    value = std::ldexp(static_cast<double>(man | (1U << man_bits)),
                       static_cast<int>(exp) - bias - man_bits);
  }
  return sign != 0U ? -value : value;
}

}  // namespace

double HalfToDouble(uint16_t bits) { return DecodeMinifloat(bits, 5, 10, true); }

double BFloat16ToDouble(uint16_t bits) {
  const uint32_t word = static_cast<uint32_t>(bits) << 16;
  float f = 0.0F;
  std::memcpy(&f, &word, sizeof(f));
  return f;
}

double Fp8E4M3ToDouble(uint8_t bits) { return DecodeMinifloat(bits, 4, 3, false); }
double Fp8E5M2ToDouble(uint8_t bits) { return DecodeMinifloat(bits, 5, 2, true); }

PoisonPattern FixedPoison(DType dtype) {
  const size_t size = DTypeSize(dtype);
  const uint64_t byte = DTypeIsFloat(dtype) ? 0xFFU : 0x7FU;
  uint64_t bits = 0;
  for (size_t b = 0; b < size; ++b) bits |= byte << (8U * b);
  return {dtype, bits};
}

namespace {

// A NaN of a format with `exp_bits` exponent and `man_bits` mantissa bits (IEEE-like: all-ones
// exponent, nonzero mantissa), sign and payload from `r`.
uint64_t RandomNaN(uint64_t r, int exp_bits, int man_bits) {
  const uint64_t man_mask = (uint64_t{1} << man_bits) - 1U;
  uint64_t man = r & man_mask;
  if (man == 0) man = 1;  // a zero mantissa would be an infinity
  const uint64_t exp = ((uint64_t{1} << exp_bits) - 1U) << man_bits;
  const uint64_t sign = ((r >> 63U) & 1U) << (exp_bits + man_bits);
  return sign | exp | man;
}

}  // namespace

PoisonPattern PoisonFromBits(DType dtype, uint64_t r) {
  switch (dtype) {
    case DType::kF32: return {dtype, RandomNaN(r, 8, 23)};
    case DType::kF64: return {dtype, RandomNaN(r, 11, 52)};
    case DType::kF16: return {dtype, RandomNaN(r, 5, 10)};
    case DType::kBF16: return {dtype, RandomNaN(r, 8, 7)};
    case DType::kFP8E5M2: return {dtype, RandomNaN(r, 5, 2)};
    case DType::kFP8E4M3: return {dtype, 0x7FU | (((r >> 63U) & 1U) << 7U)};  // S.1111.111 only
    case DType::kI32: return {dtype, (r & 0xFFFFFFFFU) | 0x80000000U};
    case DType::kI64: return {dtype, r | (uint64_t{1} << 63U)};
    case DType::kI8:
    case DType::kU8: return FixedPoison(dtype);
  }
  return FixedPoison(dtype);
}

absl::StatusOr<PoisonPattern> DrawPoison(DType dtype) {
  KJ_ASSIGN_OR_RETURN(SecretKey fresh, SecretKey::Draw());  // getrandom(2), never weaker
  return PoisonFromBits(dtype, (uint64_t{fresh.words[1]} << 32U) | fresh.words[0]);
}

std::vector<double> DecodeToDouble(DType dtype, std::span<const std::byte> bytes, int64_t count) {
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    double v = 0.0;
    switch (dtype) {
      case DType::kF32: v = Load<float>(bytes, i); break;
      case DType::kF64: v = Load<double>(bytes, i); break;
      case DType::kF16: v = HalfToDouble(Load<uint16_t>(bytes, i)); break;
      case DType::kBF16: v = BFloat16ToDouble(Load<uint16_t>(bytes, i)); break;
      case DType::kI32: v = Load<int32_t>(bytes, i); break;
      case DType::kI64: v = static_cast<double>(Load<int64_t>(bytes, i)); break;
      case DType::kI8: v = Load<int8_t>(bytes, i); break;
      case DType::kU8: v = Load<uint8_t>(bytes, i); break;
      case DType::kFP8E4M3: v = Fp8E4M3ToDouble(Load<uint8_t>(bytes, i)); break;
      case DType::kFP8E5M2: v = Fp8E5M2ToDouble(Load<uint8_t>(bytes, i)); break;
    }
    out[static_cast<size_t>(i)] = v;
  }
  return out;
}

std::vector<bool> PoisonMask(const PoisonPattern& poison, std::span<const std::byte> bytes,
                             int64_t count) {
  const size_t size = DTypeSize(poison.dtype);
  std::vector<bool> mask(static_cast<size_t>(count));
  for (size_t i = 0; i < mask.size(); ++i) {
    bool all = true;
    for (size_t b = 0; b < size && all; ++b) {
      all = bytes[i * size + b] == static_cast<std::byte>((poison.bits >> (8U * b)) & 0xFFU);
    }
    mask[i] = all;
  }
  return mask;
}

}  // namespace kjudge::runner
