#include "client/job_view.h"

#include <cmath>

#include "common/oracle_baselines.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/result_caps.h"

namespace kjudge::client {
namespace {

std::string StageName(v1::Stage stage) {
  switch (stage) {
    case v1::STAGE_QUEUED: return "queued";
    case v1::STAGE_COMPILING: return "compiling";
    case v1::STAGE_CHECKING: return "checking";
    case v1::STAGE_TIMING: return "timing";
    case v1::STAGE_BASELINE: return "measuring baseline";
    case v1::STAGE_DONE: return "done";
    default: return "starting";
  }
}

void PrintTests(const v1::JobResult& result, std::ostream& out) {
  if (result.tests().empty()) return;
  int passed = 0;
  for (const v1::TestOutcome& test : result.tests()) passed += test.passed() ? 1 : 0;
  out << absl::StrFormat("  tests: %d/%d shapes passed\n", passed, result.tests_size());
  for (const v1::TestOutcome& test : result.tests()) {
    out << absl::StrFormat("    %-4s %-24s max abs err %.3g, max rel err %.3g, rel L2 %.3g", test.passed() ? "ok" : "FAIL",
                           test.shape(), test.max_abs_error(), test.max_rel_error(), test.rel_l2_error());
    if (test.mismatch_count() > 0) out << ", " << test.mismatch_count() << " mismatches";
    if (test.unwritten_count() > 0) out << ", " << test.unwritten_count() << " unwritten";
    out << "\n";
    if (!test.detail().empty() && !test.passed()) out << "         " << test.detail() << "\n";
    for (const v1::Mismatch& m : test.first_mismatches()) {
      out << absl::StrFormat("         %s[%d]: expected %.9g, got %.9g\n", m.tensor(), m.index(), m.expected(),
                             m.actual());
    }
  }
}

// What a baseline is, in words, from the server's description of the default choice.
std::string BaselineLabel(const v1::JobResult& result, const std::string& name) {
  if (name == "reference") return "catalog kernel";
  if (name == kTorchEagerBaseline) return "PyTorch eager, KernelBench's definition";
  if (name == kTorchEagerFp32Baseline) return "PyTorch eager, TF32 off everywhere";
  if (name == kTorchCompileBaseline) return "torch.compile";
  for (const v1::BaselineStrength& s : result.default_denominator().considered()) {
    if (s.baseline() == name && s.kind() == v1::BASELINE_KIND_LIBRARY) return "library";
  }
  return "";
}

double GeomeanOf(const v1::JobResult& result, const std::string& name) {
  double log_sum = 0.0;
  int count = 0;
  for (const v1::Speedup& speedup : result.speedups()) {
    if (speedup.baseline() != name || !(speedup.speedup() > 0)) continue;
    log_sum += std::log(speedup.speedup());
    ++count;
  }
  return count > 0 ? std::exp(log_sum / count) : 0.0;
}

// Every speedup names its baseline; the default one (the server's choice) is marked, and
// KernelBench's number (vs torch_eager) is repeated beside it when the job has one.
void PrintSpeedups(const v1::JobResult& result, std::ostream& out) {
  if (result.speedups().empty()) return;
  const v1::Denominator& chosen = result.default_denominator();
  for (const v1::Speedup& speedup : result.speedups()) {
    const std::string label = BaselineLabel(result, speedup.baseline());
    const bool is_default = !chosen.baseline().empty() && speedup.baseline() == chosen.baseline();
    out << absl::StrFormat("  speedup vs %s%s at %s: %.3fx%s\n", speedup.baseline(),
                           label.empty() ? "" : " (" + label + ")", speedup.shape(), speedup.speedup(),
                           is_default ? "   <- default" : "");
  }
  if (!result.has_default_denominator()) {
    out << "  (no default speedup recorded: this result predates it; every speedup above names its baseline)\n";
    return;
  }
  if (chosen.baseline().empty()) {
    out << "  default speedup: none, " << chosen.note() << "\n";
    return;
  }
  out << absl::StrFormat("  default speedup: %.3fx %s\n", GeomeanOf(result, chosen.baseline()), chosen.note());
  if (chosen.baseline() != kTorchEagerBaseline && GeomeanOf(result, kTorchEagerBaseline) > 0) {
    out << absl::StrFormat("  KernelBench speedup: %.3fx vs torch_eager (PyTorch eager)\n",
                           GeomeanOf(result, kTorchEagerBaseline));
  }
}

void PrintTimings(const v1::JobResult& result, std::ostream& out) {
  for (const v1::ShapeTiming& shape : result.timings()) {
    const v1::Timing& t = shape.timing();
    out << absl::StrFormat("  time %s: median %.2f us (mean %.2f, std %.2f, min %.2f, p95 %.2f, p99 %.2f; "
                           "%d samples, %d checked, %d input sets",
                           shape.shape(), t.median_us(), t.mean_us(), t.std_us(), t.min_us(), t.p95_us(), t.p99_us(),
                           t.samples(), t.checked_samples(), t.input_sets());
    if (t.throttled_samples() > 0) out << absl::StrFormat(", %d discarded as throttled", t.throttled_samples());
    out << ")\n";
    if (t.floor_us() > 0) {
      out << absl::StrFormat("    speed of light: %.1f%% (physical floor %.2f us)\n", t.sol_percent(), t.floor_us());
    }
  }
  PrintSpeedups(result, out);
  for (const std::string& flag : result.flags()) out << "  flag: " << flag << "\n";
}

// A baselines-only job's result: the baselines the server stored from it.
void PrintBaselines(const v1::JobResult& result, std::ostream& out) {
  for (const v1::BaselineTiming& b : result.baselines()) {
    out << absl::StrFormat("  baseline %s at %s: median %.2f us (%d samples)", b.name(), b.shape(),
                           b.timing().median_us(), b.timing().samples());
    if (b.timing().floor_us() > 0) out << absl::StrFormat(", speed of light %.1f%%", b.timing().sol_percent());
    out << "\n";
  }
}

// A kernel's name for a person: the plan's name expressions that lowered to it, else its
// lowered name; control bytes blanked (the server caps the texts already).
std::string KernelLabel(const v1::KernelResources& kernel) {
  std::string label;
  for (const std::string& name : kernel.plan_names()) absl::StrAppend(&label, label.empty() ? "" : ", ", name);
  if (label != kernel.name()) label = label.empty() ? kernel.name() : absl::StrCat(label, " (", kernel.name(), ")");
  for (char& c : label) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return label;
}

// Each compiled kernel's resources (JobResult.kernels: ptxas' report, no GPU needed).
void PrintKernels(const v1::JobResult& result, std::ostream& out) {
  if (result.kernels().empty()) return;
  out << "  kernels (per thread: registers, spill stores/loads, local; per block: shared, threads):\n";
  for (const v1::KernelResources& k : result.kernels()) {
    out << absl::StrFormat("    %s: %d registers, spills %d/%d B, local %d B, shared %d B static + %d B dynamic, "
                           "max %d threads/block\n",
                           KernelLabel(k), k.registers(), k.spill_store_bytes(), k.spill_load_bytes(),
                           k.local_bytes(), k.static_shared_bytes(), k.dynamic_shared_bytes(),
                           k.max_threads_per_block());
  }
  if (result.kernels_cut() > 0) {
    out << absl::StrFormat("    ... and %d more kernels, not listed (at most %d are)\n", result.kernels_cut(),
                           result.kernels_size());
  }
}

}  // namespace

std::string WaitingReasonText(const v1::Job& job) {
  // The server writes it (worker_capacity.cc); capped anyway, as every text from the server.
  constexpr size_t kMaxReason = 400;
  std::string reason = job.waiting_reason().substr(0, kMaxReason);
  for (char& c : reason) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return reason;
}

std::string ProgressLine(const v1::Job& job) {
  std::string line = absl::StrCat("job ", job.id(), ": ", StageName(job.stage()));
  if (job.state() == v1::QUEUED && job.queue_position() > 0) {
    absl::StrAppend(&line, " (position ", job.queue_position(), ")");
  } else if (job.progress_total() > 0) {
    absl::StrAppend(&line, " ", job.progress_done(), "/", job.progress_total());
  }
  if (job.attempts() > 1) absl::StrAppend(&line, " [attempt ", job.attempts(), "]");
  if (job.state() == v1::QUEUED && !job.waiting_reason().empty()) {
    absl::StrAppend(&line, ": ", WaitingReasonText(job));
  }
  return line;
}

void PrintReport(const v1::Job& job, std::ostream& out) {
  if (job.state() != v1::DONE) {
    out << ProgressLine(job) << "\n";
    return;
  }
  // The server caps a result's texts before storing it; the CLI does not rely on that.
  v1::JobResult result = job.result();
  CapResultText(&result);
  out << "job " << job.id() << " · " << job.problem() << " · " << v1::Verdict_Name(result.verdict())
      << (job.baselines_only() ? " (baselines only)" : "") << "\n";
  if (!result.message().empty()) out << "  " << result.message() << "\n";
  if (result.compile_ms() > 0) {
    out << absl::StrFormat("  compiled in %.0f ms%s\n", result.compile_ms(),
                           result.cubin_cache_hit() ? " (cubin cache hit)" : "");
  }
  PrintKernels(result, out);
  if (result.verdict() == v1::COMPILE_ERROR && !result.compile_log().empty()) {
    out << "  compile log:\n" << result.compile_log() << "\n";
  }
  if (!result.cuda_error().empty()) out << "  CUDA error: " << result.cuda_error() << "\n";
  PrintTests(result, out);
  PrintTimings(result, out);
  PrintBaselines(result, out);
  if (!result.gpu().empty()) out << "  gpu: " << result.gpu() << "\n";
  if (result.seed() != 0) out << absl::StrFormat("  seed: 0x%016x\n", result.seed());
}

}  // namespace kjudge::client
