#include "worker/runner/ceilings.h"

#include <algorithm>
#include <functional>

#include "worker/runner/device_buffer.h"
#include "worker/runner/runner_error.h"
#include "worker/runner/str_util.h"

namespace kjudge::runner {
namespace {

constexpr size_t kGiB = size_t{1} << 30U;

// Best time (ms) of `timed` runs of `op` after `warmup` runs.
absl::StatusOr<double> BestMs(const std::function<absl::Status()>& op, int warmup, int timed,
                              cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) KJ_RETURN_IF_ERROR(op());
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(stream), "ceiling warm-up"));
  KJ_ASSIGN_OR_RETURN(Event start, Event::Create());
  KJ_ASSIGN_OR_RETURN(Event stop, Event::Create());
  double best = 0.0;
  for (int i = 0; i < timed; ++i) {
    KJ_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(start.get(), stream), "cudaEventRecord"));
    KJ_RETURN_IF_ERROR(op());
    KJ_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop.get(), stream), "cudaEventRecord"));
    KJ_RETURN_IF_ERROR(SyncStatus(cudaEventSynchronize(stop.get()), "ceiling run"));
    float ms = 0.0F;
    KJ_RETURN_IF_ERROR(CudaStatus(cudaEventElapsedTime(&ms, start.get(), stop.get()),
                                  "cudaEventElapsedTime"));
    if (ms > 0.0F && (best == 0.0 || ms < best)) best = ms;
  }
  return best;
}

absl::StatusOr<double> CopyBandwidth(cudaStream_t stream, size_t budget) {
  const size_t bytes = std::min(kGiB, budget / 2);
  if (bytes < (size_t{64} << 20U)) return 0.0;
  KJ_ASSIGN_OR_RETURN(DeviceBuffer src, DeviceBuffer::Allocate(bytes, "copy ceiling source"));
  KJ_ASSIGN_OR_RETURN(DeviceBuffer dst, DeviceBuffer::Allocate(bytes, "copy ceiling target"));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemsetAsync(src.get(), 0x5A, bytes, stream), "memset"));
  KJ_ASSIGN_OR_RETURN(double ms, BestMs(
                                     [&]() {
                                       return CudaStatus(
                                           cudaMemcpyAsync(dst.get(), src.get(), bytes,
                                                           cudaMemcpyDeviceToDevice, stream),
                                           "device copy");
                                     },
                                     3, 10, stream));
  if (ms <= 0.0) return 0.0;
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

absl::StatusOr<double> SgemmRate(cudaStream_t stream, CublasHandle& cublas, size_t budget) {
  int n = 8192;
  while (n > 1024 && 3 * size_t{4} * static_cast<size_t>(n) * static_cast<size_t>(n) > budget) {
    n /= 2;
  }
  const size_t bytes = size_t{4} * static_cast<size_t>(n) * static_cast<size_t>(n);
  if (3 * bytes > budget) return 0.0;
  KJ_ASSIGN_OR_RETURN(DeviceBuffer a, DeviceBuffer::Allocate(bytes, "SGEMM ceiling A"));
  KJ_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Allocate(bytes, "SGEMM ceiling B"));
  KJ_ASSIGN_OR_RETURN(DeviceBuffer c, DeviceBuffer::Allocate(bytes, "SGEMM ceiling C"));
  // 0x3C bytes: every float is ~0.0115, finite and non-zero (no zero-skipping shortcuts).
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemsetAsync(a.get(), 0x3C, bytes, stream), "memset"));
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemsetAsync(b.get(), 0x3C, bytes, stream), "memset"));
  cublasHandle_t h = cublas.get();
  if (cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) {
    return MakeRunnerError(v1::INTERNAL_ERROR, "cuBLAS set-up for the SGEMM ceiling failed");
  }
  const float alpha = 1.0F;
  const float beta = 0.0F;
  auto* pa = static_cast<float*>(a.get());
  auto* pb = static_cast<float*>(b.get());
  auto* pc = static_cast<float*>(c.get());
  KJ_ASSIGN_OR_RETURN(double ms, BestMs(
                                     [&]() -> absl::Status {
                                       if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                                       &alpha, pa, n, pb, n, &beta, pc,
                                                       n) != CUBLAS_STATUS_SUCCESS) {
                                         return MakeRunnerError(v1::INTERNAL_ERROR,
                                                                "cublasSgemm failed");
                                       }
                                       return CudaStatus(cudaGetLastError(), "cublasSgemm");
                                     },
                                     2, 5, stream));
  if (ms <= 0.0) return 0.0;
  const double nn = n;
  return 2.0 * nn * nn * nn / (ms * 1e-3) / 1e12;
}

double Evaluate(const Expr& expr, const Bindings& bindings) {
  if (expr.empty()) return 0.0;
  absl::StatusOr<Value> v = expr.Evaluate(bindings);
  if (!v.ok()) return 0.0;
  return v->is_float ? v->f : static_cast<double>(v->i);
}

}  // namespace

absl::StatusOr<Ceilings> MeasureCeilings(cudaStream_t stream, CublasHandle& cublas) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  const size_t budget = free_bytes / 4;
  Ceilings c;
  KJ_ASSIGN_OR_RETURN(c.copy_gbs, CopyBandwidth(stream, budget));
  KJ_ASSIGN_OR_RETURN(c.sgemm_tflops, SgemmRate(stream, cublas, budget));
  return c;
}

double FloorUs(const ProblemSpec& spec, const Shape& shape, const Ceilings& ceilings) {
  const Bindings bindings = spec.BindingsFor(shape);
  const double flops = Evaluate(spec.cost.flops, bindings);
  const double bytes = Evaluate(spec.cost.bytes, bindings);
  const bool all_f32 = std::all_of(spec.tensors.begin(), spec.tensors.end(),
                                   [](const TensorSpec& t) { return t.dtype == DType::kF32; });
  double seconds = 0.0;
  if (ceilings.copy_gbs > 0.0 && bytes > 0.0) {
    seconds = std::max(seconds, bytes / (ceilings.copy_gbs * 1e9));
  }
  if (all_f32 && ceilings.sgemm_tflops > 0.0 && flops > 0.0) {
    seconds = std::max(seconds, flops / (ceilings.sgemm_tflops * 1e12));
  }
  return seconds * 1e6;
}

}  // namespace kjudge::runner
