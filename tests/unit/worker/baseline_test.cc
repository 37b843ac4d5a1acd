// Library baselines (worker/judge/baseline_registry.h). Param validation and the catalog's
// [[baseline]] entries are checked without a GPU (validation-only mode); each kind's output is
// checked against a host computation in double on small awkward shapes when a GPU is present
// (skipped visibly otherwise).
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/problem_dir.h"
#include "worker/judge/baseline_registry.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

using ::testing::HasSubstr;

bool HaveGpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

#define SKIP_WITHOUT_GPU()                                                              \
  do {                                                                                  \
    if (!HaveGpu()) GTEST_SKIP() << "no CUDA device: library baseline GPU tests skipped"; \
  } while (false)

TensorSpec F32(const std::string& name, const std::vector<std::string>& dims) {
  TensorSpec t;
  t.name = name;
  t.dtype = DType::kF32;
  for (const std::string& d : dims) t.shape.push_back(*ParseExpression(d));
  return t;
}

LibraryBaselineSpec Baseline(const std::string& kind, std::map<std::string, std::string> params) {
  return LibraryBaselineSpec{"lib", kind, std::move(params)};
}

// A problem holding the given tensors, its sizes bound to `sizes`, fake device pointers.
struct FakeProblem {
  ProblemSpec spec;
  Bindings bindings;
  std::map<std::string, void*> tensors;

  FakeProblem(std::vector<TensorSpec> ts, const std::map<std::string, int64_t>& sizes) {
    spec.tensors = std::move(ts);
    for (const auto& [name, value] : sizes) bindings[name] = Value::Int(value);
    uintptr_t fake = 0x10000;
    for (const TensorSpec& t : spec.tensors) {
      tensors[t.name] = reinterpret_cast<void*>(fake);  // NOLINT: never dereferenced
      fake += 0x10000;
    }
  }

  absl::Status Validate(const LibraryBaselineSpec& b) const {
    BaselineLibraries libs = BaselineLibraries::ValidationOnly();
    return MakeLibraryBaseline(b, spec, bindings, tensors, libs).status();
  }
};

TEST(BaselineRegistry, KnowsItsKinds) {
  EXPECT_TRUE(IsKnownBaselineKind("cublas_gemm"));
  EXPECT_TRUE(IsKnownBaselineKind("cublas_gemv"));
  EXPECT_TRUE(IsKnownBaselineKind("cublaslt_matmul"));
  EXPECT_FALSE(IsKnownBaselineKind("cudnn_conv"));
  EXPECT_THAT(KnownBaselineKinds(), ::testing::SizeIs(3));
  EXPECT_TRUE(IsPartialBaseline(Baseline("cublaslt_matmul", {{"partial", "1"}})));
  EXPECT_FALSE(IsPartialBaseline(Baseline("cublaslt_matmul", {{"partial", "0"}})));
  EXPECT_FALSE(IsPartialBaseline(Baseline("cublaslt_matmul", {})));
}

TEST(BaselineRegistry, ValidatesParams) {
  const FakeProblem p({F32("A", {"M", "K"}), F32("B", {"K", "N"}), F32("C", {"M", "N"}),
                       F32("bias", {"N"}), F32("W", {"N", "K"}), F32("v", {"K"})},
                      {{"M", 7}, {"N", 5}, {"K", 3}});
  const std::map<std::string, std::string> gemm = {{"a", "A"}, {"b", "B"}, {"c", "C"},
                                                   {"m", "M"}, {"n", "N"}, {"k", "K"}};
  EXPECT_TRUE(p.Validate(Baseline("cublas_gemm", gemm)).ok());

  auto with = [](std::map<std::string, std::string> m, const std::string& k,
                 const std::string& v) {
    m[k] = v;
    return m;
  };
  auto message = [&](const LibraryBaselineSpec& b) {
    const absl::Status s = p.Validate(b);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(DescribeError(s).verdict, v1::INTERNAL_ERROR);
    return std::string(s.message());
  };
  EXPECT_THAT(message(Baseline("nope", gemm)), HasSubstr("unknown baseline kind"));
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "lda", "3"))),
              HasSubstr("unknown param `lda`"));
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "trans_a", "yes"))),
              HasSubstr("expected \"0\" or \"1\""));
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "m", "Q"))), HasSubstr("`m`"));
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "a", "Nope"))),
              HasSubstr("unknown tensor Nope"));
  // A is 7 x 3 = 21 elements; m = 8 needs 24: caught before any library call.
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "m", "M + 1"))),
              HasSubstr("has 21 elements but the call needs 24"));
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "batch", "2"))),
              HasSubstr("elements but the call needs"));
  EXPECT_THAT(message(Baseline("cublas_gemm", with(gemm, "partial", "2"))),
              HasSubstr("`partial`"));

  const std::map<std::string, std::string> lt = {{"x", "A"}, {"w", "W"}, {"bias", "bias"},
                                                 {"y", "C"}, {"m", "M"}, {"n", "N"},
                                                 {"k", "K"}, {"epilogue", "bias"}};
  EXPECT_TRUE(p.Validate(Baseline("cublaslt_matmul", lt)).ok());
  EXPECT_THAT(message(Baseline("cublaslt_matmul", with(lt, "epilogue", "silu"))),
              HasSubstr("epilogue \"silu\""));
  EXPECT_THAT(message(Baseline("cublaslt_matmul", with(lt, "epilogue", "none"))),
              HasSubstr("takes no `bias`"));
  std::map<std::string, std::string> no_y = lt;
  no_y.erase("y");
  EXPECT_THAT(message(Baseline("cublaslt_matmul", no_y)), HasSubstr("`y` is required"));
  EXPECT_TRUE(p.Validate(Baseline("cublaslt_matmul", with(no_y, "partial", "1"))).ok());

  const std::map<std::string, std::string> gemv = {
      {"a", "A"}, {"x", "v"}, {"y", "C"}, {"m", "M"}, {"k", "K"}};
  EXPECT_TRUE(p.Validate(Baseline("cublas_gemv", gemv)).ok());
  // trans = 1 reads x[m] = 7 elements from v[3].
  EXPECT_THAT(message(Baseline("cublas_gemv", with(gemv, "trans", "1"))),
              HasSubstr("`x` = v has 3 elements but the call needs 7"));
}

// Every [[baseline]] of the catalog names a known kind whose params validate at every test and
// bench shape.
TEST(BaselineCatalog, EveryBaselineValidates) {
  // KJUDGE_PROBLEMS overrides the source tree's catalog (e.g. in a packed bundle).
  const char* env = std::getenv("KJUDGE_PROBLEMS");
  const std::filesystem::path root = env != nullptr
                                         ? std::filesystem::path(env)
                                         : std::filesystem::path(KJUDGE_SOURCE_DIR) / "problems";
  if (!std::filesystem::exists(root)) {
    GTEST_SKIP() << "no problem catalog at " << root << " (set KJUDGE_PROBLEMS)";
  }
  absl::StatusOr<std::vector<ProblemFiles>> catalog = LoadProblemCatalog(root);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  BaselineLibraries libs = BaselineLibraries::ValidationOnly();
  int checked = 0;
  for (const ProblemFiles& p : *catalog) {
    std::map<std::string, void*> tensors;
    uintptr_t fake = 0x10000;
    for (const TensorSpec& t : p.spec.tensors) {
      tensors[t.name] = reinterpret_cast<void*>(fake);  // NOLINT: never dereferenced
      fake += 0x10000;
    }
    for (const LibraryBaselineSpec& b : p.spec.baselines) {
      EXPECT_TRUE(IsKnownBaselineKind(b.kind)) << p.spec.name << ": " << b.kind;
      for (const auto* shapes : {&p.spec.test_shapes, &p.spec.bench_shapes}) {
        for (const Shape& shape : *shapes) {
          const absl::Status s =
              MakeLibraryBaseline(b, p.spec, p.spec.BindingsFor(shape), tensors, libs).status();
          EXPECT_TRUE(s.ok()) << p.spec.name << " at " << shape.Label() << ": " << s;
        }
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
}

// ---- GPU: each kind against a host computation in double ----

struct GpuProblem {
  FakeProblem fake;
  std::map<std::string, std::vector<float>> host;
  std::map<std::string, DeviceBuffer> device;

  GpuProblem(std::vector<TensorSpec> ts, const std::map<std::string, int64_t>& sizes, int seed)
      : fake(std::move(ts), sizes) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    for (const TensorSpec& t : fake.spec.tensors) {
      int64_t n = 1;
      for (const Expr& d : t.shape) n *= *d.EvaluateInt(fake.bindings);
      std::vector<float>& h = host[t.name];
      h.resize(static_cast<size_t>(n));
      for (float& v : h) v = dist(rng);
      DeviceBuffer buf = *DeviceBuffer::Allocate(h.size() * sizeof(float), t.name);
      EXPECT_EQ(cudaMemcpy(buf.get(), h.data(), h.size() * sizeof(float),
                           cudaMemcpyHostToDevice),
                cudaSuccess);
      fake.tensors[t.name] = buf.get();
      device.emplace(t.name, std::move(buf));
    }
  }

  // Runs the baseline twice (as timing does) and returns the named tensor.
  std::vector<float> Run(const LibraryBaselineSpec& b, BaselineLibraries& libs,
                         const std::string& out) {
    absl::StatusOr<RunFn> run = MakeLibraryBaseline(b, fake.spec, fake.bindings, fake.tensors, libs);
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) return {};
    for (int i = 0; i < 2; ++i) {
      const absl::Status s = (*run)(nullptr);
      EXPECT_TRUE(s.ok()) << s;
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<float> result(host[out].size());
    EXPECT_EQ(cudaMemcpy(result.data(), device.at(out).get(), result.size() * sizeof(float),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    return result;
  }
};

BaselineLibraries& Libs() {
  static auto* libs = new BaselineLibraries(*BaselineLibraries::Create());
  return *libs;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) > tol * (1.0 + std::abs(want[i])) && ++bad <= 3) {
      ADD_FAILURE() << what << ": element " << i << " = " << got[i] << ", expected " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

TEST(BaselineGpu, CublasGemmAllTransposes) {
  SKIP_WITHOUT_GPU();
  struct Dims {
    int64_t m, n, k;
  };
  for (const Dims d : {Dims{1, 1, 1}, Dims{7, 13, 5}, Dims{33, 65, 17}, Dims{100, 37, 129}}) {
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 2; ++tb) {
        GpuProblem p({F32("A", ta != 0 ? std::vector<std::string>{"K", "M"}
                                       : std::vector<std::string>{"M", "K"}),
                      F32("B", tb != 0 ? std::vector<std::string>{"N", "K"}
                                       : std::vector<std::string>{"K", "N"}),
                      F32("C", {"M", "N"})},
                     {{"M", d.m}, {"N", d.n}, {"K", d.k}}, static_cast<int>(d.m + 2 * ta + tb));
        const std::vector<float>& a = p.host["A"];
        const std::vector<float>& b = p.host["B"];
        std::vector<double> want(static_cast<size_t>(d.m * d.n));
        for (int64_t i = 0; i < d.m; ++i) {
          for (int64_t j = 0; j < d.n; ++j) {
            double s = 0;
            for (int64_t l = 0; l < d.k; ++l) {
              const double av = ta != 0 ? a[l * d.m + i] : a[i * d.k + l];
              const double bv = tb != 0 ? b[j * d.k + l] : b[l * d.n + j];
              s += av * bv;
            }
            want[i * d.n + j] = s;
          }
        }
        const std::vector<float> got = p.Run(
            Baseline("cublas_gemm", {{"a", "A"}, {"b", "B"}, {"c", "C"}, {"m", "M"}, {"n", "N"},
                                     {"k", "K"}, {"trans_a", ta != 0 ? "1" : "0"},
                                     {"trans_b", tb != 0 ? "1" : "0"}}),
            Libs(), "C");
        ExpectNear(got, want, 1e-5,
                   "gemm m=" + std::to_string(d.m) + " n=" + std::to_string(d.n) +
                       " k=" + std::to_string(d.k) + " ta=" + std::to_string(ta) +
                       " tb=" + std::to_string(tb));
      }
    }
  }
}

TEST(BaselineGpu, CublasGemmStridedBatched) {
  SKIP_WITHOUT_GPU();
  const int64_t batch = 3;
  const int64_t m = 5;
  const int64_t n = 7;
  const int64_t k = 9;
  GpuProblem p({F32("A", {"BATCH", "M", "K"}), F32("B", {"BATCH", "K", "N"}),
                F32("C", {"BATCH", "M", "N"})},
               {{"BATCH", batch}, {"M", m}, {"N", n}, {"K", k}}, 11);
  std::vector<double> want(static_cast<size_t>(batch * m * n));
  for (int64_t q = 0; q < batch; ++q) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l) {
          s += double{p.host["A"][(q * m + i) * k + l]} * p.host["B"][(q * k + l) * n + j];
        }
        want[(q * m + i) * n + j] = s;
      }
    }
  }
  const std::vector<float> got =
      p.Run(Baseline("cublas_gemm", {{"a", "A"}, {"b", "B"}, {"c", "C"}, {"m", "M"}, {"n", "N"},
                                     {"k", "K"}, {"batch", "BATCH"}}),
            Libs(), "C");
  ExpectNear(got, want, 1e-5, "batched gemm");
}

TEST(BaselineGpu, CublasGemvBothWays) {
  SKIP_WITHOUT_GPU();
  const int64_t m = 37;
  const int64_t k = 1000;
  for (int trans = 0; trans < 2; ++trans) {
    GpuProblem p({F32("A", {"M", "K"}), F32("x", {trans != 0 ? "M" : "K"}),
                  F32("y", {trans != 0 ? "K" : "M"})},
                 {{"M", m}, {"K", k}}, 5 + trans);
    const std::vector<float>& a = p.host["A"];
    const std::vector<float>& x = p.host["x"];
    std::vector<double> want(static_cast<size_t>(trans != 0 ? k : m), 0.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t l = 0; l < k; ++l) {
        if (trans != 0) {
          want[l] += double{a[i * k + l]} * x[i];
        } else {
          want[i] += double{a[i * k + l]} * x[l];
        }
      }
    }
    const std::vector<float> got =
        p.Run(Baseline("cublas_gemv", {{"a", "A"}, {"x", "x"}, {"y", "y"}, {"m", "M"},
                                       {"k", "K"}, {"trans", trans != 0 ? "1" : "0"}}),
              Libs(), "y");
    ExpectNear(got, want, 1e-5, "gemv trans=" + std::to_string(trans));
  }
}

double GeluTanh(double v) {
  return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}

TEST(BaselineGpu, CublasLtMatmulEpilogues) {
  SKIP_WITHOUT_GPU();
  struct Dims {
    int64_t m, n, k;
  };
  for (const Dims d : {Dims{1, 1, 1}, Dims{3, 5, 37}, Dims{33, 129, 100}, Dims{70, 67, 515}}) {
    for (const std::string epilogue : {"none", "bias", "relu", "relu_bias", "gelu", "gelu_bias"}) {
      GpuProblem p({F32("X", {"M", "K"}), F32("W", {"N", "K"}), F32("b", {"N"}),
                    F32("Y", {"M", "N"})},
                   {{"M", d.m}, {"N", d.n}, {"K", d.k}}, static_cast<int>(d.k));
      const bool bias = epilogue.ends_with("bias");
      std::vector<double> want(static_cast<size_t>(d.m * d.n));
      for (int64_t i = 0; i < d.m; ++i) {
        for (int64_t j = 0; j < d.n; ++j) {
          double s = bias ? p.host["b"][j] : 0.0;
          for (int64_t l = 0; l < d.k; ++l) {
            s += double{p.host["X"][i * d.k + l]} * p.host["W"][j * d.k + l];
          }
          if (epilogue.starts_with("relu")) s = std::max(s, 0.0);
          if (epilogue.starts_with("gelu")) s = GeluTanh(s);
          want[i * d.n + j] = s;
        }
      }
      std::map<std::string, std::string> params = {{"x", "X"}, {"w", "W"}, {"y", "Y"},
                                                    {"m", "M"}, {"n", "N"}, {"k", "K"},
                                                    {"epilogue", epilogue}};
      if (bias) params["bias"] = "b";
      const std::vector<float> got = p.Run(Baseline("cublaslt_matmul", params), Libs(), "Y");
      // cuBLASLt's GELU may use a faster tanh than the host's.
      ExpectNear(got, want, epilogue.starts_with("gelu") ? 1e-3 : 1e-5,
                 "cublaslt " + epilogue + " m=" + std::to_string(d.m) +
                     " n=" + std::to_string(d.n) + " k=" + std::to_string(d.k));
    }
  }
}

TEST(BaselineGpu, PartialCublasLtWritesItsOwnBuffer) {
  SKIP_WITHOUT_GPU();
  GpuProblem p({F32("X", {"M", "K"}), F32("W", {"N", "K"}), F32("b", {"N"}), F32("Y", {"M", "1"})},
               {{"M", 33}, {"N", 129}, {"K", 100}}, 3);
  const std::vector<float> before = p.host["Y"];
  const std::vector<float> got = p.Run(
      Baseline("cublaslt_matmul", {{"x", "X"}, {"w", "W"}, {"bias", "b"}, {"m", "M"},
                                   {"n", "N"}, {"k", "K"}, {"epilogue", "gelu_bias"},
                                   {"partial", "1"}}),
      Libs(), "Y");
  EXPECT_EQ(got, before);  // the problem's tensors are left alone
}

}  // namespace
}  // namespace kjudge::runner
