// Input regimes on the GPU (issue 26 point 2; worker/judge/device_utilities.h, RNG): each
// regime's fill is the declared draw bent exactly as documented, element by element, with the
// zero bit taken from the host twin of the keystream (runner::ChaChaBlock); integers and
// scalable = false inits are left as declared. Skipped visibly without a GPU.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "common/input_regime.h"
#include "common/problem_spec.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/secret_key.h"
#include "worker/judge/cubin_cache.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/gpu_context.h"

namespace kjudge::runner {
namespace {

bool HaveGpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

struct RegimeEnv {
  CubinCache cache{""};
  std::optional<Stream> stream;
  std::optional<DeviceUtilities> utilities;
  static RegimeEnv& Get() {
    static RegimeEnv* env = [] {
      auto* e = new RegimeEnv;
      const GpuContext gpu = DetectGpu(RunnerOptions{});
      e->stream.emplace(*Stream::Create());
      e->utilities.emplace(*DeviceUtilities::Create(gpu.info.arch(), e->cache));
      return e;
    }();
    return *env;
  }
};

SecretKey TestKey() {
  SecretKey key;
  key.words = {0x12345678U, 0x6b6a7564U, 7, 1, 2, 3, 4, 5};
  return key;
}

constexpr int64_t kCount = 100003;  // not a multiple of a tile
constexpr uint32_t kTensor = 2;

template <typename T>
std::vector<T> Fill(DType dtype, const InitSpec& init, InputRegime regime) {
  RegimeEnv& env = RegimeEnv::Get();
  auto buffer = *DeviceBuffer::Allocate(kCount * sizeof(T), "regime test");
  EXPECT_TRUE(env.utilities
                  ->FillRandom(buffer.get(), dtype, kCount, TestKey(), kTensor, init,
                               env.stream->get(), regime)
                  .ok());
  EXPECT_EQ(cudaStreamSynchronize(env.stream->get()), cudaSuccess);
  std::vector<T> host(kCount);
  EXPECT_EQ(cudaMemcpy(host.data(), buffer.get(), kCount * sizeof(T), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return host;
}

// The zero bit of element e: bit 0 of keystream word w[e % 16] of block e / 16 (single
// precision) or w[2 * (e % 8)] of block e / 8 (double precision).
bool ZeroBit(int64_t e, bool float_math) {
  const uint64_t nonce = KeyNonce(KeyDomain::kInputs, kTensor);
  const int per = float_math ? 16 : 8;
  const auto w = ChaChaBlock(TestKey(), static_cast<uint64_t>(e / per), nonce);
  const size_t j = static_cast<size_t>(e % per);
  return (w[float_math ? j : 2 * j] & 1U) != 0;
}

// The documented bend of a declared value v in arithmetic R.
template <typename R>
R Bent(R v, InputRegime regime, R sigma, bool zero_bit) {
  switch (regime) {
    case InputRegime::kDeclared: return v;
    case InputRegime::kOffset: return v + R(32) * sigma;
    case InputRegime::kLarge: return v * R(100);
    case InputRegime::kTies: return (sigma * R(0.5)) * std::rint(v / (sigma * R(0.5)));
    case InputRegime::kZeros: return zero_bit ? R(0) : v;
    case InputRegime::kPositive: return std::fabs(v);
    case InputRegime::kNegative: return -std::fabs(v);
  }
  return v;
}

template <typename T>
void ExpectEveryRegimeBendsTheDraw(DType dtype, const InitSpec& init, double sigma) {
  const bool float_math = sizeof(T) == 4;
  const std::vector<T> declared = Fill<T>(dtype, init, InputRegime::kDeclared);
  for (InputRegime regime : kListableRegimes) {
    SCOPED_TRACE(RegimeName(regime));
    const std::vector<T> got = Fill<T>(dtype, init, regime);
    int64_t wrong = 0, zeros = 0;
    for (int64_t e = 0; e < kCount; ++e) {
      const T want = Bent<T>(declared[e], regime, static_cast<T>(sigma), ZeroBit(e, float_math));
      if (!(got[e] == want)) {  // exact (finite values; +0 and -0 alike)
        if (wrong++ < 3) ADD_FAILURE() << "element " << e << ": " << got[e] << ", want " << want;
      }
      zeros += got[e] == 0 ? 1 : 0;
    }
    EXPECT_EQ(wrong, 0);
    if (regime == InputRegime::kZeros) {
      EXPECT_NEAR(static_cast<double>(zeros) / kCount, 0.5, 0.01);
    }
  }
}

TEST(GpuRegimes, NormalF32AndF64) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device: GPU regime tests skipped";
  InitSpec init;  // N(0.5, 2)
  init.a = 0.5;
  init.b = 2.0;
  ExpectEveryRegimeBendsTheDraw<float>(DType::kF32, init, 2.0);
  ExpectEveryRegimeBendsTheDraw<double>(DType::kF64, init, 2.0);
}

TEST(GpuRegimes, UniformUsesItsStd) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device: GPU regime tests skipped";
  InitSpec init;
  init.dist = InitSpec::Dist::kUniform;
  init.a = -1.0;
  init.b = 3.0;
  ExpectEveryRegimeBendsTheDraw<float>(DType::kF32, init, 4.0 / std::sqrt(12.0));
  ExpectEveryRegimeBendsTheDraw<double>(DType::kF64, init, 4.0 / std::sqrt(12.0));
}

TEST(GpuRegimes, IntegersAndUnscalableInitsStayDeclared) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device: GPU regime tests skipped";
  InitSpec ints;
  ints.dist = InitSpec::Dist::kUniform;
  ints.a = 0;
  ints.b = 1000;
  const std::vector<int> declared = Fill<int>(DType::kI32, ints, InputRegime::kDeclared);
  InitSpec fixed;
  fixed.scalable = false;
  const std::vector<float> fixed_declared = Fill<float>(DType::kF32, fixed, InputRegime::kDeclared);
  for (InputRegime regime : kListableRegimes) {
    SCOPED_TRACE(RegimeName(regime));
    EXPECT_EQ(Fill<int>(DType::kI32, ints, regime), declared);
    EXPECT_EQ(Fill<float>(DType::kF32, fixed, regime), fixed_declared);
    EXPECT_EQ(EffectiveRegime(regime, DType::kI32, ints), InputRegime::kDeclared);
    EXPECT_EQ(EffectiveRegime(regime, DType::kF32, fixed), InputRegime::kDeclared);
    EXPECT_EQ(EffectiveRegime(regime, DType::kBF16, InitSpec{}), regime);
  }
}

}  // namespace
}  // namespace kjudge::runner
