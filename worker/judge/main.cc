// kjudge-runner: the child process that compiles, loads, launches, checks and times untrusted
// kernels for kjudge-worker. Protocol: proto/kjudge/v1/runner.proto (JSON lines on
// stdin/stdout; logs on stderr).
//
// Exit status: 0 when stdin closes; 3 after a sticky CUDA error (its Result was written
// first); 2 for a bad command line; 1 when the GPU environment cannot be set up or stdout is
// gone.
#include <unistd.h>

#include <ext/stdio_filebuf.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "proto/hardware_key.h"
#include "proto/proto_json.h"
#include "worker/judge/baseline_registry.h"
#include "worker/judge/ceilings.h"
#include "worker/gpu/clock_monitor.h"
#include "worker/judge/cubin_cache.h"
#include "worker/gpu/device_buffer.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/event_overhead.h"
#include "worker/judge/gpu_context.h"
#include "worker/judge/result_proto.h"
#include "worker/gpu/runner_error.h"
#include "worker/judge/runner_io.h"
#include "worker/gpu/str_util.h"
#include "worker/gpu/timing.h"
#include "worker/judge/verdict_protocol.h"
#include "proto/result_caps.h"
#include "worker/oracle_client/oracle_process.h"

namespace kjudge::runner {
namespace {

// The GPU-side state a runner keeps across jobs.
struct GpuResources {
  std::optional<Stream> stream;
  std::optional<DeviceUtilities> utilities;
  std::optional<L2Flusher> flusher;
  std::optional<BaselineLibraries> libraries;
  std::unique_ptr<ClockMonitor> clock;
  std::string event_overhead_error;  // why it is not calibrated ("" when it is)
};

// The events' fixed overhead (event_overhead.h). Without it every timing keeps the ~2.5 us the
// event pair adds, and says so in its flags.
void CalibrateEvents(GpuContext& gpu, GpuResources& res) {
  absl::StatusOr<EventOverhead> overhead =
      CalibrateEventOverhead(res.stream->get(), *res.flusher);
  if (!overhead.ok()) {
    res.event_overhead_error = std::string(overhead.status().message());
    spdlog::warn("event overhead not calibrated, timings include it: {}",
                 res.event_overhead_error);
    (void)cudaGetLastError();
    return;
  }
  gpu.info.set_event_overhead_us(overhead->us);
  spdlog::info("event overhead {:.3f} us (16 MiB copy: events {:.3f} us, CUPTI {:.3f} us, {} "
               "samples): subtracted from every timing sample",
               overhead->us, overhead->event_median_us, overhead->device_median_us,
               overhead->samples);
}

// What an earlier runner of the same worker measured (--measured-gpu, the GpuInfo of its
// Hello), taken over when it describes this very GPU and software and is complete: a runner
// restarted after a sticky fault or a timeout is then ready in a fraction of a second instead
// of measuring everything again (~0.8 s on an H200). False: measure.
bool ReuseMeasurements(const std::string& json, GpuContext& gpu) {
  if (json.empty()) return false;
  v1::GpuInfo earlier;
  if (absl::Status s = FromJson(json, &earlier); !s.ok()) {
    spdlog::warn("--measured-gpu ignored: {}", s.ToString());
    return false;
  }
  const double overhead = earlier.event_overhead_us();
  earlier.set_event_overhead_us(0.0);  // this runner's GpuInfo has none yet
  earlier.clear_torch_version();       // nor its oracle's version
  if (HardwareKey(earlier) != HardwareKey(gpu.info) || overhead <= 0.0 ||
      earlier.copy_bandwidth_gbs() <= 0.0 || earlier.sgemm_tflops() <= 0.0) {
    spdlog::info("--measured-gpu is not for this GPU or incomplete: measuring");
    return false;
  }
  gpu.info.set_event_overhead_us(overhead);
  gpu.info.set_copy_bandwidth_gbs(earlier.copy_bandwidth_gbs());
  gpu.info.set_sgemm_tflops(earlier.sgemm_tflops());
  gpu.info.set_tf32_tflops(earlier.tf32_tflops());
  gpu.info.set_fp16_tflops(earlier.fp16_tflops());
  gpu.info.set_bf16_tflops(earlier.bf16_tflops());
  spdlog::info("event overhead {:.3f} us and ceilings taken over from this worker's first runner",
               overhead);
  return true;
}

// The GPU's ceilings (ceilings.h) and max SM clock, into the Hello's GpuInfo (the worker
// passes them on at registration). A failed measurement leaves zeros: no SOL%, no floor.
void MeasureGpu(GpuContext& gpu, GpuResources& res, const RunnerOptions& options) {
  res.clock = ClockMonitor::Open(options.device);
  if (res.clock->available()) {
    gpu.info.set_max_sm_clock_mhz(res.clock->max_sm_clock_mhz());
  } else {
    spdlog::warn("no SM clock monitoring: {}", res.clock->reason());
  }
  if (ReuseMeasurements(options.measured_gpu, gpu)) return;
  CalibrateEvents(gpu, res);
  absl::StatusOr<Ceilings> ceilings =
      MeasureCeilings(res.stream->get(), res.libraries->cublas(), *res.utilities);
  if (!ceilings.ok()) {
    spdlog::warn("measuring the GPU's ceilings failed: {}", ceilings.status().ToString());
    (void)cudaGetLastError();
    return;
  }
  gpu.info.set_copy_bandwidth_gbs(ceilings->copy_gbs);
  gpu.info.set_sgemm_tflops(ceilings->sgemm_tflops);
  gpu.info.set_tf32_tflops(ceilings->tf32_tflops);
  gpu.info.set_fp16_tflops(ceilings->fp16_tflops);
  gpu.info.set_bf16_tflops(ceilings->bf16_tflops);
  spdlog::info("ceilings: device copy {:.1f} GB/s (read + write), GEMM TFLOP/s: SGEMM {:.1f}, "
               "TF32 {:.1f}, FP16 {:.1f}, BF16 {:.1f}; max SM clock {} MHz",
               ceilings->copy_gbs, ceilings->sgemm_tflops, ceilings->tf32_tflops,
               ceilings->fp16_tflops, ceilings->bf16_tflops, gpu.info.max_sm_clock_mhz());
}

absl::Status SetUpGpu(const GpuContext& gpu, const CubinCache& cache, GpuResources& res) {
  KJ_ASSIGN_OR_RETURN(Stream stream, Stream::Create());
  res.stream.emplace(std::move(stream));
  KJ_ASSIGN_OR_RETURN(DeviceUtilities utilities, DeviceUtilities::Create(gpu.info.arch(), cache));
  res.utilities.emplace(std::move(utilities));
  KJ_ASSIGN_OR_RETURN(L2Flusher flusher,
                      L2Flusher::Create(static_cast<size_t>(gpu.props.l2CacheSize)));
  res.flusher.emplace(std::move(flusher));
  KJ_ASSIGN_OR_RETURN(BaselineLibraries libraries, BaselineLibraries::Create());
  res.libraries.emplace(std::move(libraries));
  return absl::OkStatus();
}

v1::RunnerMessage ErrorResult(v1::Verdict verdict, const std::string& message) {
  v1::RunnerMessage m;
  m.mutable_result()->mutable_result()->set_verdict(verdict);
  m.mutable_result()->mutable_result()->set_message(message);
  return m;
}

// The candidate binary: --candidate, else kjudge-candidate beside this binary.
std::string CandidatePath(const std::string& flag) {
  if (!flag.empty()) return flag;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "kjudge-candidate";
  return (self.parent_path() / "kjudge-candidate").string();
}

struct ServeOptions {
  int protocol_fd = -1;  // -1: stdin/stdout
  std::string candidate;
  int64_t candidate_timeout_ms = 15000;
  bool no_oracle = false;
  bool no_torch_compile = false;  // no torch_compile baselines, no compile oracle
  std::string torch_compile_cache;  // "": the compile oracle's private HOME (lost at exit)
  size_t compile_oracle_keys = 8;   // modules (and their compiles) the compile oracle keeps
  int compile_children = 1;         // its compiles in child processes at a time
  bool oracle_cross_check = false;  // compare the oracle with reference.cu where both exist
  std::string oracle_python;  // "": python3 on PATH
  int64_t oracle_timeout_ms = 120000;
  // The compile limits (worker/compiler/compile_limits.h): CPU seconds (the wall limit
  // follows), the largest cubin, and the cubin cache's total size.
  int compile_cpu_seconds = compiler::kDefaultCompileCpuSeconds;
  uint64_t cubin_max_mib = compiler::kDefaultCubinMib;
  uint64_t cache_max_mib = kDefaultCubinCacheMib;
};

// The PyTorch oracle (worker/oracle_client/): spawned before the GPU is measured so torch's
// import overlaps it; Finish() (before the Hello) waits for its hello. None in compile-only
// mode or with --no-oracle: torch_version stays "" and problems without reference.cu are not
// served here.
void BeginOracle(const ServeOptions& serve, bool has_gpu, oracle::OracleKeeper& keeper) {
  if (serve.no_oracle) return keeper.Disable("--no-oracle");
  if (!has_gpu) return keeper.Disable("no GPU on this runner, or --compile-only");
  keeper.Begin();
}

void FinishOracle(oracle::OracleKeeper& keeper, GpuContext& gpu) {
  keeper.Finish();
  if (keeper.available()) {
    gpu.info.set_torch_version(keeper.torch_version());
    spdlog::info("PyTorch oracle ready: torch {}", keeper.torch_version());
    return;
  }
  spdlog::warn("no PyTorch oracle: {}", keeper.why_not());
  if (gpu.has_gpu && gpu.no_gpu_reason.empty()) {
    gpu.no_gpu_reason = Cat("no PyTorch oracle: ", keeper.why_not());
  }
}

int Serve(const RunnerOptions& options, const ServeOptions& serve) {
  // The protocol with the worker: a dedicated descriptor when given (the worker passes one),
  // so nothing that writes to stdout can ever be read as a message.
  std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> in_buf;
  std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> out_buf;
  std::unique_ptr<std::istream> in_stream;
  std::unique_ptr<std::ostream> out_stream;
  std::istream* in = &std::cin;
  std::ostream* out = &std::cout;
  if (serve.protocol_fd >= 0) {
    in_buf = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(dup(serve.protocol_fd),
                                                               std::ios::in);
    out_buf = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(serve.protocol_fd, std::ios::out);
    in_stream = std::make_unique<std::istream>(in_buf.get());
    out_stream = std::make_unique<std::ostream>(out_buf.get());
    in = in_stream.get();
    out = out_stream.get();
    dup2(STDERR_FILENO, STDOUT_FILENO);  // stray prints go to the log, never to the worker
  }
  MessageWriter writer(*out);
  GpuContext gpu = DetectGpu(options);
  CubinCache cache(options.cache_dir, serve.cache_max_mib << 20);
  {
    compiler::SandboxedCompilerOptions compiler_options;
    compiler_options.limits.cpu_seconds = serve.compile_cpu_seconds;
    compiler_options.limits.cubin_bytes = serve.cubin_max_mib << 20;
    cache.UseCompiler(std::make_shared<const compiler::SandboxedCompiler>(std::move(compiler_options)));
  }
  GpuResources res;
  oracle::OracleOptions oracle_options;
  oracle_options.python = serve.oracle_python;
  // The oracles (and their compile children) see this runner's device alone, as their device 0.
  if (gpu.has_gpu) {
    oracle_options.env.push_back("CUDA_VISIBLE_DEVICES=" + CudaVisibleDeviceOf(gpu.props.uuid));
  }
  oracle_options.request_timeout = std::chrono::milliseconds(serve.oracle_timeout_ms);
  // Well inside the worker's 60 s wait for the Hello (runner_supervisor.h), GPU set-up included:
  // an oracle slower than this leaves the runner without one (torch_version "").
  oracle_options.hello_timeout = std::chrono::milliseconds(30000);
  oracle::OracleKeeper oracle(oracle_options);
  // The compile oracle: the same package in a second process, begun by the first job that
  // needs a torch_compile (never at start-up: a runner without such jobs pays nothing). Its own
  // process so a compile's GIL never stalls the eager oracle's expected outputs.
  oracle::OracleOptions compile_options =
      oracle::CompileOracleOptions(oracle_options, serve.torch_compile_cache);
  compile_options.hello_timeout = std::chrono::milliseconds(60000);  // a job's, not the Hello's
  compile_options.keys = serve.compile_oracle_keys;
  compile_options.env.push_back("KJUDGE_COMPILE_CHILDREN=" + std::to_string(serve.compile_children));
  // No job waits on it: its start (torch imports, ~5 s) and its answers while Triton compiles
  // (which holds the interpreter) are skipped for the job, not waited for (measured on an H100:
  // a first job that waited for its hello took 8.7 s instead of ~1 s, and with 250 ms of
  // patience the throughput bench ran 14% slower; an idle oracle answers a load in ~1 ms).
  compile_options.patience = std::chrono::milliseconds(20);
  oracle::OracleKeeper compile_oracle(compile_options);
  BeginOracle(serve, gpu.has_gpu && !options.compile_only, oracle);
  if (gpu.has_gpu) {
    if (absl::Status s = SetUpGpu(gpu, cache, res); !s.ok()) {
      spdlog::error("GPU set-up failed: {}", s.ToString());
      gpu.info.set_compile_only(true);
      gpu.has_gpu = false;
      gpu.no_gpu_reason = Cat("GPU set-up failed: ", s.message());
    } else {
      MeasureGpu(gpu, res, options);
    }
  }
  FinishOracle(oracle, gpu);
  v1::RunnerMessage hello;
  *hello.mutable_hello()->mutable_gpu() = gpu.info;
  hello.mutable_hello()->set_error(gpu.no_gpu_reason);
  if (!writer.Write(hello).ok()) return 1;
  spdlog::info("runner ready: {} ({}){}", gpu.has_gpu ? gpu.info.name() : "no GPU",
               gpu.info.arch(), gpu.has_gpu ? "" : Cat(": ", gpu.no_gpu_reason));

  RunnerEnv env;
  env.gpu = &gpu;
  env.cache = &cache;
  if (gpu.has_gpu) {
    env.utilities = &*res.utilities;
    env.flusher = &*res.flusher;
    env.libraries = &*res.libraries;
    env.stream = res.stream->get();
  }
  env.device = options.device;
  if (gpu.has_gpu) env.oracle = &oracle;
  if (gpu.has_gpu && oracle.available() && !serve.no_torch_compile) {
    env.compile_oracle = &compile_oracle;
  }
  env.oracle_cross_check = serve.oracle_cross_check;
  CandidateLauncher candidates(CandidatePath(serve.candidate), options.device,
                               std::chrono::milliseconds(serve.candidate_timeout_ms));
  if (gpu.has_gpu) {
    env.candidates = &candidates;
    candidates.Warm();  // its CUDA start-up overlaps the wait for the first job
  }
  env.timing.criteria.time_budget_ms = options.time_budget_ms;
  env.timing.clock = res.clock.get();
  env.timing.event_overhead_us = gpu.info.event_overhead_us();
  env.uncalibrated_reason = res.event_overhead_error;

  std::string line;
  while (std::getline(*in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    absl::StatusOr<v1::RunnerRequest> request = ParseRequest(line);
    if (!request.ok()) {
      if (!writer.Write(ErrorResult(v1::REJECTED, std::string(request.status().message()))).ok()) {
        return 1;
      }
      continue;
    }
    VerdictProtocol protocol(env, request->spec(), [&writer](v1::Stage s, int done, int total) {
      writer.Progress(s, done, total);
    });
    v1::RunnerMessage message;
    *message.mutable_result() = protocol.Run();
    message.mutable_result()->set_runner_exits(protocol.sticky());
    // Every client-visible text bounded before it leaves the judge (the server caps again).
    CapResultText(message.mutable_result()->mutable_result());
    if (!writer.Write(message).ok()) return 1;
    if (protocol.sticky()) {
      spdlog::error("sticky CUDA error: exiting with status {}", kStickyExitCode);
      std::_Exit(kStickyExitCode);  // the context is unusable: skip CUDA teardown
    }
  }
  return 0;
}

}  // namespace
}  // namespace kjudge::runner

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("runner");
  spdlog::set_default_logger(logger);
  std::ios::sync_with_stdio(false);

  kjudge::runner::RunnerOptions options;
  CLI::App app{"kjudge-runner: compiles, checks and times untrusted CUDA kernels for a worker"};
  app.add_option("--device", options.device, "CUDA device index")->capture_default_str();
  app.add_option("--arch", options.arch,
                 "NVRTC target, e.g. sm_90a (default: from the device; sm_90a without one)");
  app.add_option("--cache-dir", options.cache_dir, "cubin cache directory (none if empty)");
  app.add_flag("--compile-only", options.compile_only, "never touch a GPU; only compile");
  app.add_option("--time-budget-ms", options.time_budget_ms, "timing budget per bench shape")
      ->capture_default_str();
  app.add_option("--measured-gpu", options.measured_gpu,
                 "GpuInfo JSON of an earlier runner's Hello on this GPU: reuse its ceilings and "
                 "event overhead instead of measuring (the worker passes it on restarts)");
  kjudge::runner::ServeOptions serve;
  app.add_option("--protocol-fd", serve.protocol_fd,
                 "descriptor for the worker protocol (both directions); default stdin/stdout");
  app.add_option("--candidate", serve.candidate,
                 "the kjudge-candidate binary (default: beside this one)");
  app.add_option("--compile-cpu-seconds", serve.compile_cpu_seconds,
                 "CPU seconds one compile may take; its wall-clock limit is twice that plus 5 s. "
                 "A compile past either is a COMPILE_ERROR naming the limit")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app.add_option("--cubin-max-mib", serve.cubin_max_mib,
                 "the largest cubin a compile may produce (MiB; larger is a COMPILE_ERROR)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--cache-max-mib", serve.cache_max_mib,
                 "total size of the cubin cache (MiB); the least recently used entries are "
                 "removed past it")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--candidate-timeout-ms", serve.candidate_timeout_ms,
                 "how long one request to a candidate process may take before its kernels "
                 "count as hung (TIMEOUT; the candidate is killed, the runner stays)")
      ->capture_default_str();
  app.add_flag("--no-oracle", serve.no_oracle,
               "do not start the PyTorch oracle: torch_version stays empty and problems "
               "without reference.cu are not served by this runner");
  app.add_flag("--no-torch-compile", serve.no_torch_compile,
               "do not time torch_compile baselines of PyTorch problems. By default a second "
               "oracle process (started by the first job that needs it) compiles each module "
               "in the background, one core, and a later job of the problem times it; no job "
               "waits for a compile. Use this where the extra process (its CUDA context, a "
               "core while compiling) is not wanted");
  app.add_option("--torch-compile-cache", serve.torch_compile_cache,
                 "a lasting torch.compile (Inductor) cache folder for the compile oracle, "
                 "e.g. one filled ahead by `python3 -m kjudge_oracle.warm_compile --cache DIR` "
                 "(docs/pytorch-problems.md); default: the oracle's private HOME, lost when it "
                 "exits. Keep it writable by this user only: the compile oracle loads its code")
      ->check(CLI::ExistingDirectory);
  app.add_option("--compile-oracle-keys", serve.compile_oracle_keys,
                 "how many (problem, bench shape) modules the compile oracle keeps with their "
                 "compiles (least recently used dropped). A compile started by one job is timed "
                 "by a later one only while its module is kept: raise it when many problems are "
                 "judged in turn (a catalog's baselines), at the cost of the kept modules' GPU "
                 "memory")
      ->capture_default_str()->check(CLI::Range(1, 4096));
  app.add_option("--compile-children", serve.compile_children,
                 "how many torch.compile child processes the compile oracle runs at a time (each "
                 "takes a core and some GPU memory while it compiles; the timing of a compiled "
                 "module waits until no compile is running). Raise it to fill a catalog's "
                 "torch_compile baselines quickly")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_flag("--oracle-cross-check", serve.oracle_cross_check,
               "on problems with both reference.cu and reference.py, also run the PyTorch oracle "
               "on every test shape and fail the job (INTERNAL_ERROR, naming the shape and the "
               "first mismatches) where reference.cu's outputs miss the oracle's by more than the "
               "problem's tolerance: a check of the catalog's two references, not for serving");
  app.add_option("--oracle-python", serve.oracle_python,
                 "the python3 with torch that runs the PyTorch oracle (default: python3 on PATH)");
  app.add_option("--oracle-timeout-ms", serve.oracle_timeout_ms,
                 "how long one oracle request (a module run, a compile poll) may take before "
                 "the oracle is killed (the job is INTERNAL_ERROR; the next job starts a new one)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return kjudge::runner::Serve(options, serve);
}
