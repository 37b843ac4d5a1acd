#include "worker/judge/ceilings.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include <spdlog/spdlog.h>

#include "worker/gpu/device_buffer.h"
#include "worker/judge/device_utilities.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

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

double TflopsOf(int n, double ms) {
  if (ms <= 0.0) return 0.0;
  const double nn = n;
  return 2.0 * nn * nn * nn / (ms * 1e-3) / 1e12;
}

// Three square N x N operands of up to 4 bytes per element, shared by every GEMM rate (16-bit
// dtypes use the first half of each).
struct GemmOperands {
  int n = 0;  // 0: not even N = 1024 fits the budget
  DeviceBuffer a;
  DeviceBuffer b;
  DeviceBuffer c;
};

size_t Fp32Bytes(int n) { return size_t{4} * static_cast<size_t>(n) * static_cast<size_t>(n); }

absl::StatusOr<GemmOperands> AllocateOperands(size_t budget) {
  int n = 8192;
  while (n > 1024 && 3 * Fp32Bytes(n) > budget) n /= 2;
  GemmOperands ops;
  if (3 * Fp32Bytes(n) > budget) return ops;
  KJ_ASSIGN_OR_RETURN(ops.a, DeviceBuffer::Allocate(Fp32Bytes(n), "GEMM ceiling A"));
  KJ_ASSIGN_OR_RETURN(ops.b, DeviceBuffer::Allocate(Fp32Bytes(n), "GEMM ceiling B"));
  KJ_ASSIGN_OR_RETURN(ops.c, DeviceBuffer::Allocate(Fp32Bytes(n), "GEMM ceiling C"));
  ops.n = n;
  return ops;
}

// Random normal A and B of `dtype`, like a problem's inputs: tensor cores run zeros (and
// constants draw less power) faster than real data, which would make the rate too lenient.
absl::Status FillOperands(const GemmOperands& ops, DType dtype, DeviceUtilities& utilities,
                          cudaStream_t stream) {
  // Any values do for a peak-rate measurement: a fixed key.
  SecretKey key;
  key.words = {0x5EEDC0FFU, 0xEEU, 0, 0, 0, 0, 0, 0};
  const int64_t count = int64_t{ops.n} * ops.n;
  const InitSpec normal;  // mean 0, std 1: products stay far from fp16's range limits
  KJ_RETURN_IF_ERROR(utilities.FillRandom(ops.a.get(), dtype, count, key, 0, normal, stream));
  return utilities.FillRandom(ops.b.get(), dtype, count, key, 1, normal, stream);
}

absl::StatusOr<double> SgemmRate(const GemmOperands& ops, cublasHandle_t h, cudaStream_t stream) {
  const int n = ops.n;
  const float alpha = 1.0F;
  const float beta = 0.0F;
  const auto* pa = static_cast<const float*>(ops.a.get());
  const auto* pb = static_cast<const float*>(ops.b.get());
  auto* pc = static_cast<float*>(ops.c.get());
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
  return TflopsOf(n, ms);
}

// One cublasGemmEx configuration: A, B and C of `data_type`.
struct GemmExVariant {
  const char* name;
  cudaDataType_t data_type;
  cublasComputeType_t compute;
};

cublasStatus_t RunGemmEx(const GemmOperands& ops, cublasHandle_t h, const GemmExVariant& v) {
  // Scalars have the compute type: float, or half for CUBLAS_COMPUTE_16F (1.0 = 0x3C00).
  const float one = 1.0F;
  const float zero = 0.0F;
  const uint16_t half_one = 0x3C00;
  const uint16_t half_zero = 0;
  const bool half = v.compute == CUBLAS_COMPUTE_16F;
  const void* alpha = half ? static_cast<const void*>(&half_one) : &one;
  const void* beta = half ? static_cast<const void*>(&half_zero) : &zero;
  const int n = ops.n;
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, ops.a.get(), v.data_type, n,
                      ops.b.get(), v.data_type, n, beta, ops.c.get(), v.data_type, n, v.compute,
                      CUBLAS_GEMM_DEFAULT);
}

// The rate of `v`; 0 when cuBLAS refuses the configuration on this GPU (logged): the floors
// that need it then have no compute part.
absl::StatusOr<double> GemmExRate(const GemmOperands& ops, cublasHandle_t h,
                                  const GemmExVariant& v, cudaStream_t stream) {
  if (const cublasStatus_t status = RunGemmEx(ops, h, v); status != CUBLAS_STATUS_SUCCESS) {
    spdlog::warn("{} GEMM ceiling not measured: cublasGemmEx returned {}", v.name,
                 cublasGetStatusString(status));
    return 0.0;
  }
  KJ_ASSIGN_OR_RETURN(double ms, BestMs(
                                     [&]() -> absl::Status {
                                       if (RunGemmEx(ops, h, v) != CUBLAS_STATUS_SUCCESS) {
                                         return MakeRunnerError(
                                             v1::INTERNAL_ERROR,
                                             Cat("cublasGemmEx (", v.name, ") failed"));
                                       }
                                       return CudaStatus(cudaGetLastError(), "cublasGemmEx");
                                     },
                                     2, 5, stream));
  return TflopsOf(ops.n, ms);
}

// SGEMM and the tensor-core rates into `c`, on one set of operands.
absl::Status GemmRates(cudaStream_t stream, CublasHandle& cublas, DeviceUtilities& utilities,
                       size_t budget, Ceilings& c) {
  KJ_ASSIGN_OR_RETURN(GemmOperands ops, AllocateOperands(budget));
  if (ops.n == 0) return absl::OkStatus();
  cublasHandle_t h = cublas.get();
  if (cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) {
    return MakeRunnerError(v1::INTERNAL_ERROR, "cuBLAS set-up for the GEMM ceilings failed");
  }
  KJ_RETURN_IF_ERROR(FillOperands(ops, DType::kF32, utilities, stream));
  KJ_ASSIGN_OR_RETURN(c.sgemm_tflops, SgemmRate(ops, h, stream));
  KJ_ASSIGN_OR_RETURN(c.tf32_tflops,
                      GemmExRate(ops, h, {"TF32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32},
                                 stream));
  KJ_RETURN_IF_ERROR(FillOperands(ops, DType::kF16, utilities, stream));
  KJ_ASSIGN_OR_RETURN(double fp16_acc32,
                      GemmExRate(ops, h, {"FP16 (fp32 accumulation)", CUDA_R_16F,
                                          CUBLAS_COMPUTE_32F},
                                 stream));
  KJ_ASSIGN_OR_RETURN(double fp16_acc16,
                      GemmExRate(ops, h, {"FP16 (fp16 accumulation)", CUDA_R_16F,
                                          CUBLAS_COMPUTE_16F},
                                 stream));
  c.fp16_tflops = std::max(fp16_acc32, fp16_acc16);
  KJ_RETURN_IF_ERROR(FillOperands(ops, DType::kBF16, utilities, stream));
  KJ_ASSIGN_OR_RETURN(c.bf16_tflops,
                      GemmExRate(ops, h, {"BF16", CUDA_R_16BF, CUBLAS_COMPUTE_32F}, stream));
  return absl::OkStatus();
}

double Evaluate(const Expr& expr, const Bindings& bindings) {
  if (expr.empty()) return 0.0;
  absl::StatusOr<Value> v = expr.Evaluate(bindings);
  if (!v.ok()) return 0.0;
  return v->is_float ? v->f : static_cast<double>(v->i);
}

}  // namespace

absl::StatusOr<Ceilings> MeasureCeilings(cudaStream_t stream, CublasHandle& cublas,
                                         DeviceUtilities& utilities) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  KJ_RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  const size_t budget = free_bytes / 4;
  Ceilings c;
  KJ_ASSIGN_OR_RETURN(c.copy_gbs, CopyBandwidth(stream, budget));
  KJ_RETURN_IF_ERROR(GemmRates(stream, cublas, utilities, budget, c));
  return c;
}

ComputeRate ComputeRateFor(std::span<const DType> dtypes, const Ceilings& ceilings,
                           double rel_l2) {
  bool f32 = false;
  bool f16 = false;
  bool bf16 = false;
  for (const DType d : dtypes) {
    switch (d) {
      case DType::kF32: f32 = true; break;
      case DType::kF16: f16 = true; break;
      case DType::kBF16: bf16 = true; break;
      case DType::kF64:
      case DType::kI32:
      case DType::kI64: break;
      case DType::kU8:
      case DType::kI8:
      case DType::kFP8E4M3:
      case DType::kFP8E5M2:
        return {0.0, Cat("none: ", DTypeName(d), " tensors have tensor-core paths faster than "
                         "every rate measured")};
    }
  }
  std::vector<ComputeRate> needed;
  if (f32) {
    needed.push_back({ceilings.sgemm_tflops, "SGEMM"});
    if (rel_l2 >= kTf32MinRelL2) {
      needed.push_back({ceilings.tf32_tflops, "TF32 tensor-core GEMM"});
    } else {
      // Split precision: three passes of the faster of TF32 and BF16 (an unmeasured BF16
      // rate leaves TF32's, which must be measured).
      const double split = std::max(ceilings.tf32_tflops, ceilings.bf16_tflops) / 3.0;
      needed.push_back({ceilings.tf32_tflops > 0.0 ? split : 0.0,
                        "fp32-accurate split precision on tensor cores, max(TF32, BF16) / 3 (the "
                        "tolerance excludes 1xTF32)"});
    }
  }
  if (f16) needed.push_back({ceilings.fp16_tflops, "FP16 tensor-core GEMM"});
  if (bf16) needed.push_back({ceilings.bf16_tflops, "BF16 tensor-core GEMM"});
  if (needed.empty()) return {0.0, "none: no f32, f16 or bf16 tensors"};
  ComputeRate fastest;
  for (const ComputeRate& r : needed) {
    if (r.tflops <= 0.0) return {0.0, Cat("none: the ", r.name, " rate was not measured")};
    if (r.tflops > fastest.tflops) fastest = r;
  }
  return fastest;
}

PhysicalFloor FloorOf(const ProblemSpec& spec, const Shape& shape, const Ceilings& ceilings) {
  const Bindings bindings = spec.BindingsFor(shape);
  const double flops = Evaluate(spec.cost.flops, bindings);
  const double bytes = Evaluate(spec.cost.bytes, bindings);
  std::vector<DType> dtypes;
  dtypes.reserve(spec.tensors.size());
  for (const TensorSpec& t : spec.tensors) dtypes.push_back(t.dtype);
  PhysicalFloor floor;
  floor.rate = ComputeRateFor(dtypes, ceilings, spec.tolerance.rel_l2);
  if (ceilings.copy_gbs > 0.0 && bytes > 0.0) {
    floor.memory_us = bytes / (ceilings.copy_gbs * 1e9) * 1e6;
  }
  if (floor.rate.tflops > 0.0 && flops > 0.0) {
    floor.compute_us = flops / (floor.rate.tflops * 1e12) * 1e6;
  }
  floor.us = std::max(floor.compute_us, floor.memory_us);
  return floor;
}

PhysicalFloor ImpossibleFloorOf(const ProblemSpec& spec, const Shape& shape,
                                const Ceilings& ceilings) {
  PhysicalFloor floor = FloorOf(spec, shape, ceilings);
  if (spec.cost.flops_lower_bound) return floor;
  if (spec.cost.min_flops.has_value()) {
    const double min_flops = Evaluate(*spec.cost.min_flops, spec.BindingsFor(shape));
    floor.compute_us = floor.rate.tflops > 0.0 && min_flops > 0.0
                           ? min_flops / (floor.rate.tflops * 1e12) * 1e6
                           : 0.0;
    floor.us = std::max(floor.compute_us, floor.memory_us);
    return floor;
  }
  floor.compute_us = 0.0;
  floor.rate = {0.0, "none: the problem declares no lower bound on its flops for every "
                     "correct algorithm ([cost] min_flops or flops_lower_bound)"};
  floor.us = floor.memory_us;
  return floor;
}

double FloorUs(const ProblemSpec& spec, const Shape& shape, const Ceilings& ceilings) {
  return FloorOf(spec, shape, ceilings).us;
}

}  // namespace kjudge::runner
