// KernelBench's metrics and the default denominator rule (server/kernel_metrics.h) on results
// built the way the runner and the server record them: per-shape candidate medians and
// speedups = baseline median / candidate median.
#include "server/kernel_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kjudge::server {
namespace {

const std::vector<std::string> kGemmLibrary = {"cublas", "cublaslt"};

// Old-style result: speedups at one shape and no timings (what the fast_p tests need).
v1::JobResult Result(v1::Verdict verdict, std::vector<std::pair<std::string, double>> speedups = {}) {
  v1::JobResult result;
  result.set_verdict(verdict);
  for (const auto& [baseline, value] : speedups) {
    v1::Speedup* speedup = result.add_speedups();
    speedup->set_baseline(baseline);
    speedup->set_shape("N=4096");
    speedup->set_speedup(value);
  }
  return result;
}

struct ShapeTimes {
  std::string shape;
  double candidate_us;
  std::map<std::string, double> baseline_us;  // name -> median
};

// A CORRECT result timed on `shapes`, on `gpu`, as the runner (and the server, for imported
// baselines) would record it.
v1::JobResult Timed(const std::vector<ShapeTimes>& shapes, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  v1::JobResult result;
  result.set_verdict(v1::CORRECT);
  result.set_gpu(gpu);
  for (const ShapeTimes& s : shapes) {
    v1::ShapeTiming* timing = result.add_timings();
    timing->set_shape(s.shape);
    timing->mutable_timing()->set_median_us(s.candidate_us);
    for (const auto& [name, us] : s.baseline_us) {
      v1::Speedup* speedup = result.add_speedups();
      speedup->set_shape(s.shape);
      speedup->set_baseline(name);
      speedup->set_speedup(us / s.candidate_us);
    }
  }
  return result;
}

double FastP(const google::protobuf::RepeatedPtrField<v1::FastP>& fast_p, double p) {
  for (const v1::FastP& entry : fast_p) {
    if (entry.p() == p) return entry.fraction();
  }
  ADD_FAILURE() << "no fast_" << p;
  return -1;
}
double FastP(const v1::Stats& stats, double p) { return FastP(stats.fast_p(), p); }

std::vector<JudgedResult> Judged(const std::string& problem, const std::vector<v1::JobResult>& results) {
  std::vector<JudgedResult> out;
  for (const v1::JobResult& result : results) out.push_back(JudgedResult{problem, result});
  return out;
}

v1::Denominator Choose(const std::vector<v1::JobResult>& results,
                       const std::vector<std::string>& library = kGemmLibrary) {
  std::vector<const v1::JobResult*> pointers;
  for (const v1::JobResult& result : results) pointers.push_back(&result);
  return ChooseDenominator(pointers, library);
}

// --- the chooser ---

TEST(ChooseDenominator, TheFastestLibraryBaselineWinsOverTheReference) {
  v1::Denominator d = Choose({Timed({{"N=4096", 100.0, {{"reference", 2700.0}, {"cublas", 60.0}, {"cublaslt", 50.0}}}})});
  EXPECT_EQ(d.baseline(), "cublaslt");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_LIBRARY);
  EXPECT_TRUE(d.is_default());
  EXPECT_NEAR(d.geomean_us(), 50.0, 1e-9);
  ASSERT_EQ(d.shapes_size(), 1);
  EXPECT_EQ(d.shapes(0), "N=4096");
  EXPECT_EQ(d.note(), "vs cublaslt (library; the strongest of 2 library/PyTorch eager baselines timed on every shape)");
  ASSERT_EQ(d.considered_size(), 3);
  EXPECT_EQ(d.considered(0).baseline(), "cublaslt");
  EXPECT_EQ(d.considered(1).baseline(), "cublas");
  EXPECT_EQ(d.considered(2).baseline(), "reference");
  EXPECT_FALSE(d.considered(2).eligible());
}

TEST(ChooseDenominator, PyTorchEagerFasterThanTheLibraryIsTheDefault) {
  v1::Denominator d = Choose({Timed({{"N=4096", 100.0, {{"reference", 900.0}, {"cublas", 80.0}, {"torch_eager", 70.0}}}})});
  EXPECT_EQ(d.baseline(), "torch_eager");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_PYTORCH_EAGER);
  EXPECT_NE(d.note().find("KernelBench"), std::string::npos) << d.note();
}

TEST(ChooseDenominator, PyTorchEagerSlowerThanTheLibraryIsNot) {
  v1::Denominator d = Choose({Timed({{"N=4096", 100.0, {{"reference", 900.0}, {"cublas", 80.0}, {"torch_eager", 95.0}}}})});
  EXPECT_EQ(d.baseline(), "cublas");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_LIBRARY);
}

TEST(ChooseDenominator, EagerAloneBeatsTheReferenceWhereNoLibraryExists) {
  v1::Denominator d = Choose({Timed({{"M=4096", 10.0, {{"reference", 30.0}, {"torch_eager", 40.0}}}})}, {});
  EXPECT_EQ(d.baseline(), "torch_eager");  // slower than the reference, but the reference is never preferred
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_PYTORCH_EAGER);
  EXPECT_EQ(d.note(),
            "vs torch_eager (PyTorch eager, KernelBench's definition; the only library or PyTorch eager baseline timed "
            "on every shape)");
}

TEST(ChooseDenominator, ReferenceOnlySaysSo) {
  v1::Denominator d = Choose({Timed({{"M=4096", 10.0, {{"reference", 30.0}}}})}, {});
  EXPECT_EQ(d.baseline(), "reference");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_REFERENCE_ONLY);
  EXPECT_EQ(d.note(), "vs reference (catalog kernel; no library or PyTorch baseline measured)");
}

TEST(ChooseDenominator, ABaselineMissingAShapeIsNotComparable) {
  // cublas was timed only at the small shape (where it is fastest); eager at both.
  v1::Denominator d = Choose({Timed({
      {"N=1024", 10.0, {{"reference", 100.0}, {"cublas", 5.0}, {"torch_eager", 9.0}}},
      {"N=4096", 100.0, {{"reference", 1000.0}, {"torch_eager", 90.0}}},
  })});
  EXPECT_EQ(d.baseline(), "torch_eager");
  EXPECT_NEAR(d.geomean_us(), std::sqrt(9.0 * 90.0), 1e-9);
  const v1::BaselineStrength* cublas = nullptr;
  for (const v1::BaselineStrength& s : d.considered()) {
    if (s.baseline() == "cublas") cublas = &s;
  }
  ASSERT_NE(cublas, nullptr);
  EXPECT_FALSE(cublas->covers_all_shapes());
  EXPECT_TRUE(cublas->eligible());
}

TEST(ChooseDenominator, OnlyPartialLibraryDataFallsBackToTheReferenceAndSaysWhy) {
  v1::Denominator d = Choose({Timed({
      {"N=1024", 10.0, {{"reference", 100.0}, {"cublas", 5.0}}},
      {"N=4096", 100.0, {{"reference", 1000.0}}},
  })});
  EXPECT_EQ(d.baseline(), "reference");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_REFERENCE_ONLY);
  EXPECT_EQ(d.note(), "vs reference (catalog kernel; no library or PyTorch baseline timed on every shape)");
}

TEST(ChooseDenominator, TorchCompileAndUnknownImportsAreNeverTheDefault) {
  v1::Denominator d = Choose({Timed({{"N=4096", 100.0,
                                      {{"reference", 900.0}, {"cublas", 80.0}, {"torch_compile", 20.0}, {"triton", 10.0}}}})});
  EXPECT_EQ(d.baseline(), "cublas");
  for (const v1::BaselineStrength& s : d.considered()) {
    if (s.baseline() == "torch_compile") {
      EXPECT_EQ(s.kind(), v1::BASELINE_KIND_PYTORCH_COMPILE);
    } else if (s.baseline() == "triton") {
      EXPECT_EQ(s.kind(), v1::BASELINE_KIND_OTHER);
    }
  }
}

// A module-only problem (reference.py, no reference.cu, no library baseline): the oracle's
// torch_eager is the default, KernelBench's denominator; its faster torch_compile is shown
// (considered, with its kind) but not chosen; and there is no "reference" to fall back on.
TEST(ChooseDenominator, OnAModuleProblemTorchEagerIsTheDefaultNotTorchCompile) {
  v1::Denominator d = Choose({Timed({{"batch_size=128", 100.0, {{"torch_eager", 300.0}, {"torch_compile", 50.0}}}})},
                             /*library=*/{});
  EXPECT_EQ(d.baseline(), "torch_eager");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_PYTORCH_EAGER);
  EXPECT_TRUE(d.is_default());
  bool compile_shown = false;
  for (const v1::BaselineStrength& s : d.considered()) {
    if (s.baseline() != "torch_compile") continue;
    compile_shown = true;
    EXPECT_EQ(s.kind(), v1::BASELINE_KIND_PYTORCH_COMPILE);
    EXPECT_FALSE(s.eligible());
  }
  EXPECT_TRUE(compile_shown);
  // Only torch_compile measured so far (eager not yet): still not the default.
  v1::Denominator only_compile =
      Choose({Timed({{"batch_size=128", 100.0, {{"torch_compile", 50.0}}}})}, /*library=*/{});
  EXPECT_NE(only_compile.baseline(), "torch_compile");
}

TEST(ChooseDenominator, OverSeveralJobsEachShapeTakesTheMedianBaselineTime) {
  // cublas re-measured: 50, 52, 200 (an outlier) -> median 52; eager 60 every time.
  std::vector<v1::JobResult> results;
  for (double cublas : {50.0, 52.0, 200.0}) {
    results.push_back(Timed({{"N=4096", 40.0, {{"cublas", cublas}, {"torch_eager", 60.0}}}}));
  }
  v1::Denominator d = Choose(results);
  EXPECT_EQ(d.baseline(), "cublas");
  EXPECT_NEAR(d.geomean_us(), 52.0, 1e-9);
}

TEST(ChooseDenominator, NoTimedSpeedupsMeansNoDenominator) {
  v1::Denominator d = Choose({Result(v1::WRONG_ANSWER)});
  EXPECT_EQ(d.baseline(), "");
  EXPECT_EQ(d.kind(), v1::BASELINE_KIND_UNSPECIFIED);
  EXPECT_FALSE(d.note().empty());
}

TEST(ClassifyBaseline, Names) {
  EXPECT_EQ(ClassifyBaseline("reference", kGemmLibrary), v1::BASELINE_KIND_REFERENCE);
  EXPECT_EQ(ClassifyBaseline("torch_eager", {}), v1::BASELINE_KIND_PYTORCH_EAGER);
  // Issue 28: the strict fp32 eager variant is PyTorch eager too (eligible as a default).
  EXPECT_EQ(ClassifyBaseline("torch_eager_fp32", {}), v1::BASELINE_KIND_PYTORCH_EAGER);
  EXPECT_EQ(ClassifyBaseline("torch_compile", {}), v1::BASELINE_KIND_PYTORCH_COMPILE);
  EXPECT_EQ(ClassifyBaseline("cublaslt", kGemmLibrary), v1::BASELINE_KIND_LIBRARY);
  EXPECT_EQ(ClassifyBaseline("cublaslt", {}), v1::BASELINE_KIND_OTHER);  // not this problem's library
  EXPECT_EQ(ClassifyBaseline("torch_compile", {}), v1::BASELINE_KIND_PYTORCH_COMPILE);
}

// --- ComputeStats ---

TEST(KernelMetrics, KernelBenchDefinitionsOnRecordedResults) {
  std::vector<v1::JobResult> results = {
      Result(v1::CORRECT, {{"reference", 2.5}, {"cublas", 0.5}}),
      Result(v1::CORRECT, {{"reference", 0.9}}),
      Result(v1::CORRECT, {{"reference", 1.2}}),
      Result(v1::WRONG_ANSWER),
      Result(v1::COMPILE_ERROR),
  };
  v1::Stats stats = ComputeStats(Judged("p", results), "reference", {});
  EXPECT_EQ(stats.jobs(), 5);
  EXPECT_EQ(stats.compiled(), 4);
  EXPECT_EQ(stats.correct(), 3);
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 0.8);
  EXPECT_DOUBLE_EQ(stats.correctness_rate(), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.0), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.5), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.8), 0.6);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.0), 0.4);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.5), 0.2);
  EXPECT_DOUBLE_EQ(FastP(stats, 2.0), 0.2);
  EXPECT_NEAR(stats.geomean_speedup(), std::cbrt(2.5 * 0.9 * 1.2), 1e-12);
  EXPECT_EQ(stats.verdicts().at("CORRECT"), 3);
  EXPECT_EQ(stats.verdicts().at("COMPILE_ERROR"), 1);
  EXPECT_EQ(stats.baseline(), "reference");
  EXPECT_FALSE(stats.default_baseline());
  EXPECT_FALSE(stats.has_kernelbench());
  ASSERT_EQ(stats.problems_size(), 1);
  EXPECT_EQ(stats.problems(0).denominator().kind(), v1::BASELINE_KIND_REFERENCE);
  EXPECT_FALSE(stats.problems(0).denominator().is_default());
}

TEST(KernelMetrics, OtherBaselineAndMissingSpeedups) {
  std::vector<v1::JobResult> results = {
      Result(v1::CORRECT, {{"reference", 2.5}, {"cublas", 0.5}}),
      Result(v1::CORRECT, {{"reference", 0.9}}),
  };
  v1::Stats stats = ComputeStats(Judged("p", results), "cublas", {{"p", {"cublas"}}});
  EXPECT_EQ(stats.with_speedup(), 1);
  EXPECT_DOUBLE_EQ(stats.geomean_speedup(), 0.5);
  EXPECT_DOUBLE_EQ(FastP(stats, 0.0), 0.5);  // the job with no cuBLAS speedup is not fast
  EXPECT_EQ(stats.problems(0).denominator().kind(), v1::BASELINE_KIND_LIBRARY);
}

TEST(KernelMetrics, SeveralShapesAreCombinedGeometrically) {
  v1::JobResult result = Result(v1::CORRECT, {{"reference", 4.0}, {"reference", 1.0}});
  EXPECT_DOUBLE_EQ(JobSpeedup(result, "reference"), 2.0);
  EXPECT_DOUBLE_EQ(JobSpeedup(result, "cublas"), 0.0);
}

TEST(KernelMetrics, NoJobsGivesNotApplicableNotZeros) {
  v1::Stats stats = ComputeStats({}, "", {});
  EXPECT_EQ(stats.jobs(), 0);
  EXPECT_FALSE(stats.has_compile_rate());
  EXPECT_FALSE(stats.has_correctness_rate());
  EXPECT_FALSE(stats.has_geomean_speedup());
  EXPECT_EQ(stats.fast_p_size(), 0);
  EXPECT_FALSE(stats.has_per_problem());
  EXPECT_EQ(stats.problems_size(), 0);
  EXPECT_EQ(stats.baseline(), "strongest");
}

// The GEMM reads 27x against its reference but 0.5x against cuBLASLt: the default is 0.5x;
// the ReLU has only its reference and eager: eager. Each problem's row names its own.
TEST(KernelMetrics, DefaultStatsUseEachProblemsStrongestBaseline) {
  std::vector<JudgedResult> results;
  for (const JudgedResult& j : Judged("level2/gemm", {Timed({{"N=4096", 100.0, {{"reference", 2700.0}, {"cublaslt", 50.0}}}}),
                                                      Timed({{"N=4096", 40.0, {{"reference", 2700.0}, {"cublaslt", 50.0}}}}),
                                                      Result(v1::WRONG_ANSWER)})) {
    results.push_back(j);
  }
  for (const JudgedResult& j : Judged("level1/relu", {Timed({{"M=4096", 20.0, {{"reference", 30.0}, {"torch_eager", 40.0}}}})})) {
    results.push_back(j);
  }
  for (const JudgedResult& j : Judged("level1/scan", {Timed({{"M=4096", 10.0, {{"reference", 30.0}}}})})) {
    results.push_back(j);
  }
  v1::Stats stats = ComputeStats(results, "", {{"level2/gemm", {"cublaslt"}}});
  EXPECT_TRUE(stats.default_baseline());
  EXPECT_EQ(stats.baseline(), "strongest");
  ASSERT_EQ(stats.problems_size(), 3);
  // Rows in problem order: level1/relu, level1/scan, level2/gemm.
  const v1::ProblemStats& relu = stats.problems(0);
  const v1::ProblemStats& scan = stats.problems(1);
  const v1::ProblemStats& gemm = stats.problems(2);
  EXPECT_EQ(relu.problem(), "level1/relu");
  EXPECT_EQ(relu.denominator().baseline(), "torch_eager");
  EXPECT_EQ(relu.denominator().kind(), v1::BASELINE_KIND_PYTORCH_EAGER);
  EXPECT_DOUBLE_EQ(relu.geomean_speedup(), 2.0);
  EXPECT_DOUBLE_EQ(relu.torch_eager_geomean_speedup(), 2.0);
  EXPECT_EQ(scan.denominator().kind(), v1::BASELINE_KIND_REFERENCE_ONLY);
  EXPECT_DOUBLE_EQ(scan.geomean_speedup(), 3.0);
  EXPECT_EQ(gemm.denominator().baseline(), "cublaslt");
  EXPECT_EQ(gemm.jobs(), 3);
  EXPECT_EQ(gemm.correct(), 2);
  EXPECT_EQ(gemm.gpu(), "NVIDIA H100 80GB HBM3");
  EXPECT_NEAR(gemm.geomean_speedup(), std::sqrt(0.5 * 1.25), 1e-12);
  EXPECT_NEAR(FastP(gemm.fast_p(), 1.0), 1.0 / 3.0, 1e-12);
  EXPECT_EQ(gemm.torch_eager_with_speedup(), 0);
  // Overall: 5 jobs, 4 correct with speedups 0.5, 1.25 (gemm), 2 (relu), 3 (scan).
  EXPECT_EQ(stats.jobs(), 5);
  EXPECT_EQ(stats.with_speedup(), 4);
  EXPECT_NEAR(stats.geomean_speedup(), std::pow(0.5 * 1.25 * 2.0 * 3.0, 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.0), 0.6);
  // KernelBench's number beside it: only the ReLU job has an eager time.
  ASSERT_TRUE(stats.has_kernelbench());
  EXPECT_EQ(stats.kernelbench().baseline(), "torch_eager");
  EXPECT_EQ(stats.kernelbench().with_speedup(), 1);
  EXPECT_DOUBLE_EQ(FastP(stats.kernelbench(), 1.0), 0.2);
}

TEST(KernelMetrics, AskedForBaselineIsDescribedPerProblem) {
  std::vector<JudgedResult> results = Judged("level2/gemm", {Timed({{"N=4096", 100.0, {{"reference", 2700.0}, {"cublaslt", 50.0}}}})});
  v1::Stats stats = ComputeStats(results, "torch_eager", {{"level2/gemm", {"cublaslt"}}});
  EXPECT_FALSE(stats.default_baseline());
  EXPECT_FALSE(stats.has_kernelbench());
  ASSERT_EQ(stats.problems_size(), 1);
  EXPECT_EQ(stats.problems(0).denominator().baseline(), "torch_eager");
  EXPECT_EQ(stats.problems(0).denominator().note(), "vs torch_eager (asked for; no job here has a torch_eager time)");
  EXPECT_EQ(stats.with_speedup(), 0);
  stats = ComputeStats(results, "reference", {{"level2/gemm", {"cublaslt"}}});
  EXPECT_DOUBLE_EQ(stats.geomean_speedup(), 27.0);  // the flattering number, only when asked for
  EXPECT_EQ(stats.problems(0).denominator().kind(), v1::BASELINE_KIND_REFERENCE);
}

TEST(KernelMetrics, EachGpuOfAProblemGetsItsOwnDenominator) {
  std::vector<JudgedResult> results = Judged(
      "level2/gemm", {Timed({{"N=4096", 100.0, {{"cublas", 50.0}, {"torch_eager", 60.0}}}}, "GPU A"),
                      Timed({{"N=4096", 100.0, {{"cublas", 50.0}, {"torch_eager", 40.0}}}}, "GPU B"),
                      Result(v1::REJECTED)});
  v1::Stats stats = ComputeStats(results, "", {{"level2/gemm", {"cublas"}}});
  ASSERT_EQ(stats.problems_size(), 3);
  EXPECT_EQ(stats.problems(0).gpu(), "");  // the job judged on no GPU
  EXPECT_EQ(stats.problems(0).denominator().baseline(), "");
  EXPECT_EQ(stats.problems(1).gpu(), "GPU A");
  EXPECT_EQ(stats.problems(1).denominator().baseline(), "cublas");
  EXPECT_EQ(stats.problems(2).gpu(), "GPU B");
  EXPECT_EQ(stats.problems(2).denominator().baseline(), "torch_eager");
}

TEST(KernelMetrics, OneGpuKeepsJobsJudgedOnNoneInItsRow) {
  std::vector<JudgedResult> results = Judged("p", {Timed({{"N=1", 1.0, {{"reference", 2.0}}}}), Result(v1::REJECTED)});
  v1::Stats stats = ComputeStats(results, "", {});
  ASSERT_EQ(stats.problems_size(), 1);
  EXPECT_EQ(stats.problems(0).jobs(), 2);
  EXPECT_EQ(stats.problems(0).denominator().kind(), v1::BASELINE_KIND_REFERENCE_ONLY);
}

}  // namespace
}  // namespace kjudge::server

namespace kjudge::server {
namespace {

TEST(KernelMetrics, FastPCurveIsAStepFunctionThatAgreesWithComputeStats) {
  std::vector<JudgedResult> results =
      Judged("p", {Result(v1::CORRECT, {{"reference", 1.5}}), Result(v1::CORRECT, {{"reference", 0.5}}),
                   Result(v1::WRONG_ANSWER, {{"reference", 9.0}}), Result(v1::CORRECT)});
  const std::vector<double> ps = {0.0, 0.25, 0.5, 1.0, 1.49, 1.5, 2.0};
  std::vector<v1::FastP> curve = FastPCurve(results, "reference", {}, ps);
  ASSERT_EQ(curve.size(), ps.size());
  // Speedups of correct jobs: 1.5, 0.5 and none (0); the wrong answer's 9x never counts.
  const double expected[] = {0.5, 0.5, 0.25, 0.25, 0.25, 0.0, 0.0};
  for (size_t i = 0; i < ps.size(); ++i) {
    EXPECT_EQ(curve[i].p(), ps[i]);
    EXPECT_DOUBLE_EQ(curve[i].fraction(), expected[i]) << "p = " << ps[i];
  }
  v1::Stats stats = ComputeStats(results, "reference", {});
  for (const v1::FastP& entry : stats.per_problem().fast_p()) {
    EXPECT_DOUBLE_EQ(FastPCurve(results, "reference", {}, {entry.p()})[0].fraction(), entry.fraction());
  }
}

// With no baseline the curve uses each problem's default denominator, as ComputeStats does:
// gemm against cublaslt (1.0x and 0.5x), relu against torch_eager (2x).
TEST(KernelMetrics, FastPCurveUsesEachProblemsDefaultDenominator) {
  std::vector<JudgedResult> results =
      Judged("level2/gemm", {Timed({{"N=4096", 100.0, {{"reference", 2700.0}, {"cublaslt", 100.0}}}}),
                             Timed({{"N=4096", 200.0, {{"reference", 2700.0}, {"cublaslt", 100.0}}}})});
  for (const JudgedResult& j : Judged("level1/relu", {Timed({{"M=4096", 20.0, {{"reference", 30.0}, {"torch_eager", 40.0}}}})})) {
    results.push_back(j);
  }
  const LibraryNames library = {{"level2/gemm", {"cublaslt"}}};
  std::vector<v1::FastP> curve = FastPCurve(results, "", library, {0.0, 0.9, 1.0, 1.9, 2.0});
  ASSERT_EQ(curve.size(), 5U);
  // Per problem (KernelBench: one result per problem): gemm's fraction of its 2 jobs, relu's of its 1.
  EXPECT_DOUBLE_EQ(curve[0].fraction(), 1.0);
  EXPECT_DOUBLE_EQ(curve[1].fraction(), (0.5 + 1.0) / 2);  // gemm 1.0x of 1.0x/0.5x; relu 2x
  EXPECT_DOUBLE_EQ(curve[2].fraction(), (0.0 + 1.0) / 2);  // only relu's 2x is above 1
  EXPECT_DOUBLE_EQ(curve[3].fraction(), 0.5);
  EXPECT_DOUBLE_EQ(curve[4].fraction(), 0.0);
  v1::Stats stats = ComputeStats(results, "", library);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.0), 1.0 / 3.0);  // per job: 1 of 3 jobs
  for (const v1::FastP& entry : stats.per_problem().fast_p()) {
    EXPECT_DOUBLE_EQ(FastPCurve(results, "", library, {entry.p()})[0].fraction(), entry.fraction());
  }
}

}  // namespace
}  // namespace kjudge::server

namespace kjudge::server {
namespace {

// --- per problem (KernelBench: one result per problem), pass@k, the problem set ---

// The hand-computed table (docs/metrics.md has it too), speedups against "reference":
//   a: 7 judged: CORRECT 2.0x, CORRECT 0.5x, 4 WRONG_ANSWER, 1 COMPILE_ERROR  (n 7, c 2, fast_1 1)
//   b: 5 judged: CORRECT 4.0x, 4 WRONG_ANSWER                                 (n 5, c 1, fast_1 1)
//   c: 5 judged: CORRECT 0.9x, 4 WRONG_ANSWER                                 (n 5, c 1, fast_1 0)
//   d: 2 compile-only: COMPILED, COMPILE_ERROR (no judged job: a failure)
//   e: in the set, never submitted (a failure)
std::vector<JudgedResult> Table() {
  std::vector<JudgedResult> out;
  auto add = [&](const std::string& problem, const v1::JobResult& result, int times = 1, bool compile_only = false) {
    for (int i = 0; i < times; ++i) out.push_back(JudgedResult{problem, result, compile_only});
  };
  add("t/a", Result(v1::CORRECT, {{"reference", 2.0}}));
  add("t/a", Result(v1::CORRECT, {{"reference", 0.5}}));
  add("t/a", Result(v1::WRONG_ANSWER), 4);
  add("t/a", Result(v1::COMPILE_ERROR));
  add("t/b", Result(v1::CORRECT, {{"reference", 4.0}}));
  add("t/b", Result(v1::WRONG_ANSWER), 4);
  add("t/c", Result(v1::CORRECT, {{"reference", 0.9}}));
  add("t/c", Result(v1::WRONG_ANSWER), 4);
  add("t/d", Result(v1::COMPILED), 1, true);
  add("t/d", Result(v1::COMPILE_ERROR), 1, true);
  return out;
}

const v1::PassAtK* FindK(const v1::ProblemSetStats& s, int k) {
  for (const v1::PassAtK& entry : s.pass_at_k()) {
    if (entry.k() == k) return &entry;
  }
  return nullptr;
}

TEST(PerProblemMetrics, HandComputedTableWithAProblemSet) {
  const std::vector<std::string> set = {"t/e", "t/a", "t/b", "t/c", "t/d", "t/a"};  // a duplicate is one problem
  v1::Stats stats = ComputeStats(Table(), "reference", {}, {}, nullptr, set);
  // Per job: 17 judged, 2 compile-only; 17 of 19 compiled.
  EXPECT_EQ(stats.jobs(), 17);
  EXPECT_EQ(stats.compile_only_jobs(), 2);
  EXPECT_EQ(stats.compiled(), 17);
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 17.0 / 19.0);
  EXPECT_DOUBLE_EQ(stats.correctness_rate(), 4.0 / 17.0);
  EXPECT_DOUBLE_EQ(FastP(stats, 1.0), 2.0 / 17.0);
  EXPECT_NEAR(stats.geomean_speedup(), std::pow(2.0 * 0.5 * 4.0 * 0.9, 0.25), 1e-12);
  EXPECT_EQ(stats.verdicts().at("COMPILED"), 1);
  EXPECT_EQ(stats.verdicts().at("COMPILE_ERROR"), 2);
  // Per problem, over the 5 problems of the set.
  ASSERT_TRUE(stats.has_per_problem());
  const v1::ProblemSetStats& p = stats.per_problem();
  EXPECT_EQ(p.problems(), 5);
  EXPECT_EQ(p.judged(), 3);
  EXPECT_EQ(p.unsubmitted(), 2);
  EXPECT_EQ(std::vector<std::string>(p.unsubmitted_problems().begin(), p.unsubmitted_problems().end()),
            (std::vector<std::string>{"t/d", "t/e"}));
  EXPECT_DOUBLE_EQ(p.correctness(), (2.0 / 7 + 1.0 / 5 + 1.0 / 5) / 5);  // 24/175
  EXPECT_DOUBLE_EQ(FastP(p.fast_p(), 1.0), (1.0 / 7 + 1.0 / 5 + 0.0) / 5);  // 12/175
  EXPECT_DOUBLE_EQ(FastP(p.fast_p(), 0.0), p.correctness());
  EXPECT_DOUBLE_EQ(FastP(p.fast_p(), 2.0), (0.0 + 1.0 / 5 + 0.0) / 5);  // only b's 4x is above 2
  EXPECT_EQ(p.with_speedup(), 3);
  EXPECT_NEAR(p.geomean_speedup(), std::cbrt(1.0 * 4.0 * 0.9), 1e-12);  // a: sqrt(2 x 0.5) = 1
  const v1::PassAtK* at1 = FindK(p, 1);
  const v1::PassAtK* at5 = FindK(p, 5);
  ASSERT_NE(at1, nullptr);
  ASSERT_NE(at5, nullptr);
  EXPECT_EQ(FindK(p, 10), nullptr) << "n < 10 for every problem: pass@10 is n/a";
  EXPECT_DOUBLE_EQ(at1->fraction(), p.correctness());
  EXPECT_DOUBLE_EQ(FastP(at1->fast_p(), 1.0), FastP(p.fast_p(), 1.0));
  // a: 1 - C(5,5)/C(7,5) = 20/21; b, c: n - c = 4 < 5, so 1; d, e: 0.
  EXPECT_NEAR(at5->fraction(), (20.0 / 21 + 1 + 1) / 5, 1e-12);
  // a: 1 - C(6,5)/C(7,5) = 5/7; b: 1; c: no job above 1x, 0.
  EXPECT_NEAR(FastP(at5->fast_p(), 1.0), (5.0 / 7 + 1) / 5, 1e-12);
  // Rows: every problem of the set, e marked unsubmitted, d with its compile-only jobs.
  ASSERT_EQ(stats.problems_size(), 5);
  EXPECT_EQ(stats.problems(3).problem(), "t/d");
  EXPECT_EQ(stats.problems(3).jobs(), 0);
  EXPECT_EQ(stats.problems(3).compile_only_jobs(), 2);
  EXPECT_EQ(stats.problems(3).compiled(), 1);
  EXPECT_FALSE(stats.problems(3).unsubmitted());
  EXPECT_EQ(stats.problems(4).problem(), "t/e");
  EXPECT_TRUE(stats.problems(4).unsubmitted());
  EXPECT_EQ(stats.problems(4).denominator().note(), "not submitted: counts as a failure (the problem set names it)");
}

TEST(PerProblemMetrics, WithoutAProblemSetTheSetIsTheJudgedProblems) {
  v1::Stats stats = ComputeStats(Table(), "reference", {});
  const v1::ProblemSetStats& p = stats.per_problem();
  EXPECT_EQ(p.problems(), 3);
  EXPECT_EQ(p.unsubmitted(), 0);
  EXPECT_DOUBLE_EQ(p.correctness(), (2.0 / 7 + 1.0 / 5 + 1.0 / 5) / 3);
  EXPECT_EQ(stats.problems_size(), 4);  // d's compile-only jobs still have their row
}

TEST(PerProblemMetrics, AProblemSetLeavesOutOtherProblems) {
  v1::Stats stats = ComputeStats(Table(), "reference", {}, {}, nullptr, {"t/b"});
  EXPECT_EQ(stats.jobs(), 5);
  EXPECT_EQ(stats.per_problem().problems(), 1);
  EXPECT_DOUBLE_EQ(stats.per_problem().correctness(), 0.2);
  ASSERT_EQ(stats.problems_size(), 1);
}

// One job per problem: per-problem fast_p is KernelBench's fast_p, i.e. the per-job number.
TEST(PerProblemMetrics, OneJobPerProblemEqualsThePerJobNumbers) {
  std::vector<JudgedResult> results = {{"x/1", Result(v1::CORRECT, {{"reference", 1.5}})},
                                       {"x/2", Result(v1::CORRECT, {{"reference", 0.7}})},
                                       {"x/3", Result(v1::WRONG_ANSWER)}};
  v1::Stats stats = ComputeStats(results, "reference", {});
  for (double p : kFastPThresholds) EXPECT_DOUBLE_EQ(FastP(stats.per_problem().fast_p(), p), FastP(stats, p)) << p;
  EXPECT_DOUBLE_EQ(stats.per_problem().geomean_speedup(), stats.geomean_speedup());
  EXPECT_DOUBLE_EQ(stats.per_problem().correctness(), stats.correctness_rate());
}

// A compile-only run: a compile rate, and n/a (not zeros) for everything that needs a GPU.
TEST(PerProblemMetrics, ACompileOnlyRunHasACompileRateAndNothingElse) {
  std::vector<JudgedResult> results;
  for (int i = 0; i < 251; ++i) results.push_back({"c/" + std::to_string(i), Result(v1::COMPILED), true});
  results.push_back({"c/x", Result(v1::COMPILE_ERROR), true});
  std::vector<v1::FastP> curve = {v1::FastP()};
  v1::Stats stats = ComputeStats(results, "", {}, {0.0, 1.0}, &curve, {"c/0", "c/x", "c/never"});
  EXPECT_EQ(stats.jobs(), 0);
  EXPECT_EQ(stats.compile_only_jobs(), 2);  // the set keeps c/0 and c/x
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 0.5);
  stats = ComputeStats(results, "", {}, {0.0, 1.0}, &curve);
  EXPECT_EQ(stats.compile_only_jobs(), 252);
  EXPECT_DOUBLE_EQ(stats.compile_rate(), 251.0 / 252.0);
  EXPECT_FALSE(stats.has_correctness_rate());
  EXPECT_FALSE(stats.has_geomean_speedup());
  EXPECT_EQ(stats.fast_p_size(), 0);
  EXPECT_FALSE(stats.has_per_problem());
  EXPECT_TRUE(curve.empty()) << "no curve: nothing was timed";
}

TEST(PerProblemMetrics, PassAtKEstimator) {
  EXPECT_DOUBLE_EQ(PassAtKEstimate(10, 0, 1), 0.0);
  EXPECT_DOUBLE_EQ(PassAtKEstimate(10, 3, 1), 0.3);
  EXPECT_NEAR(PassAtKEstimate(10, 3, 5), 1.0 - 21.0 / 252.0, 1e-12);  // C(7,5) / C(10,5)
  EXPECT_DOUBLE_EQ(PassAtKEstimate(10, 6, 5), 1.0);                   // n - c < k
  EXPECT_NEAR(PassAtKEstimate(200, 1, 10), 10.0 / 200.0, 1e-12);
}

TEST(PerProblemMetrics, PassAtKNeedsKJobsOnEveryJudgedProblem) {
  std::vector<JudgedResult> results;
  for (int i = 0; i < 10; ++i) results.push_back({"k/a", Result(i < 3 ? v1::CORRECT : v1::WRONG_ANSWER)});
  for (int i = 0; i < 5; ++i) results.push_back({"k/b", Result(v1::WRONG_ANSWER)});
  v1::Stats stats = ComputeStats(results, "reference", {});
  ASSERT_NE(FindK(stats.per_problem(), 5), nullptr);
  EXPECT_EQ(FindK(stats.per_problem(), 10), nullptr) << "k/b has 5 jobs";
  EXPECT_NEAR(FindK(stats.per_problem(), 5)->fraction(), (1.0 - 21.0 / 252.0) / 2, 1e-12);
}

}  // namespace
}  // namespace kjudge::server
