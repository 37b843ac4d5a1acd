// kjudge-runner: the child process that compiles, loads, launches, checks and times untrusted
// kernels for kjudge-worker. Protocol: proto/kjudge/v1/runner.proto (JSON lines on
// stdin/stdout; logs on stderr).
//
// Exit status: 0 when stdin closes; 3 after a sticky CUDA error (its Result was written
// first); 2 for a bad command line; 1 when the GPU environment cannot be set up or stdout is
// gone.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "proto/hardware_key.h"
#include "proto/proto_json.h"
#include "worker/runner/baseline_registry.h"
#include "worker/runner/ceilings.h"
#include "worker/runner/clock_monitor.h"
#include "worker/runner/cubin_cache.h"
#include "worker/runner/device_buffer.h"
#include "worker/runner/device_utilities.h"
#include "worker/runner/event_overhead.h"
#include "worker/runner/gpu_context.h"
#include "worker/runner/result_proto.h"
#include "worker/runner/runner_error.h"
#include "worker/runner/runner_io.h"
#include "worker/runner/str_util.h"
#include "worker/runner/timing.h"
#include "worker/runner/verdict_protocol.h"

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

int Serve(const RunnerOptions& options) {
  MessageWriter writer(std::cout);
  GpuContext gpu = DetectGpu(options);
  const CubinCache cache(options.cache_dir);
  GpuResources res;
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
  env.timing.criteria.time_budget_ms = options.time_budget_ms;
  env.timing.clock = res.clock.get();
  env.timing.event_overhead_us = gpu.info.event_overhead_us();
  env.uncalibrated_reason = res.event_overhead_error;

  std::string line;
  while (std::getline(std::cin, line)) {
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
  CLI11_PARSE(app, argc, argv);
  return kjudge::runner::Serve(options);
}
