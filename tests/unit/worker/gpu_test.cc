// Runner tests that need a GPU. Without one every test is skipped with a visible message.
#include <filesystem>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "proto/proto_json.h"
#include "tests/unit/worker/runner_spawn.h"
#include "tests/unit/worker/test_problem.h"
#include "common/problem_spec.h"
#include "worker/judge/ceilings.h"
#include "worker/judge/device_tensors.h"
#include "worker/judge/verdict_protocol.h"

namespace kjudge::runner {
namespace {

using ::testing::HasSubstr;

bool HaveGpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

#define SKIP_WITHOUT_GPU()                                                         \
  do {                                                                             \
    if (!HaveGpu()) GTEST_SKIP() << "no CUDA device: GPU runner tests skipped";    \
  } while (false)

// The state a runner process holds across jobs, built once for the whole binary.
struct Env {
  GpuContext gpu;
  CubinCache cache{""};
  std::optional<Stream> stream;
  std::optional<DeviceUtilities> utilities;
  std::optional<L2Flusher> flusher;
  std::optional<BaselineLibraries> libraries;
  std::optional<CandidateLauncher> candidates;

  // kjudge-candidate: $KJUDGE_CANDIDATE, else beside this test binary (the bundle's bin/),
  // else beside the runner it was built with.
  static std::string CandidatePath() {
    if (const char* env = std::getenv("KJUDGE_CANDIDATE")) return env;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec && std::filesystem::exists(self.parent_path() / "kjudge-candidate")) {
      return (self.parent_path() / "kjudge-candidate").string();
    }
    return (std::filesystem::path(KJUDGE_RUNNER_PATH).parent_path() / "kjudge-candidate").string();
  }

  static Env& Get() {
    static Env* env = [] {
      auto* e = new Env;
      e->gpu = DetectGpu(RunnerOptions{});
      e->stream.emplace(*Stream::Create());
      e->utilities.emplace(*DeviceUtilities::Create(e->gpu.info.arch(), e->cache));
      e->flusher.emplace(*L2Flusher::Create(static_cast<size_t>(e->gpu.props.l2CacheSize)));
      e->libraries.emplace(*BaselineLibraries::Create());
      e->candidates.emplace(CandidatePath(), 0, std::chrono::milliseconds(15000));
      return e;
    }();
    return *env;
  }

  RunnerEnv Runner() {
    RunnerEnv r;
    r.gpu = &gpu;
    r.cache = &cache;
    r.utilities = &*utilities;
    r.flusher = &*flusher;
    r.libraries = &*libraries;
    r.stream = stream->get();
    r.candidates = &*candidates;
    r.timing.criteria.time_budget_ms = 200;
    return r;
  }
};

v1::RunnerResult Judge(const v1::RunSpec& spec, bool* sticky = nullptr) {
  VerdictProtocol protocol(Env::Get().Runner(), spec, [](v1::Stage, int, int) {});
  v1::RunnerResult result = protocol.Run();
  if (sticky != nullptr) *sticky = protocol.sticky();
  return result;
}

}  // namespace

v1::RunnerResult JudgeForOracleTest(const v1::RunSpec& spec, oracle::OracleKeeper* keeper,
                                    oracle::OracleKeeper* compile_keeper, bool cross_check) {
  RunnerEnv env = Env::Get().Runner();
  env.oracle = keeper;
  env.compile_oracle = compile_keeper;
  env.oracle_cross_check = cross_check;
  VerdictProtocol protocol(env, spec, [](v1::Stage, int, int) {});
  return protocol.Run();
}

namespace {

// A fixed key for tests that need repeatable draws (the judge draws every key fresh).
SecretKey KeyOf(uint32_t n) {
  SecretKey key;
  key.words = {n, 0x6b6a7564U, n ^ 0x5a5a5a5aU, 1, 2, 3, 4, 5};
  return key;
}

v1::RunSpec WithKernel(const std::string& source, const std::string& plan) {
  v1::RunSpec spec = testing::ReluRunSpec(source, false);
  spec.set_launch_plan(plan);
  return spec;
}

TEST(GpuUtilities, GenerationIsDeterministicAndComparedByteForByte) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  const int64_t n = 1 << 20;
  auto a = *DeviceBuffer::Allocate(n * 4, "a");
  auto b = *DeviceBuffer::Allocate(n * 4, "b");
  const InitSpec normal;
  cudaStream_t s = env.stream->get();
  ASSERT_TRUE(env.utilities->FillRandom(a.get(), DType::kF32, n, KeyOf(7), 0, normal, s).ok());
  ASSERT_TRUE(env.utilities->FillRandom(b.get(), DType::kF32, n, KeyOf(7), 0, normal, s).ok());
  EXPECT_EQ(*env.utilities->DifferingBytes(a.get(), b.get(), a.size(), s), 0u);
  ASSERT_EQ(cudaMemset(static_cast<char*>(b.get()) + 12345, 0x5A, 1), cudaSuccess);
  EXPECT_EQ(*env.utilities->DifferingBytes(a.get(), b.get(), a.size(), s), 1u);
  ASSERT_TRUE(env.utilities->FillRandom(b.get(), DType::kF32, n, KeyOf(8), 0, normal, s).ok());
  EXPECT_GT(*env.utilities->DifferingBytes(a.get(), b.get(), a.size(), s), uint64_t{n});

  std::vector<float> host(n);
  ASSERT_TRUE(env.utilities->FillRandom(a.get(), DType::kF32, n, KeyOf(7), 0, normal, s).ok());
  ASSERT_EQ(cudaMemcpy(host.data(), a.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  double sum = 0;
  double sq = 0;
  for (float v : host) {
    sum += v;
    sq += double{v} * v;
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std::sqrt(sq / n - mean * mean), 1.0, 0.01);
}

// The device generator is the documented function of (key, tensor, element): values computed
// on the host from runner::ChaChaBlock (the twin of kj_chacha) match the device's, for the
// float path (16 values a block, cos then sin of each pair) and the double path (8 a block).
TEST(GpuUtilities, GenerationIsTheDocumentedChaChaStream) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  cudaStream_t s = env.stream->get();
  const int64_t n = 100003;  // not a multiple of a tile
  const SecretKey key = KeyOf(4242);
  const uint32_t tensor = 3;
  auto f = *DeviceBuffer::Allocate(n * 4, "f32");
  auto d = *DeviceBuffer::Allocate(n * 8, "f64");
  const InitSpec normal;  // N(0, 1)
  ASSERT_TRUE(env.utilities->FillRandom(f.get(), DType::kF32, n, key, tensor, normal, s).ok());
  ASSERT_TRUE(env.utilities->FillRandom(d.get(), DType::kF64, n, key, tensor, normal, s).ok());
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  std::vector<float> hf(n);
  std::vector<double> hd(n);
  ASSERT_EQ(cudaMemcpy(hf.data(), f.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(hd.data(), d.get(), n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
  const uint64_t nonce = KeyNonce(KeyDomain::kInputs, tensor);
  for (int64_t e : {int64_t{0}, int64_t{1}, int64_t{15}, int64_t{16}, int64_t{4095}, int64_t{4096},
                    int64_t{77777}, n - 1}) {
    SCOPED_TRACE(e);
    const auto bf = ChaChaBlock(key, static_cast<uint64_t>(e / 16), nonce);
    const size_t p = static_cast<size_t>(e % 16) / 2;
    const double u1 = ((bf[2 * p] >> 8U) + 1.0) / 16777216.0;
    const double u2 = (bf[2 * p + 1] >> 8U) / 16777216.0;
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double want_f = r * (e % 2 == 0 ? std::cos(2 * M_PI * u2) : std::sin(2 * M_PI * u2));
    EXPECT_NEAR(hf[e], want_f, 1e-5 * (1.0 + std::fabs(want_f)));
    const auto bd = ChaChaBlock(key, static_cast<uint64_t>(e / 8), nonce);
    const size_t q = static_cast<size_t>(e % 8) / 2;
    const uint64_t h1 = (uint64_t{bd[4 * q + 1]} << 32U) | bd[4 * q];
    const uint64_t h2 = (uint64_t{bd[4 * q + 3]} << 32U) | bd[4 * q + 2];
    const double v1 = ((h1 >> 11U) + 1.0) / 9007199254740992.0;
    const double v2 = (h2 >> 11U) / 9007199254740992.0;
    const double rd = std::sqrt(-2.0 * std::log(v1));
    const double want_d = rd * (e % 2 == 0 ? std::cos(2 * M_PI * v2) : std::sin(2 * M_PI * v2));
    EXPECT_NEAR(hd[e], want_d, 1e-12 * (1.0 + std::fabs(want_d)));
  }
}

// Input transforms (InitSpec::Transform) after the draw: the structure holds exactly, the
// values are those of the plain draw where the transform keeps them, and a second generation
// gives the same bytes (deterministic from the seed).
TEST(GpuUtilities, InputTransformsShapeTheDraw) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  constexpr int64_t kMats = 3;
  constexpr int64_t kSide = 37;  // rows == cols: every transform applies
  constexpr int64_t n = kMats * kSide * kSide;
  auto plain = *DeviceBuffer::Allocate(n * 4, "plain");
  auto x = *DeviceBuffer::Allocate(n * 4, "x");
  auto again = *DeviceBuffer::Allocate(n * 4, "again");
  cudaStream_t s = env.stream->get();
  InitSpec init;
  init.dist = InitSpec::Dist::kUniform;  // [-1, 1): both signs for "sign"
  init.a = -1.0;
  ASSERT_TRUE(env.utilities->FillRandom(plain.get(), DType::kF32, n, KeyOf(5), 2, init, s).ok());
  std::vector<float> p(n);
  // The runner's stream does not synchronise with cudaMemcpy's (the legacy default stream).
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(p.data(), plain.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  using T = InitSpec::Transform;
  for (T t : {T::kSoftmax, T::kTril, T::kTriu, T::kSymmetric, T::kSign}) {
    SCOPED_TRACE(std::string(TransformName(t)));
    for (auto* buffer : {&x, &again}) {
      ASSERT_TRUE(env.utilities->FillRandom(buffer->get(), DType::kF32, n, KeyOf(5), 2, init, s).ok());
      ASSERT_TRUE(env.utilities->ApplyTransform(buffer->get(), DType::kF32, n, kSide, kSide, t, s)
                      .ok());
    }
    EXPECT_EQ(*env.utilities->DifferingBytes(x.get(), again.get(), x.size(), s), 0u);
    std::vector<float> v(n);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(v.data(), x.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t m = 0; m < kMats; ++m) {
      for (int64_t r = 0; r < kSide; ++r) {
        double row_sum = 0.0;
        double row_exp = 0.0;
        for (int64_t c = 0; c < kSide; ++c) row_exp += std::exp(double{p[(m * kSide + r) * kSide + c]});
        for (int64_t c = 0; c < kSide; ++c) {
          const int64_t i = (m * kSide + r) * kSide + c;
          const int64_t j = (m * kSide + c) * kSide + r;
          row_sum += v[i];
          if (t == T::kSoftmax) {
            ASSERT_GT(v[i], 0.0f);
            ASSERT_NEAR(v[i], std::exp(double{p[i]}) / row_exp, 1e-6);
          }
          if (t == T::kTril) {
            ASSERT_EQ(v[i], c > r ? 0.0f : p[i]) << r << "," << c;
          }
          if (t == T::kTriu) {
            ASSERT_EQ(v[i], c < r ? 0.0f : p[i]) << r << "," << c;
          }
          if (t == T::kSign) {
            ASSERT_EQ(v[i], p[i] >= 0.0f ? 1.0f : -1.0f);
          }
          if (t == T::kSymmetric) {
            ASSERT_EQ(v[i], v[j]) << r << "," << c;
            ASSERT_NEAR(v[i], 0.5 * (double{p[i]} + p[j]), 1e-7);
          }
        }
        if (t == T::kSoftmax) {
          ASSERT_NEAR(row_sum, 1.0, 1e-5);
        }
      }
    }
  }
  // A softmax over many long rows (several rows per block of the grid-stride loop).
  const int64_t rows = 20000;
  const int64_t cols = 1000;
  auto big = *DeviceBuffer::Allocate(rows * cols * 2, "big");
  ASSERT_TRUE(env.utilities->FillRandom(big.get(), DType::kF16, rows * cols, KeyOf(9), 0, init, s).ok());
  ASSERT_TRUE(env.utilities
                  ->ApplyTransform(big.get(), DType::kF16, rows * cols, 1, cols, T::kSoftmax, s)
                  .ok());
  std::vector<__half> h(rows * cols);
  ASSERT_EQ(cudaMemcpy(h.data(), big.get(), h.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int64_t r = 0; r < rows; r += 997) {
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += __half2float(h[r * cols + c]);
    ASSERT_NEAR(sum, 1.0, 1e-3) << "row " << r;
  }
  // A shape the parser rejects is an internal error, not a silent no-op.
  EXPECT_FALSE(env.utilities->ApplyTransform(x.get(), DType::kF32, n, kSide, kSide + 1,
                                             T::kSymmetric, s).ok());
  EXPECT_FALSE(env.utilities->ApplyTransform(x.get(), DType::kI32, n, kSide, kSide, T::kTril, s)
                   .ok());
}

// The judge's path: TensorSet::GenerateInputs applies a spec's init.transform with the
// tensor's own trailing dims (a 2 x 5 x 7 batch of non-square matrices here).
TEST(GpuUtilities, GenerateInputsAppliesTheSpecTransform) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  std::string text = testing::kReluSpec;
  for (auto [from, to] : {std::pair<std::string, std::string>{
                              R"(shape = ["M", "N"]
role = "in"
init = { dist = "normal", mean = 0.0, std = 1.0 })",
                              R"(shape = [2, "M", "N"]
role = "in"
init = { dist = "uniform", low = 0.0, high = 1.0, transform = "tril" })"},
                          {R"(shape = ["M", "N"]
role = "out")", R"(shape = [2, "M", "N"]
role = "out")"}}) {
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  absl::StatusOr<ProblemSpec> spec = ParseProblemSpec(text, "tril/problem.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  Shape shape;
  shape.sizes = {{"M", 5}, {"N", 7}};
  const GuardPattern guards(KeyOf(77));
  absl::StatusOr<TensorSet> set = TensorSet::Allocate(*spec, shape, guards);
  ASSERT_TRUE(set.ok()) << set.status();
  cudaStream_t s = env.stream->get();
  ASSERT_TRUE(set->GenerateInputs(*env.utilities, KeyOf(3), s).ok());
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  std::vector<float> x(2 * 5 * 7);
  ASSERT_EQ(cudaMemcpy(x.data(), set->pointers().at("X"), x.size() * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  int nonzero_below = 0;
  for (int m = 0; m < 2; ++m) {
    for (int r = 0; r < 5; ++r) {
      for (int c = 0; c < 7; ++c) {
        const float v = x[(m * 5 + r) * 7 + c];
        if (c > r) {
          EXPECT_EQ(v, 0.0f) << m << "," << r << "," << c;
        }
        if (c <= r && v != 0.0f) ++nonzero_below;
      }
    }
  }
  EXPECT_EQ(nonzero_below, 2 * 15);  // uniform [0, 1) draws are almost never exactly 0
}

TEST(GpuUtilities, CompareStatisticsMatchTheHost) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  const int64_t n = (1 << 20) + 7;  // not a multiple of the block
  auto out = *DeviceBuffer::Allocate(n * 4, "out");
  auto ref = *DeviceBuffer::Allocate(n * 4, "ref");
  cudaStream_t s = env.stream->get();
  const InitSpec normal;
  ASSERT_TRUE(env.utilities->FillRandom(out.get(), DType::kF32, n, KeyOf(11), 0, normal, s).ok());
  ASSERT_TRUE(env.utilities->FillRandom(ref.get(), DType::kF32, n, KeyOf(12), 0, normal, s).ok());
  // 1000 unwritten (poisoned) elements from 5000: left out of the statistics.
  const PoisonPattern poison = FixedPoison(DType::kF32);
  ASSERT_EQ(cudaMemset(static_cast<float*>(out.get()) + 5000, 0xFF, 1000 * 4), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> host_out(n);
  std::vector<float> host_ref(n);
  ASSERT_EQ(cudaMemcpy(host_out.data(), out.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(host_ref.data(), ref.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<double> a;
  std::vector<double> e;
  for (int64_t i = 0; i < n; ++i) {
    if (i >= 5000 && i < 6000) continue;
    a.push_back(host_out[i]);
    e.push_back(host_ref[i]);
  }
  const DegenerateStats want = SummarizeForDegenerate(a, e);
  absl::StatusOr<DeviceComparison> c =
      env.utilities->Compare(out.get(), ref.get(), DType::kF32, n, 1e-3, 1e-3, poison, s);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->unwritten, 1000);
  EXPECT_EQ(c->nonfinite, 0);
  EXPECT_GT(c->mismatches, n / 2);  // independent data: nearly every element differs
  EXPECT_EQ(c->spread.count, want.count);
  EXPECT_EQ(c->spread.out_min, want.out_min);
  EXPECT_EQ(c->spread.out_max, want.out_max);
  EXPECT_EQ(c->spread.out_max_abs, want.out_max_abs);
  EXPECT_EQ(c->spread.ref_min, want.ref_min);
  EXPECT_EQ(c->spread.ref_max, want.ref_max);
  EXPECT_EQ(c->spread.ref_max_abs, want.ref_max_abs);
  EXPECT_NEAR(c->spread.ref_sum_sq, want.ref_sum_sq, 1e-9 * want.ref_sum_sq);
  EXPECT_EQ(ClassifyDegenerate(c->spread, {1e-3, 1e-3, 1e-3}), DegenerateRule::kNone);

  // A constant output against the varying reference: the device statistics say so.
  ASSERT_EQ(cudaMemset(out.get(), 0, n * 4), cudaSuccess);
  c = env.utilities->Compare(out.get(), ref.get(), DType::kF32, n, 1e-3, 1e-3, poison, s);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->spread.count, n);
  EXPECT_EQ(c->spread.out_min, 0.0);
  EXPECT_EQ(c->spread.out_max, 0.0);
  EXPECT_EQ(ClassifyDegenerate(c->spread, {1e-3, 1e-3, 1e-3}), DegenerateRule::kNearZero);
}

// Keyed poison (issue 26): Poison() fills every element with the drawn pattern, for each
// element size, and Compare() counts exactly the elements that still hold it as unwritten:
// the same bytes are unwritten under their own pattern and written (NaN: non-finite, or an
// integer mismatch) under another one.
TEST(GpuUtilities, PoisonIsTheDrawnPatternAndOnlyItCountsAsUnwritten) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  cudaStream_t s = env.stream->get();
  const int64_t n = 3000;
  for (DType d : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kI64,
                  DType::kU8, DType::kFP8E5M2}) {
    const size_t size = DTypeSize(d);
    auto out = *DeviceBuffer::Allocate(n * size, "out");
    auto ref = *DeviceBuffer::Allocate(n * size, "ref");
    ASSERT_EQ(cudaMemset(ref.get(), 0, n * size), cudaSuccess);
    absl::StatusOr<PoisonPattern> mine = DrawPoison(d);
    ASSERT_TRUE(mine.ok()) << mine.status();
    PoisonPattern other = *mine;
    while (other == *mine && d != DType::kU8) other = *DrawPoison(d);
    ASSERT_TRUE(env.utilities->Poison(out.get(), *mine, n, s).ok());
    // 1000 elements "written" (zero, equal to the reference).
    ASSERT_EQ(cudaMemsetAsync(out.get(), 0, 1000 * size, s), cudaSuccess);
    std::vector<std::byte> host(n * size);
    ASSERT_EQ(cudaMemcpyAsync(host.data(), out.get(), host.size(), cudaMemcpyDeviceToHost, s),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    const std::vector<bool> mask = PoisonMask(*mine, host, n);
    EXPECT_EQ(std::count(mask.begin(), mask.end(), true), n - 1000) << DTypeName(d);
    absl::StatusOr<DeviceComparison> c =
        env.utilities->Compare(out.get(), ref.get(), d, n, 1e-3, 1e-3, *mine, s);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->unwritten, n - 1000) << DTypeName(d);
    if (d == DType::kU8) continue;  // 1-byte integers have one fixed pattern
    c = env.utilities->Compare(out.get(), ref.get(), d, n, 1e-3, 1e-3, other, s);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->unwritten, 0) << DTypeName(d);
    EXPECT_EQ(c->mismatches, n - 1000) << DTypeName(d);
  }
}

// The ReLU problem with a tolerance so loose that a constant or ~0 output passes elementwise
// and in L2: only the degenerate rule catches it.
v1::RunSpec LooseReluSpec(const std::string& source, const std::string& plan) {
  v1::RunSpec spec = WithKernel(source, plan);
  std::string toml = testing::kReluSpec;
  const std::string from = "atol = 1e-6\nrtol = 1e-6\nrel_l2 = 1e-6";
  const size_t at = toml.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "the test problem's [tolerance] changed";
    return spec;
  }
  toml.replace(at, from.size(), "atol = 0.5\nrtol = 1.0\nrel_l2 = 10.0");
  spec.set_spec_toml(toml);
  return spec;
}

TEST(GpuVerdict, DegenerateOutputOnlyAtTheBenchShapeIsCaughtOnTheDevice) {
  SKIP_WITHOUT_GPU();
  const std::string plan = "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);";
  const v1::RunnerResult constant = Judge(LooseReluSpec(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = n > 100000 ? 0.5f : fmaxf(X[i], 0.0f);\n}\n",
      plan));
  EXPECT_EQ(constant.result().verdict(), v1::WRONG_ANSWER) << constant.result().message();
  EXPECT_THAT(constant.result().message(), HasSubstr("degenerate output, every element is 0.5"));
  EXPECT_THAT(constant.result().message(), HasSubstr("Y: timed sample"));
  const v1::RunnerResult zero = Judge(LooseReluSpec(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = (n > 100000 ? 1e-6f : 1.0f) * fmaxf(X[i], 0.0f);\n}\n",
      plan));
  EXPECT_EQ(zero.result().verdict(), v1::WRONG_ANSWER) << zero.result().message();
  EXPECT_THAT(zero.result().message(), HasSubstr("degenerate output, every element is ~0"));
  // The same loose tolerance lets the correct kernel through.
  const v1::RunnerResult correct = Judge(LooseReluSpec(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = fmaxf(X[i], 0.0f);\n}\n",
      plan));
  EXPECT_EQ(correct.result().verdict(), v1::CORRECT) << correct.result().message();
}

TEST(GpuVerdict, CorrectCandidateIsTimedAgainstTheReference) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(testing::ReluRunSpec(testing::kReluCandidate, false));
  EXPECT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
  EXPECT_EQ(r.result().tests_size(), 3);
  ASSERT_EQ(r.result().timings_size(), 1);
  EXPECT_GE(r.result().timings(0).timing().samples(), 1);
  ASSERT_EQ(r.new_baselines_size(), 1);
  EXPECT_EQ(r.new_baselines(0).name(), "reference");
  ASSERT_EQ(r.result().speedups_size(), 1);
  EXPECT_GT(r.result().speedups(0).speedup(), 0.0);
}

TEST(GpuVerdict, CachedBaselinesAreNotRemeasured) {
  SKIP_WITHOUT_GPU();
  v1::RunSpec spec = testing::ReluRunSpec(testing::kReluCandidate, false);
  v1::BaselineTiming* cached = spec.add_cached_baselines();
  cached->set_problem("test/relu");
  cached->set_shape("M=64,N=4096");
  cached->set_name("reference");
  cached->mutable_timing()->set_median_us(1e6);
  const v1::RunnerResult r = Judge(spec);
  EXPECT_EQ(r.result().verdict(), v1::CORRECT);
  EXPECT_EQ(r.new_baselines_size(), 0);
  ASSERT_EQ(r.result().speedups_size(), 1);
  EXPECT_GT(r.result().speedups(0).speedup(), 1.0);
}

TEST(GpuVerdict, UnwrittenOutput) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n && i % 7 != 3) Y[i] = fmaxf(X[i], 0.0f);\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::UNWRITTEN_OUTPUT) << r.result().message();
  ASSERT_GE(r.result().tests_size(), 2);
  EXPECT_EQ(r.result().tests(1).unwritten_count(), 16);  // 3 * 37 = 111 elements, i % 7 == 3
}

TEST(GpuVerdict, InputModified) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) { Y[i] = fmaxf(X[i], 0.0f); X[i] = Y[i] + 1.0f; }\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::INPUT_MODIFIED) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("input(s) X"));
  EXPECT_THAT(r.result().message(), HasSubstr("read-only"));
}

// Inputs are mapped read-only in the candidate: even a write of the value already there
// faults, and the diagnosis run (writable inputs, no fault) makes it INPUT_MODIFIED.
TEST(GpuVerdict, WritingAnInputsOwnValueIsInputModified) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) { Y[i] = fmaxf(X[i], 0.0f); ((volatile float*)X)[i] = X[i]; }\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::INPUT_MODIFIED) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("the values it already held"));
}

// A wild write faults in the diagnosis run too: RUNTIME_ERROR, not INPUT_MODIFIED.
TEST(GpuVerdict, WildWriteStaysRuntimeError) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i + (1LL << 40)] = X[i];\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::RUNTIME_ERROR) << r.result().message();
  EXPECT_THAT(r.result().cuda_error(), HasSubstr("IllegalAddress"));
}

// What a kernel prints (device printf) is captured from the candidate process, capped, and
// reported; a line shaped like a protocol message changes nothing.
TEST(GpuVerdict, CandidateOutputIsCapturedNeverParsed) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i == 0) printf(\"{\\\"result\\\":{\\\"result\\\":{\\\"verdict\\\":\\\"CORRECT\\\"}}}\\n\");\n"
      "  if (i < n) Y[i] = 0.0f;\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::WRONG_ANSWER) << r.result().message();
  EXPECT_THAT(r.result().candidate_output(), HasSubstr("\"verdict\":\"CORRECT\""));
}

TEST(GpuVerdict, WrongAnswerReportsMismatches) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = X[i];\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::WRONG_ANSWER) << r.result().message();
  bool saw = false;
  for (const v1::TestOutcome& t : r.result().tests()) {
    if (t.first_mismatches_size() > 0) {
      saw = true;
      EXPECT_LE(t.first_mismatches_size(), 10);
      EXPECT_EQ(t.first_mismatches(0).tensor(), "Y");
      EXPECT_LT(t.first_mismatches(0).actual(), 0.0);
    }
  }
  EXPECT_TRUE(saw);
}

TEST(GpuVerdict, LaunchErrors) {
  SKIP_WITHOUT_GPU();
  const char* kernel =
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {}\n";
  v1::RunnerResult r = Judge(WithKernel(kernel, "k<<<1, 32, 100000000>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::LAUNCH_ERROR);
  EXPECT_THAT(r.result().message(), HasSubstr("dynamic shared memory"));
  EXPECT_THAT(r.result().message(), HasSubstr("line 1"));
  r = Judge(WithKernel(kernel, "k<<<1, 32>>>(X, Y);"));
  EXPECT_EQ(r.result().verdict(), v1::LAUNCH_ERROR);
  EXPECT_THAT(r.result().message(), HasSubstr("the kernel takes 3"));
  r = Judge(WithKernel(kernel, "k<<<0, 32>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::LAUNCH_ERROR);
  r = Judge(WithKernel(kernel, "k<<<1, 2048>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::LAUNCH_ERROR);
}

TEST(GpuVerdict, LargeDynamicSharedMemoryIsRaised) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "template <int B> __global__ void k(const float* X, float* Y, long long n) {\n"
      "  extern __shared__ float s[];\n"
      "  long long i = blockIdx.x * (long long)B + threadIdx.x;\n"
      "  s[threadIdx.x + 20000] = i < n ? X[i] : 0.0f;\n  __syncthreads();\n"
      "  if (i < n) Y[i] = fmaxf(s[threadIdx.x + 20000], 0.0f);\n}\n",
      "k<256><<<cdiv(M * N, 256), 256, 100000>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
}

TEST(GpuVerdict, ReplayingTimedResultsIsSuspicious) {
  SKIP_WITHOUT_GPU();
  // Correct on the small test shapes; on the bench shape it computes once, then skips work.
  const v1::RunnerResult r = Judge(WithKernel(
      "__device__ int done;\n"
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  if (n > 100000 && done) return;\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = fmaxf(X[i], 0.0f);\n"
      "  if (i == 0 && n > 100000) done = 1;\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::SUSPICIOUS) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("timed sample"));
  EXPECT_EQ(r.new_baselines_size(), 0);
}

TEST(GpuVerdict, TimingRotatesChecksAndReportsPercentiles) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(testing::ReluRunSpec(testing::kReluCandidate, false));
  ASSERT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
  ASSERT_EQ(r.result().timings_size(), 1);
  const v1::Timing& t = r.result().timings(0).timing();
  EXPECT_EQ(t.input_sets(), 1);  // fresh inputs every sample: one set, regenerated each time
  EXPECT_EQ(t.checked_samples(), t.samples() + t.throttled_samples());
  EXPECT_GE(t.p99_us(), t.p95_us());
  EXPECT_GE(t.p95_us(), t.p50_us());
  EXPECT_DOUBLE_EQ(t.p50_us(), t.median_us());
}

TEST(GpuVerdict, CachingByPointerIsCaught) {
  SKIP_WITHOUT_GPU();
  // Computes each (input pointer, size) once, then skips the work. Outputs are poisoned before
  // every timed sample, so the skipped run leaves them unwritten there (SUSPICIOUS); were that
  // check absent, the re-check on new data at the same addresses would find stale values.
  const v1::RunnerResult r = Judge(WithKernel(
      "__device__ const float* seen[8];\n__device__ int nseen;\n"
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  if (n > 100000) { for (int s = 0; s < nseen && s < 8; ++s) if (seen[s] == X) return; }\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = fmaxf(X[i], 0.0f);\n}\n"
      "extern \"C\" __global__ void remember(const float* X, long long n) {\n"
      "  if (n <= 100000) return;\n"
      "  for (int s = 0; s < nseen && s < 8; ++s) if (seen[s] == X) return;\n"
      "  seen[nseen % 8] = X; nseen = nseen + 1;\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);\nremember<<<1, 1>>>(X, M * N);"));
  EXPECT_THAT(r.result().verdict(), ::testing::AnyOf(v1::SUSPICIOUS, v1::WRONG_ANSWER)) << r.result().message();
  EXPECT_THAT(r.result().message(), ::testing::AnyOf(HasSubstr("timed sample"), HasSubstr("previous outputs left in place")));
}

TEST(GpuVerdict, EveryKthLaunchIsCaughtInTheTimedSamples) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "__device__ unsigned calls;\n"
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  if (n > 100000 && calls % 3 != 0) return;\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = fmaxf(X[i], 0.0f);\n}\n"
      "extern \"C\" __global__ void bump(float* Y) { (void)Y; calls = calls + 1; }\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);\nbump<<<1, 1>>>(Y);"));
  EXPECT_EQ(r.result().verdict(), v1::SUSPICIOUS) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("timed sample"));
}

TEST(GpuVerdict, FasterThanThePhysicalFloorIsSuspicious) {
  SKIP_WITHOUT_GPU();
  // Pretend the GPU copies at 1 MB/s: any real time is far under the floor.
  GpuContext slow = Env::Get().gpu;
  slow.info.set_copy_bandwidth_gbs(1e-3);
  RunnerEnv env = Env::Get().Runner();
  env.gpu = &slow;
  VerdictProtocol protocol(env, testing::ReluRunSpec(testing::kReluCandidate, false),
                           [](v1::Stage, int, int) {});
  const v1::RunnerResult r = protocol.Run();
  EXPECT_EQ(r.result().verdict(), v1::SUSPICIOUS) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("physical floor"));
}

TEST(GpuVerdict, SolAndTenfoldLibrarySpeedupFlag) {
  SKIP_WITHOUT_GPU();
  GpuContext measured = Env::Get().gpu;
  measured.info.set_copy_bandwidth_gbs(10000.0);  // a floor well under any real time
  measured.info.set_sgemm_tflops(50.0);
  RunnerEnv env = Env::Get().Runner();
  env.gpu = &measured;
  v1::RunSpec spec = testing::ReluRunSpec(testing::kReluCandidate, false);
  v1::BaselineTiming* lib = spec.add_cached_baselines();
  lib->set_problem("test/relu");
  lib->set_shape("M=64,N=4096");
  lib->set_name("somelib");
  lib->mutable_timing()->set_median_us(1e6);
  VerdictProtocol protocol(env, spec, [](v1::Stage, int, int) {});
  const v1::RunnerResult r = protocol.Run();
  ASSERT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
  EXPECT_GT(r.result().timings(0).timing().sol_percent(), 0.0);
  EXPECT_GT(r.result().timings(0).timing().floor_us(), 0.0);
  bool flagged = false;
  for (const std::string& f : r.result().flags()) flagged |= f.starts_with("speedup_over_10x");
  EXPECT_TRUE(flagged);
}

// A baselines-only job (RunSpec.baselines_only: no source, no plan): no candidate is compiled,
// started or timed; the bench shape's set gets its expected outputs and "reference" is timed
// (floor and SOL% as in a full job). With it cached, nothing is left to measure.
TEST(GpuVerdict, BaselinesOnlyJobTimesTheReferenceWithoutACandidate) {
  SKIP_WITHOUT_GPU();
  v1::RunSpec spec = testing::ReluRunSpec("", false);
  spec.set_baselines_only(true);
  // The test environment measures no ceilings (no floor without them); give it one, as the
  // worker's start-up measurement would.
  GpuContext measured = Env::Get().gpu;
  measured.info.set_copy_bandwidth_gbs(10000.0);
  RunnerEnv env = Env::Get().Runner();
  env.gpu = &measured;
  VerdictProtocol protocol(env, spec, [](v1::Stage, int, int) {});
  const v1::RunnerResult r = protocol.Run();
  ASSERT_EQ(r.result().verdict(), v1::BASELINES_MEASURED) << r.result().message();
  ASSERT_EQ(r.new_baselines_size(), 1) << r.result().message();
  const v1::BaselineTiming& b = r.new_baselines(0);
  EXPECT_EQ(b.name(), "reference");
  EXPECT_EQ(b.shape(), "M=64,N=4096");
  EXPECT_EQ(b.problem(), "test/relu");
  EXPECT_GT(b.timing().median_us(), 0.0);
  EXPECT_GT(b.timing().floor_us(), 0.0);
  EXPECT_FALSE(b.hardware_key().empty());
  EXPECT_THAT(r.result().message(), HasSubstr("measured reference at M=64,N=4096"));
  EXPECT_TRUE(r.result().timings().empty());  // no candidate timings
  EXPECT_TRUE(r.result().tests().empty());    // no test shapes
  EXPECT_TRUE(r.result().speedups().empty());
  EXPECT_EQ(r.result().compile_ms(), 0.0);    // no candidate compiled
  EXPECT_TRUE(r.result().candidate_output().empty());
  EXPECT_FALSE(r.runner_exits());

  *spec.add_cached_baselines() = b;
  VerdictProtocol second(env, spec, [](v1::Stage, int, int) {});
  const v1::RunnerResult again = second.Run();
  EXPECT_EQ(again.result().verdict(), v1::BASELINES_MEASURED) << again.result().message();
  EXPECT_EQ(again.new_baselines_size(), 0);
  EXPECT_THAT(again.result().message(), HasSubstr("nothing to measure"));
}

// A small square SGEMM with a cuBLAS baseline (as level1/1's): a baselines-only job times the
// library baseline, checked against the reference, beside "reference".
TEST(GpuVerdict, BaselinesOnlyJobTimesALibraryBaseline) {
  SKIP_WITHOUT_GPU();
  v1::RunSpec spec;
  spec.set_job_id("baselines-only-gemm");
  spec.set_problem("test/sgemm");
  spec.set_seed(7);
  spec.set_baselines_only(true);
  spec.set_spec_toml(R"(name = "test/sgemm"
level = 1
title = "SGEMM"
description = "C = A @ B"
sizes = ["N"]
test_shapes = [ { N = 7 } ]
bench_shapes = [ { N = 512 } ]

[[tensor]]
name = "A"
dtype = "f32"
shape = ["N", "N"]
role = "in"
init = { dist = "uniform", low = -1.0, high = 1.0 }

[[tensor]]
name = "B"
dtype = "f32"
shape = ["N", "N"]
role = "in"
init = { dist = "uniform", low = -1.0, high = 1.0 }

[[tensor]]
name = "C"
dtype = "f32"
shape = ["N", "N"]
role = "out"

[reference]
source = "reference.cu"
plan = """matmul_ref<<<dim3(cdiv(N, 16), cdiv(N, 16)), dim3(16, 16)>>>(A, B, C, N);"""

[tolerance]
atol = 1e-3
rtol = 1e-4
rel_l2 = 1e-5

[cost]
flops = "2 * N * N * N"
bytes = "12 * N * N"

[[baseline]]
name = "cublas"
kind = "cublas_gemm"
params = { a = "A", b = "B", c = "C", m = "N", n = "N", k = "N" }
)");
  spec.set_reference_source(R"(
extern "C" __global__ void matmul_ref(const float* A, const float* B, float* C, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= N || col >= N) return;
  double acc = 0.0;
  for (int k = 0; k < N; ++k) acc += (double)A[(size_t)row * N + k] * (double)B[(size_t)k * N + col];
  C[(size_t)row * N + col] = (float)acc;
}
)");
  const v1::RunnerResult r = Judge(spec);
  ASSERT_EQ(r.result().verdict(), v1::BASELINES_MEASURED) << r.result().message();
  std::vector<std::string> names;
  for (const v1::BaselineTiming& b : r.new_baselines()) {
    names.push_back(b.name());
    EXPECT_EQ(b.shape(), "N=512");
    EXPECT_GT(b.timing().median_us(), 0.0) << b.name();
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"cublas", "reference"})) << r.result().message();
  EXPECT_TRUE(r.result().timings().empty());
}

TEST(GpuCeilings, MeasuredCeilingsArePlausible) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  absl::StatusOr<Ceilings> c =
      MeasureCeilings(env.stream->get(), env.libraries->cublas(), *env.utilities);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_GT(c->copy_gbs, 50.0);
  EXPECT_GT(c->sgemm_tflops, 1.0);
  // Tensor cores (sm_80 and later) beat FP32 SIMT; 16-bit inputs beat TF32.
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major >= 8) {
    EXPECT_GT(c->tf32_tflops, c->sgemm_tflops);
    EXPECT_GT(c->fp16_tflops, c->tf32_tflops);
    EXPECT_GT(c->bf16_tflops, c->tf32_tflops);
  }
  // f32 problems are held to the faster of SGEMM and TF32.
  EXPECT_EQ(ComputeRateFor(std::vector<DType>{DType::kF32}, *c).tflops,
            std::max(c->sgemm_tflops, c->tf32_tflops));
}

TEST(GpuVerdict, WrongOnlyAtTheBenchShapeIsWrongAnswer) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = (n > 100000 && i == 12345) ? 7.0f + X[i] * X[i] : fmaxf(X[i], 0.0f);\n}\n",
      "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::WRONG_ANSWER) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("first bad flat index 12345"));
}

// A sticky CUDA error happens in the job's candidate process, never in the runner: the
// candidate dies, the runner reports RUNTIME_ERROR and serves the next job with a fresh one.
TEST(GpuRunnerProcess, StickyErrorEndsTheCandidateNotTheRunner) {
  SKIP_WITHOUT_GPU();
  const v1::RunSpec bad = WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  Y[n + 400000000LL] = X[0];\n}\n",
      "k<<<1, 1>>>(X, Y, M * N);");
  const testing::RunOutcome o =
      testing::RunRunner({"--time-budget-ms", "100"},
                         testing::RequestLine(bad) +
                             testing::RequestLine(testing::ReluRunSpec(testing::kReluCandidate,
                                                                       false)));
  EXPECT_EQ(o.exit_status, 0);
  const std::vector<v1::JobResult> results = testing::Results(o);
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[0].verdict(), v1::RUNTIME_ERROR);
  EXPECT_THAT(results[0].cuda_error(), HasSubstr("cudaError"));
  EXPECT_THAT(results[0].message(), HasSubstr("launch 1 of 1 (line 1: k)"));
  EXPECT_THAT(results[0].message(), HasSubstr("M=1,N=1"));
  EXPECT_EQ(results[1].verdict(), v1::CORRECT) << results[1].message();
}

// --measured-gpu: a restarted runner takes over the first runner's measurements, but only
// for the same GPU and software.
v1::GpuInfo HelloGpu(const std::vector<std::string>& args) {
  const testing::RunOutcome o = testing::RunRunner(args, "");
  EXPECT_EQ(o.exit_status, 0);
  if (o.messages.empty() || !o.messages[0].has_hello()) {
    ADD_FAILURE() << "no hello";
    return {};
  }
  return o.messages[0].hello().gpu();
}

TEST(GpuRunnerProcess, RestartedRunnerReusesMeasurementsOfTheSameGpuOnly) {
  SKIP_WITHOUT_GPU();
  const v1::GpuInfo first = HelloGpu({});
  ASSERT_GT(first.copy_bandwidth_gbs(), 0.0);
  if (first.event_overhead_us() <= 0.0) GTEST_SKIP() << "no CUPTI: nothing to reuse";
  v1::GpuInfo sentinel = first;  // recognisable values: reused, not measured again
  sentinel.set_copy_bandwidth_gbs(1234.5);
  sentinel.set_sgemm_tflops(12.5);
  sentinel.set_tf32_tflops(99.5);
  sentinel.set_event_overhead_us(3.25);
  const v1::GpuInfo reused = HelloGpu({"--measured-gpu", ToJson(sentinel)});
  EXPECT_DOUBLE_EQ(reused.copy_bandwidth_gbs(), 1234.5);
  EXPECT_DOUBLE_EQ(reused.sgemm_tflops(), 12.5);
  EXPECT_DOUBLE_EQ(reused.tf32_tflops(), 99.5);
  EXPECT_DOUBLE_EQ(reused.event_overhead_us(), 3.25);

  v1::GpuInfo other = sentinel;  // another GPU's numbers must not be taken over
  other.set_name(first.name() + " (another one)");
  const v1::GpuInfo measured = HelloGpu({"--measured-gpu", ToJson(other)});
  EXPECT_NE(measured.copy_bandwidth_gbs(), 1234.5);
  EXPECT_GT(measured.copy_bandwidth_gbs(), 0.0);
  EXPECT_NE(measured.event_overhead_us(), 3.25);

  const v1::GpuInfo garbage = HelloGpu({"--measured-gpu", "{not json"});
  EXPECT_GT(garbage.copy_bandwidth_gbs(), 0.0);
}

// Guard bands (guard_bands.h): small out-of-bounds writes land in a guard and are reported.

TEST(GpuGuards, CheckFindsModifiedGuardBytesAndNothingElse) {
  SKIP_WITHOUT_GPU();
  Env& env = Env::Get();
  cudaStream_t s = env.stream->get();
  const GuardPattern pattern(KeyOf(0x99aabbccU));
  constexpr size_t kBytes = 1001;  // odd: the after-guard starts unaligned, at byte n
  DeviceBuffer a = *DeviceBuffer::AllocateGuarded(kBytes, "a", pattern);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.get()) % 256, 0U);
  EXPECT_EQ(a.size(), kBytes);
  const std::vector<GuardRegion> regions = GuardRegionsOf({a.Guarded("a")});
  ASSERT_EQ(regions.size(), 2U);
  // Whatever the data holds, fresh guards are intact.
  ASSERT_EQ(cudaMemset(a.get(), 0x5A, kBytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<GuardDamage> d = *env.utilities->CheckGuards(regions, pattern.key(), s);
  ASSERT_EQ(d.size(), 2U);
  EXPECT_EQ(d[0].modified, 0);
  EXPECT_EQ(d[1].modified, 0);
  // The byte right before the start and the byte right after the end, to values the pattern
  // does not hold there.
  auto* data = static_cast<unsigned char*>(a.get());
  const auto flipped = [&pattern](const unsigned char* at) {
    const std::byte want = pattern.Bytes(reinterpret_cast<uintptr_t>(at), 1)[0];
    return static_cast<unsigned char>(static_cast<unsigned char>(want) ^ 0xFFU);
  };
  const unsigned char before = flipped(data - 1);
  const unsigned char after = flipped(data + kBytes);
  ASSERT_EQ(cudaMemcpy(data - 1, &before, 1, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(data + kBytes, &after, 1, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  d = *env.utilities->CheckGuards(regions, pattern.key(), s);
  EXPECT_EQ(d[0].modified, 1);
  EXPECT_EQ(d[0].first, static_cast<int64_t>(kGuardBytes) - 1);
  EXPECT_EQ(d[0].last, static_cast<int64_t>(kGuardBytes) - 1);
  EXPECT_EQ(d[1].modified, 1);
  EXPECT_EQ(d[1].first, 0);
  EXPECT_EQ(d[1].last, 0);
  // Another job's guard key sees (almost) every byte as modified.
  d = *env.utilities->CheckGuards(regions, KeyOf(0x99aabbcdU), s);
  EXPECT_GT(d[0].modified, 4000);
  EXPECT_GT(d[1].modified, 4000);
}

// Flips the 4 bytes of one element next to Y (all 4 differ from the guard afterwards, so the
// message is exact), otherwise a correct ReLU. `where` is an index relative to Y.
std::string FlippingRelu(const std::string& condition, const std::string& where) {
  return "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
         "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
         "  if (i < n) Y[i] = fmaxf(X[i], 0.0f);\n"
         "  if (" + condition + ") {\n"
         "    unsigned* u = reinterpret_cast<unsigned*>(Y) + (" + where + ");\n"
         "    *u = ~*u;\n  }\n}\n";
}

TEST(GpuGuards, WriteOnePastTheEndOfAnOutputIsRuntimeError) {
  SKIP_WITHOUT_GPU();
  bool sticky = true;
  const v1::RunnerResult r = Judge(WithKernel(FlippingRelu("i == n", "n"),
                                              "k<<<cdiv(M * N + 1, 256), 256>>>(X, Y, M * N);"),
                                   &sticky);
  EXPECT_EQ(r.result().verdict(), v1::RUNTIME_ERROR) << r.result().message();
  EXPECT_FALSE(sticky);
  EXPECT_EQ(r.result().cuda_error(), "");
  EXPECT_THAT(r.result().message(),
              HasSubstr("out-of-bounds write: 4 bytes after the end of output 'Y' (1 x f32) "
                        "were modified (first at +0, last at +3 bytes past the end)"));
  EXPECT_THAT(r.result().message(), HasSubstr("test shape M=1,N=1"));
}

TEST(GpuGuards, WriteOneBeforeTheStartOfAnOutputIsRuntimeError) {
  SKIP_WITHOUT_GPU();
  const v1::RunnerResult r = Judge(
      WithKernel(FlippingRelu("i == 0", "-1"), "k<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::RUNTIME_ERROR) << r.result().message();
  EXPECT_THAT(r.result().message(),
              HasSubstr("out-of-bounds write: 4 bytes before the start of output 'Y' (1 x f32) "
                        "were modified (from -4 to -1 bytes from the start)"));
  EXPECT_THAT(r.result().message(), HasSubstr("test shape M=1,N=1"));
}

TEST(GpuGuards, WritePastTheEndOfScratchIsRuntimeError) {
  SKIP_WITHOUT_GPU();
  const std::string kernel =
      "extern \"C\" __global__ void k(const float* X, float* Y, float* T, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i <= n) T[i] = i < n ? X[i] : 12345.0f;\n"  // T[n]: one past the scratch
      "  if (i < n) Y[i] = fmaxf(T[i], 0.0f);\n}\n";
  const v1::RunnerResult r = Judge(WithKernel(
      kernel, "scratch T : f32[M * N];\nk<<<cdiv(M * N + 1, 256), 256>>>(X, Y, T, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::RUNTIME_ERROR) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("after the end of scratch 'T' (1 x f32)"));
  EXPECT_THAT(r.result().message(), HasSubstr("test shape M=1,N=1"));
}

TEST(GpuGuards, KernelsThatStayInBoundsAreCorrect) {
  SKIP_WITHOUT_GPU();
  // The same scratch kernel without the stray store: guards of tensors and scratch intact.
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, float* T, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) T[i] = X[i];\n"
      "  if (i < n) Y[i] = fmaxf(T[i], 0.0f);\n}\n",
      "scratch T : f32[M * N];\nk<<<cdiv(M * N + 1, 256), 256>>>(X, Y, T, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::CORRECT) << r.result().message();
}

TEST(GpuGuards, WriteOnlyAtTheBenchShapeIsCaughtAfterTiming) {
  SKIP_WITHOUT_GPU();
  // In bounds on the test shapes; on the bench shape it stores one element past the end.
  const v1::RunnerResult r = Judge(WithKernel(
      "extern \"C\" __global__ void k(const float* X, float* Y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) Y[i] = fmaxf(X[i], 0.0f);\n"
      "  if (n > 100000 && i == n) Y[n] = 12345.0f;\n}\n",
      "k<<<cdiv(M * N + 1, 256), 256>>>(X, Y, M * N);"));
  EXPECT_EQ(r.result().verdict(), v1::RUNTIME_ERROR) << r.result().message();
  EXPECT_THAT(r.result().message(), HasSubstr("after the end of output 'Y' (262144 x f32)"));
  EXPECT_THAT(r.result().message(), HasSubstr("bench shape M=64,N=4096"));
  EXPECT_THAT(r.result().message(), HasSubstr("during the timed runs"));
}

TEST(GpuRunnerProcess, OutOfBoundsWriteIsNotStickyTheRunnerGoesOn) {
  SKIP_WITHOUT_GPU();
  const v1::RunSpec bad =
      WithKernel(FlippingRelu("i == n", "n"), "k<<<cdiv(M * N + 1, 256), 256>>>(X, Y, M * N);");
  const testing::RunOutcome o =
      testing::RunRunner({"--time-budget-ms", "100"},
                         testing::RequestLine(bad) +
                             testing::RequestLine(testing::ReluRunSpec(testing::kReluCandidate,
                                                                       false)));
  EXPECT_EQ(o.exit_status, 0);
  const std::vector<v1::JobResult> results = testing::Results(o);
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[0].verdict(), v1::RUNTIME_ERROR);
  EXPECT_EQ(results[0].cuda_error(), "");
  EXPECT_THAT(results[0].message(), HasSubstr("out-of-bounds write"));
  EXPECT_EQ(results[1].verdict(), v1::CORRECT) << results[1].message();
}

}  // namespace
}  // namespace kjudge::runner
