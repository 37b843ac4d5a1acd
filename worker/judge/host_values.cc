#include "worker/judge/host_values.h"

#include <cmath>
#include <cstring>
#include <limits>

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

unsigned char PoisonByte(DType dtype) { return DTypeIsFloat(dtype) ? 0xFF : 0x7F; }

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

std::vector<bool> PoisonMask(DType dtype, std::span<const std::byte> bytes, int64_t count) {
  const size_t size = DTypeSize(dtype);
  const auto poison = static_cast<std::byte>(PoisonByte(dtype));
  std::vector<bool> mask(static_cast<size_t>(count));
  for (size_t i = 0; i < mask.size(); ++i) {
    bool all = true;
    for (size_t b = 0; b < size && all; ++b) all = bytes[i * size + b] == poison;
    mask[i] = all;
  }
  return mask;
}

}  // namespace kjudge::runner
