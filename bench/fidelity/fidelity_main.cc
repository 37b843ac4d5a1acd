// kjudge-bench-fidelity: how faithful are kjudge's timings? For a set of kernels from ~5 us to
// ~5 ms (device copies, cuBLAS SGEMM, catalog example solutions), measures
//   (a) kjudge's median through the runner's own TimeRuns() (worker/gpu/timing.h: the same
//       warm-up, L2 flush, CUDA events and stopping rule as the verdict protocol),
//   (b) independently, in the same runs, the CUPTI Activity API durations of the run's own
//       device work (the L2-flush memset excluded), median over the same timed samples,
//   (c) the run-to-run spread of (a) over R separate jobs (fresh buffers and a fresh timing
//       session each).
// Prints a table and writes it as Markdown to --out. Without a GPU it loads and compiles the
// example solutions (so the job path is exercised), says why it cannot measure, and exits 0.
// Method and command: docs/fidelity.md.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "bench/fidelity/cupti_tracer.h"
#include "bench/fidelity/report.h"
#include "bench/fidelity/workloads.h"
#include "worker/judge/baseline_registry.h"
#include "worker/gpu/clock_monitor.h"
#include "worker/judge/cubin_cache.h"
#include "worker/gpu/device_buffer.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/event_overhead.h"
#include "worker/judge/gpu_context.h"
#include "worker/gpu/job_setup.h"
#include "worker/gpu/nvrtc_compiler.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/gpu/timing.h"

namespace kjudge::bench {
namespace {

using runner::Cat;

struct Options {
  std::string problems = "problems";
  std::string out;
  int reps = 5;
  double time_budget_ms = 2000.0;  // kjudge-runner's default --time-budget-ms
  int device = 0;
  std::string arch;
  std::string cache_dir;
  std::vector<double> copy_mib = {4, 16, 256, 4096};
  std::vector<std::string> only;
  uint64_t seed = 0;  // 0 = random
  bool no_cupti = false;
  bool verbose = false;
  std::string command_line;
};

const char* const kExampleProblems[] = {"level1/19_ReLU", "level1/23_Softmax",
                                        "level1/1_Square_matrix_multiplication_"};
const char* const kGemmProblem = "level1/1_Square_matrix_multiplication_";

std::string Msg(const absl::Status& s) { return s.ToString(); }

WorkloadResult Failed(std::string kernel, std::string size, std::string error) {
  WorkloadResult r;
  r.kernel = std::move(kernel);
  r.size = std::move(size);
  r.error = std::move(error);
  return r;
}

std::string NowUtc() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

bool Selected(const Options& o, const std::string& kernel, const std::string& size) {
  if (o.only.empty()) return true;
  for (const std::string& s : o.only) {
    if (kernel.find(s) != std::string::npos || size.find(s) != std::string::npos) return true;
  }
  return false;
}

void WriteFile(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream f(path);
  f << text;
  if (!f) {
    std::cerr << "kjudge-bench-fidelity: could not write " << path << "\n";
  } else {
    std::cerr << "kjudge-bench-fidelity: wrote " << path << "\n";
  }
}

// One job: fresh buffers, one TimeRuns() session (the job's input sets rotated, its hooks),
// optionally traced by CUPTI.
absl::StatusOr<JobMeasurement> MeasureJob(const Workload& w, uint64_t seed, bool with_cupti,
                                          CuptiTracer* tracer, runner::L2Flusher& flusher,
                                          const BenchEnv& env,
                                          const runner::TimingOptions& timing) {
  KJ_ASSIGN_OR_RETURN(std::unique_ptr<Job> job, w.prepare(seed));
  JobMeasurement m;
  m.cupti = with_cupti;
  m.hooks = job->has_hooks();
  int64_t calls = 0;
  std::vector<int64_t> sample_runs;  // which RunFn call each sample was
  // The RunFns TimeRuns gets: the job's, bracketed so CUPTI can attribute their device work.
  std::vector<runner::RunFn> runs;
  for (const runner::RunFn& inner : job->runs()) {
    runs.emplace_back([&calls, with_cupti, tracer, fn = &inner](cudaStream_t s) {
      ++calls;
      if (with_cupti) tracer->BeginRun();
      absl::Status st = (*fn)(s);
      if (with_cupti) tracer->EndRun();
      return st;
    });
  }
  runner::SampleHooks hooks;
  if (job->has_hooks()) hooks.before = [&job](size_t k) { return job->Before(k); };
  hooks.after = [&](size_t k, int64_t /*sample*/) -> absl::StatusOr<bool> {
    sample_runs.push_back(calls - 1);
    if (job->has_hooks()) return job->After(k);
    return true;
  };
  if (with_cupti) KJ_RETURN_IF_ERROR(tracer->Start(flusher.bytes()));
  absl::StatusOr<runner::TimingResult> timed =
      runner::TimeRuns(runs, env.stream, flusher, timing, &hooks);
  absl::StatusOr<Trace> trace = with_cupti ? tracer->Stop() : absl::StatusOr<Trace>(Trace{});
  if (!timed.ok()) return timed.status();
  if (!trace.ok()) return trace.status();
  if (timed->aborted) return absl::InternalError(job->why());
  m.kjudge = timed->summary;
  m.reason = timed->reason;
  m.runs = calls;
  m.input_sets = timed->input_sets;
  m.throttled = timed->throttled;
  m.busy_after_stop = timed->busy_after_stop;
  m.sm_clock_mhz = timed->mean_sm_clock_mhz;
  if (!with_cupti) return m;

  const auto total = static_cast<int64_t>(trace->runs.size());
  if (total != calls || static_cast<int64_t>(sample_runs.size()) < m.kjudge.count) {
    return absl::InternalError(Cat("CUPTI saw ", total, " runs; the timing loop made ", calls,
                                   " calls, ", sample_runs.size(), " samples, ", m.kjudge.count,
                                   " kept"));
  }
  // Every timed sample (throttled ones included: TimeRuns does not say which it discarded).
  std::vector<double> busy;
  std::vector<double> span;
  m.min_activities = INT32_MAX;
  for (int64_t i : sample_runs) {
    const RunActivity& a = trace->runs[static_cast<size_t>(i)];
    busy.push_back(a.busy_us());
    span.push_back(a.span_us());
    m.min_activities = std::min(m.min_activities, a.activities());
    m.max_activities = std::max(m.max_activities, a.activities());
  }
  if (m.max_activities == 0) {
    return absl::InternalError("CUPTI attributed no device activity to the timed runs");
  }
  m.busy = Summarize(busy);
  m.span = Summarize(span);
  m.cupti_samples = static_cast<int64_t>(sample_runs.size());
  m.flush_memsets = trace->flush_memsets;
  m.other_uncorrelated = trace->other_uncorrelated;
  m.bad_timestamps = trace->bad_timestamps;
  m.dropped_records = trace->dropped_records;
  m.kernel_names = std::move(trace->kernel_names);
  return m;
}

// R jobs with CUPTI off and R with CUPTI on, interleaved (off/on, on/off, ...) so drift over
// time (clocks, temperature) falls on both alike. Returns false after a sticky CUDA error.
bool MeasureWorkload(const Workload& w, const Options& o, uint64_t seed, CuptiTracer* tracer,
                     runner::L2Flusher& flusher, const BenchEnv& env,
                     const runner::TimingOptions& timing, WorkloadResult& result) {
  result.kernel = w.kernel;
  result.size = w.size;
  result.bytes_moved = w.bytes_moved;
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess &&
      w.device_bytes > free_bytes) {
    result.error = fmt::format("needs {:.1f} GiB of device memory, {:.1f} GiB free",
                               static_cast<double>(w.device_bytes) / (1 << 30),
                               static_cast<double>(free_bytes) / (1 << 30));
    return true;
  }
  for (int rep = 0; rep < o.reps; ++rep) {
    for (int k = 0; k < 2; ++k) {
      const bool on = (k == 1) != (rep % 2 == 1);
      if (on && tracer == nullptr) continue;
      const uint64_t job_seed = seed + 2 * static_cast<uint64_t>(rep) + (on ? 1 : 0);
      absl::StatusOr<JobMeasurement> m = MeasureJob(w, job_seed, on, tracer, flusher, env, timing);
      if (!m.ok()) {
        const runner::ErrorInfo info = runner::DescribeError(m.status());
        result.error = Cat(on ? "CUPTI-on" : "CUPTI-off", " job ", rep, ": ", info.message,
                           info.cuda_error.empty() ? "" : " (", info.cuda_error,
                           info.cuda_error.empty() ? "" : ")");
        return !info.sticky;
      }
      std::cerr << fmt::format("  {} {} job {} CUPTI {}: kjudge median {:.3f} us ({} samples){}\n",
                               w.kernel, w.size, rep, on ? "on " : "off", m->kjudge.median,
                               m->kjudge.count,
                               on ? fmt::format(", CUPTI median {:.3f} us", m->busy.median)
                                  : std::string());
      result.kernel_names.insert(m->kernel_names.begin(), m->kernel_names.end());
      (on ? result.on : result.off).push_back(*std::move(m));
    }
  }
  return true;
}

int Main(const Options& o) {
  runner::RunnerOptions ro;
  ro.device = o.device;
  ro.arch = o.arch;
  ro.cache_dir = o.cache_dir;
  ro.time_budget_ms = o.time_budget_ms;
  runner::GpuContext gpu = runner::DetectGpu(ro);
  const runner::CubinCache cache(o.cache_dir);
  BenchEnv env;
  env.gpu = &gpu;
  env.cache = &cache;

  // Load and compile the example solutions first: this part needs no GPU.
  std::vector<std::shared_ptr<LoadedProblem>> problems;
  std::vector<WorkloadResult> load_errors;
  std::shared_ptr<LoadedProblem> gemm_problem;
  for (const char* name : kExampleProblems) {
    if (!Selected(o, Cat(name, " example"), "") && !Selected(o, "cuBLAS SGEMM", "")) continue;
    absl::StatusOr<LoadedProblem> p = LoadProblem(o.problems, name, env);
    if (!p.ok()) {
      WorkloadResult r = Failed(Cat(name, " example"), "-", Msg(p.status()));
      std::cerr << "kjudge-bench-fidelity: " << r.kernel << ": " << r.error << "\n";
      load_errors.push_back(std::move(r));
      continue;
    }
    std::cerr << fmt::format("kjudge-bench-fidelity: {}: example compiled for {} ({:.0f} ms{})\n",
                             name, gpu.info.arch(), p->compile_ms,
                             p->cache_hit ? ", cache hit" : "");
    auto shared = std::make_shared<LoadedProblem>(*std::move(p));
    if (std::string(name) == kGemmProblem) gemm_problem = shared;
    problems.push_back(std::move(shared));
  }

  ReportHeader header;
  header.facts.emplace_back("date", NowUtc());
  if (!gpu.has_gpu) {
    const std::string why =
        Cat("no usable GPU (", gpu.no_gpu_reason, "): loaded and compiled ", problems.size(),
            " example solution(s) for ", gpu.info.arch(), "; measurements SKIPPED");
    std::cout << "kjudge-bench-fidelity: " << why << "\n";
    if (!o.out.empty()) {
      WriteFile(o.out, Cat("# kjudge timing fidelity\n\nSKIPPED: ", why, "\n"));
    }
    return load_errors.empty() ? 0 : 1;
  }

  // The GPU-side state a runner keeps across jobs (worker/judge/main.cc's SetUpGpu).
  absl::StatusOr<runner::Stream> stream = runner::Stream::Create();
  if (!stream.ok()) {
    std::cerr << "kjudge-bench-fidelity: " << Msg(stream.status()) << "\n";
    return 1;
  }
  env.stream = stream->get();
  absl::StatusOr<runner::DeviceUtilities> utilities =
      runner::DeviceUtilities::Create(gpu.info.arch(), cache);
  absl::StatusOr<runner::L2Flusher> flusher =
      runner::L2Flusher::Create(static_cast<size_t>(gpu.props.l2CacheSize));
  absl::StatusOr<runner::BaselineLibraries> libraries = runner::BaselineLibraries::Create();
  for (const absl::Status& s : {utilities.status(), flusher.status(), libraries.status()}) {
    if (!s.ok()) {
      std::cerr << "kjudge-bench-fidelity: GPU set-up failed: " << Msg(s) << "\n";
      return 1;
    }
  }
  env.utilities = &*utilities;
  env.libraries = &*libraries;

  // The runner's timing options (worker/judge/main.cc): defaults, its time budget and its
  // SM-clock monitor (samples under 75% of the max SM clock are discarded).
  const std::unique_ptr<runner::ClockMonitor> clock = runner::ClockMonitor::Open(o.device);
  runner::TimingOptions timing;
  timing.criteria.time_budget_ms = o.time_budget_ms;
  timing.clock = clock.get();
  // As the runner does at start-up, before the tracer: the calibration registers its own CUPTI
  // buffer callbacks, which the tracer's then replace.
  absl::StatusOr<runner::EventOverhead> overhead =
      runner::CalibrateEventOverhead(env.stream, *flusher);
  if (overhead.ok()) {
    timing.event_overhead_us = overhead->us;
    header.facts.emplace_back(
        "event overhead",
        fmt::format("{:.3f} us subtracted from every sample (runner start-up calibration: 16 MiB "
                    "copy, events {:.3f} us vs CUPTI {:.3f} us over {} samples)",
                    overhead->us, overhead->event_median_us, overhead->device_median_us,
                    overhead->samples));
  } else {
    header.facts.emplace_back("event overhead",
                              Cat("NOT calibrated, nothing subtracted: ", Msg(overhead.status())));
    (void)cudaGetLastError();
  }

  uint64_t seed = o.seed;
  if (seed == 0) {
    std::random_device rd;
    seed = (uint64_t{rd()} << 32U) ^ rd();
  }

  std::unique_ptr<CuptiTracer> tracer;
  if (o.no_cupti) {
    header.cupti_status = "disabled (--no-cupti)";
  } else {
    absl::StatusOr<std::unique_ptr<CuptiTracer>> t = CuptiTracer::Create();
    if (t.ok()) {
      tracer = *std::move(t);
    } else {
      header.cupti_status = Cat("UNAVAILABLE: ", Msg(t.status()), " (kjudge figures only)");
      std::cerr << "kjudge-bench-fidelity: CUPTI " << header.cupti_status << "\n";
    }
  }

  const v1::GpuInfo& info = gpu.info;
  header.facts.emplace_back("GPU", Cat(info.name(), ", ", info.sm_count(), " SMs, L2 ",
                                       info.l2_bytes() >> 20, " MiB, ",
                                       info.memory_bytes() >> 30, " GiB"));
  header.facts.emplace_back("software", Cat("driver ", info.driver_version(), ", runtime ",
                                            info.runtime_version(), ", NVRTC ",
                                            info.nvrtc_version(), ", cuBLAS ",
                                            info.cublas_version(), ", arch ", info.arch()));
  header.facts.emplace_back(
      "protocol",
      fmt::format("runner TimeRuns(): warm-up >= {} runs and {:.0f} ms; L2 flush of {} before "
                  "each sample; stop at RSE < {:.1f}% after >= {} samples and >= {:.0f} ms, "
                  "{:.0f} ms or {} samples",
                  timing.min_warmup_runs, timing.warmup_ms, BytesLabel(flusher->bytes()),
                  timing.criteria.max_rel_std_error * 100.0, timing.criteria.min_samples,
                  timing.criteria.min_time_ms, timing.criteria.time_budget_ms,
                  timing.criteria.max_samples));
  header.facts.emplace_back(
      "SM clock monitor",
      clock->available() ? Cat("NVML, max SM clock ", clock->max_sm_clock_mhz(), " MHz")
                         : Cat("unavailable (", clock->reason(), "): throttling not detected"));
  header.facts.emplace_back("jobs", Cat(o.reps, " with CUPTI off and ", tracer ? o.reps : 0,
                                        " with CUPTI on per kernel, interleaved; seed ", seed));

  std::vector<Workload> workloads;
  for (double mib : o.copy_mib) {
    workloads.push_back(CopyWorkload(static_cast<size_t>(mib * 1024.0 * 1024.0), env));
  }
  std::vector<WorkloadResult> results = load_errors;
  for (const auto& p : problems) {
    absl::StatusOr<std::vector<Workload>> ws = ExampleWorkloads(p, env);
    if (!ws.ok()) {
      results.push_back(Failed(Cat(p->setup.spec.name, " example"), "-", Msg(ws.status())));
      continue;
    }
    for (Workload& w : *ws) workloads.push_back(std::move(w));
  }
  if (gemm_problem) {
    absl::StatusOr<std::vector<Workload>> ws = CublasWorkloads(gemm_problem, env);
    if (!ws.ok()) {
      results.push_back(Failed("cuBLAS SGEMM", "-", Msg(ws.status())));
    } else {
      for (Workload& w : *ws) workloads.push_back(std::move(w));
    }
  }

  bool failed = !results.empty();
  for (const Workload& w : workloads) {
    if (!Selected(o, w.kernel, w.size)) continue;
    std::cerr << "kjudge-bench-fidelity: measuring " << w.kernel << " " << w.size << "\n";
    WorkloadResult r;
    const bool usable = MeasureWorkload(w, o, seed, tracer.get(), *flusher, env, timing, r);
    failed = failed || !r.error.empty();
    results.push_back(std::move(r));
    if (!usable) {
      std::cerr << "kjudge-bench-fidelity: sticky CUDA error; stopping here\n";
      break;
    }
  }

  header.facts.emplace_back("command", "`" + o.command_line + "`");

  std::cout << ConsoleTable(results);
  WriteFile(o.out, Markdown(header, results));
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace kjudge::bench

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("fidelity");
  spdlog::set_default_logger(logger);

  kjudge::bench::Options o;
  for (int i = 0; i < argc; ++i) {
    o.command_line += (i == 0 ? "" : " ");
    o.command_line += argv[i];
  }
  CLI::App app{
      "kjudge-bench-fidelity: compares kjudge's timings (the runner's TimeRuns) with CUPTI "
      "kernel durations in the same runs, and measures their run-to-run spread"};
  app.add_option("--problems", o.problems, "problem catalog root")->capture_default_str();
  app.add_option("--out", o.out, "write the report as Markdown here");
  app.add_option("--reps", o.reps, "jobs per kernel and CUPTI condition (R)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--time-budget-ms", o.time_budget_ms,
                 "timing budget per job, as kjudge-runner --time-budget-ms")
      ->capture_default_str();
  app.add_option("--device", o.device, "CUDA device index")->capture_default_str();
  app.add_option("--arch", o.arch, "NVRTC target (default: from the device)");
  app.add_option("--cache-dir", o.cache_dir, "cubin cache directory (none if empty)");
  app.add_option("--copy-mib", o.copy_mib, "device-copy sizes in MiB")->capture_default_str();
  app.add_option("--only", o.only, "measure only kernels whose name or size contains this");
  app.add_option("--seed", o.seed, "job seed (0 = random)");
  app.add_flag("--no-cupti", o.no_cupti, "kjudge figures and spread only");
  app.add_flag("-v,--verbose", o.verbose, "runner library logs at info level");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(o.verbose ? spdlog::level::info : spdlog::level::warn);
  return kjudge::bench::Main(o);
}
