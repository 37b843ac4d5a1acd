#include "worker/judge/gpu_context.h"

#include "worker/gpu/str_util.h"
#include "worker/judge/cublas_baseline.h"
#include "worker/gpu/nvrtc_compiler.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

std::string VersionText(int v) { return Cat(v / 1000, ".", (v % 1000) / 10); }

GpuContext NoGpu(const RunnerOptions& options, std::string reason) {
  GpuContext ctx;
  ctx.no_gpu_reason = std::move(reason);
  ctx.info.set_compile_only(true);
  ctx.info.set_arch(options.arch.empty() ? "sm_90a" : options.arch);
  ctx.info.set_nvrtc_version(NvrtcVersionString());
  ctx.info.set_device_index(options.device);
  return ctx;
}

}  // namespace

std::string ArchFor(int major, int minor) {
  return Cat("sm_", major, minor, major >= 9 ? "a" : "");
}

std::string CudaVisibleDeviceOf(const cudaUUID_t& uuid) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
  }
  return out;
}

GpuContext DetectGpu(const RunnerOptions& options) {
  if (options.compile_only) return NoGpu(options, "started with --compile-only");
  int count = 0;
  if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
    return NoGpu(options, Cat("no GPU: cudaGetDeviceCount: ", CudaErrorText(err)));
  }
  if (count == 0) return NoGpu(options, "no GPU: cudaGetDeviceCount reports 0 devices");
  if (options.device < 0 || options.device >= count) {
    return NoGpu(options, Cat("--device ", options.device, " out of range (", count,
                                       " devices)"));
  }
  if (const cudaError_t err = cudaSetDevice(options.device); err != cudaSuccess) {
    return NoGpu(options, Cat("cudaSetDevice: ", CudaErrorText(err)));
  }
  GpuContext ctx;
  if (const cudaError_t err = cudaGetDeviceProperties(&ctx.props, options.device);
      err != cudaSuccess) {
    return NoGpu(options, Cat("cudaGetDeviceProperties: ", CudaErrorText(err)));
  }
  ctx.has_gpu = true;
  v1::GpuInfo& info = ctx.info;
  info.set_name(ctx.props.name);
  info.set_sm_count(ctx.props.multiProcessorCount);
  info.set_memory_bytes(static_cast<int64_t>(ctx.props.totalGlobalMem));
  info.set_l2_bytes(ctx.props.l2CacheSize);
  info.set_arch(options.arch.empty() ? ArchFor(ctx.props.major, ctx.props.minor) : options.arch);
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  info.set_driver_version(VersionText(driver));
  info.set_runtime_version(VersionText(runtime));
  info.set_nvrtc_version(NvrtcVersionString());
  info.set_cublas_version(CublasVersionString());
  info.set_compile_only(false);
  info.set_device_index(options.device);
  return ctx;
}

}  // namespace kjudge::runner
