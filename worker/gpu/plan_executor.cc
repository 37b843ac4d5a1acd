#include "worker/gpu/plan_executor.h"

#include <cstring>
#include <limits>

#include "common/byte_size.h"
#include "worker/gpu/str_util.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

absl::Status LaunchError(std::string_view where, std::string_view what) {
  return MakeRunnerError(v1::LAUNCH_ERROR, Cat(where, ": ", what));
}

absl::StatusOr<int64_t> EvalInt(const Expr& expr, const Bindings& bindings,
                                std::string_view where, std::string_view what) {
  absl::StatusOr<int64_t> v = expr.EvaluateInt(bindings);
  if (!v.ok()) return LaunchError(where, Cat(what, ": ", Sv(v.status().message())));
  return *v;
}

absl::StatusOr<dim3> EvalDim3(const Dim3Expr& d, const Bindings& bindings, std::string_view where,
                              std::string_view what, const int (&max)[3]) {
  const Expr* exprs[3] = {&d.x, &d.y, &d.z};
  unsigned int values[3] = {1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    if (exprs[i]->empty()) continue;
    KJ_ASSIGN_OR_RETURN(int64_t v, EvalInt(*exprs[i], bindings, where, what));
    if (v < 1 || v > max[i]) {
      return LaunchError(where, Cat(what, " dimension ", "xyz"[i], " is ", v,
                                             " (allowed 1..", max[i], ")"));
    }
    values[i] = static_cast<unsigned int>(v);
  }
  return dim3(values[0], values[1], values[2]);
}

// Parameter sizes of a kernel, from cudaFuncGetParamInfo until it reports the end.
absl::StatusOr<std::vector<size_t>> ParamSizes(cudaKernel_t kernel, std::string_view where) {
  std::vector<size_t> sizes;
  for (size_t i = 0;; ++i) {
    size_t offset = 0;
    size_t size = 0;
    const cudaError_t err = cudaFuncGetParamInfo(KernelFunc(kernel), i, &offset, &size);
    if (err == cudaErrorInvalidValue) {
      (void)cudaGetLastError();
      break;
    }
    KJ_RETURN_IF_ERROR(
        CudaStatus(err, Cat(where, ": cudaFuncGetParamInfo"), v1::LAUNCH_ERROR));
    sizes.push_back(size);
  }
  return sizes;
}

absl::StatusOr<uint64_t> EncodeArg(const Expr& arg, size_t param_size, const Bindings& bindings,
                                   const std::map<std::string, void*>& pointers,
                                   std::string_view where, size_t index) {
  const std::string label = Cat("argument ", index + 1, " (", arg.ToString(), ")");
  uint64_t slot = 0;
  if (arg.IsIdentifier()) {
    if (auto it = pointers.find(arg.Identifier()); it != pointers.end()) {
      if (param_size != sizeof(void*)) {
        return LaunchError(where, Cat(label, " is a buffer but the kernel parameter is ",
                                               param_size, " bytes, not a pointer"));
      }
      std::memcpy(&slot, &it->second, sizeof(void*));
      return slot;
    }
  }
  absl::StatusOr<Value> v = arg.Evaluate(bindings);
  if (!v.ok()) return LaunchError(where, Cat(label, ": ", Sv(v.status().message())));
  if (param_size != 4 && param_size != 8) {
    return LaunchError(where, Cat(label, ": kernel parameter is ", param_size,
                                           " bytes; plan scalars fill 4- or 8-byte parameters"));
  }
  if (v->is_float) {
    if (param_size == 4) {
      const auto f = static_cast<float>(v->f);
      std::memcpy(&slot, &f, 4);
    } else {
      std::memcpy(&slot, &v->f, 8);
    }
    return slot;
  }
  if (param_size == 4) {
    if (v->i < std::numeric_limits<int32_t>::min() || v->i > std::numeric_limits<int32_t>::max()) {
      return LaunchError(where, Cat(label, " = ", v->i,
                                             " does not fit the kernel's 32-bit parameter"));
    }
    const auto i32 = static_cast<int32_t>(v->i);
    std::memcpy(&slot, &i32, 4);
  } else {
    std::memcpy(&slot, &v->i, 8);
  }
  return slot;
}

absl::Status CheckSharedMemory(cudaKernel_t kernel, size_t bytes, const PlanLimits& limits,
                               std::string_view where) {
  cudaFuncAttributes attrs{};
  KJ_RETURN_IF_ERROR(CudaStatus(cudaFuncGetAttributes(&attrs, KernelFunc(kernel)),
                                Cat(where, ": cudaFuncGetAttributes"), v1::LAUNCH_ERROR));
  const size_t available = limits.max_shared_optin > attrs.sharedSizeBytes
                               ? limits.max_shared_optin - attrs.sharedSizeBytes
                               : 0;
  if (bytes > available) {
    return LaunchError(where, Cat("asks for ", bytes,
                                           " bytes of dynamic shared memory; this device allows ",
                                           available, " (", limits.max_shared_optin,
                                           " per block minus ", attrs.sharedSizeBytes,
                                           " static)"));
  }
  if (bytes > 48 * 1024) {
    KJ_RETURN_IF_ERROR(CudaStatus(
        cudaFuncSetAttribute(KernelFunc(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)),
        Cat(where, ": raising the dynamic shared memory limit"), v1::LAUNCH_ERROR));
  }
  return absl::OkStatus();
}

absl::Status CheckBlockSize(cudaKernel_t kernel, const dim3& block, std::string_view where) {
  cudaFuncAttributes attrs{};
  KJ_RETURN_IF_ERROR(CudaStatus(cudaFuncGetAttributes(&attrs, KernelFunc(kernel)),
                                Cat(where, ": cudaFuncGetAttributes"), v1::LAUNCH_ERROR));
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads > static_cast<uint64_t>(attrs.maxThreadsPerBlock)) {
    return LaunchError(where, Cat("block of ", threads, " threads; this kernel allows at most ",
                                           attrs.maxThreadsPerBlock, " (", attrs.numRegs,
                                           " registers per thread)"));
  }
  return absl::OkStatus();
}

}  // namespace

// The bytes of one scratch buffer, checked (a validated plan never fails here: defence in
// depth against arithmetic that would wrap to a small allocation).
static absl::StatusOr<size_t> CheckedScratchBytes(const ScratchDecl& s, const Bindings& bindings,
                                           const std::string& where) {
  KJ_ASSIGN_OR_RETURN(int64_t count, EvalInt(s.count, bindings, where, "element count"));
  absl::StatusOr<int64_t> bytes = CheckedBufferBytes(count, s.dtype);
  if (!bytes.ok()) return MakeRunnerError(v1::REJECTED, Cat(where, ": ", Sv(bytes.status().message())));
  return static_cast<size_t>(*bytes);
}

absl::StatusOr<size_t> ScratchBytes(const LaunchPlan& plan, const Bindings& bindings) {
  int64_t total = 0;
  for (const ScratchDecl& s : plan.scratch) {
    const std::string where = Cat("line ", s.pos.line, ": scratch ", s.name);
    KJ_ASSIGN_OR_RETURN(size_t bytes, CheckedScratchBytes(s, bindings, where));
    absl::StatusOr<int64_t> sum = CheckedAddBytes(total, static_cast<int64_t>(GuardedBytes(bytes)));
    if (!sum.ok()) return MakeRunnerError(v1::REJECTED, Cat(where, ": ", Sv(sum.status().message())));
    total = *sum;
  }
  return static_cast<size_t>(total);
}

absl::StatusOr<PlanExecutor::PreparedLaunch> PlanExecutor::PrepareLaunch(
    const kjudge::Launch& launch, CudaModule& module, const Bindings& bindings,
    const std::map<std::string, void*>& pointers, const PlanLimits& limits) {
  PreparedLaunch out;
  out.where = Cat("line ", launch.pos.line, ": ", launch.kernel);
  absl::StatusOr<std::string> name = launch.NameExpression(bindings);
  if (!name.ok()) return LaunchError(out.where, Sv(name.status().message()));
  out.where = Cat("line ", launch.pos.line, ": ", *name);
  KJ_ASSIGN_OR_RETURN(out.kernel, module.Kernel(*name));
  KJ_ASSIGN_OR_RETURN(out.grid, EvalDim3(launch.grid, bindings, out.where, "grid", limits.max_grid));
  const int block_max[3] = {limits.max_threads_per_block, limits.max_threads_per_block, 64};
  KJ_ASSIGN_OR_RETURN(out.block, EvalDim3(launch.block, bindings, out.where, "block", block_max));
  if (uint64_t{out.block.x} * out.block.y * out.block.z >
      static_cast<uint64_t>(limits.max_threads_per_block)) {
    return LaunchError(out.where, Cat("block has more than ",
                                               limits.max_threads_per_block, " threads"));
  }
  KJ_RETURN_IF_ERROR(CheckBlockSize(out.kernel, out.block, out.where));
  if (!launch.shared_bytes.empty()) {
    KJ_ASSIGN_OR_RETURN(int64_t shmem,
                        EvalInt(launch.shared_bytes, bindings, out.where, "shared memory"));
    if (shmem < 0) return LaunchError(out.where, "negative shared memory size");
    out.shared_bytes = static_cast<size_t>(shmem);
  }
  KJ_RETURN_IF_ERROR(CheckSharedMemory(out.kernel, out.shared_bytes, limits, out.where));
  KJ_ASSIGN_OR_RETURN(std::vector<size_t> sizes, ParamSizes(out.kernel, out.where));
  if (sizes.size() != launch.args.size()) {
    return LaunchError(out.where, Cat("the plan passes ", launch.args.size(),
                                               " arguments but the kernel takes ", sizes.size()));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    KJ_ASSIGN_OR_RETURN(uint64_t slot,
                        EncodeArg(launch.args[i], sizes[i], bindings, pointers, out.where, i));
    out.args.push_back(slot);
  }
  return out;
}

absl::StatusOr<ScratchSet> ScratchSet::Allocate(const LaunchPlan& plan, const Bindings& bindings,
                                                const GuardPattern& guards, int shared_device) {
  ScratchSet set;
  for (const ScratchDecl& s : plan.scratch) {
    const std::string where = Cat("line ", s.pos.line, ": scratch ", s.name);
    KJ_ASSIGN_OR_RETURN(size_t bytes, CheckedScratchBytes(s, bindings, where));
    const int64_t count = static_cast<int64_t>(bytes / DTypeSize(s.dtype));
    const std::string what = Cat("scratch ", s.name);
    absl::StatusOr<DeviceBuffer> buffer =
        shared_device >= 0 ? DeviceBuffer::AllocateGuardedShared(bytes, what, guards, shared_device)
                           : DeviceBuffer::AllocateGuarded(bytes, what, guards);
    KJ_RETURN_IF_ERROR(buffer.status());
    KJ_RETURN_IF_ERROR(
        CudaStatus(cudaMemset(buffer->get(), 0xFF, buffer->size()), "scratch initialisation"));
    set.buffers.push_back(*std::move(buffer));
    set.names.push_back(s.name);
    set.labels.push_back(Cat("scratch '", s.name, "' (", count, " x ", DTypeName(s.dtype), ")"));
  }
  // cudaMemset runs on the legacy default stream, which the runner's non-blocking streams do
  // not wait for: finish it before any launch can see half-initialised scratch.
  if (!set.buffers.empty()) {
    KJ_RETURN_IF_ERROR(SyncStatus(cudaDeviceSynchronize(), "scratch initialisation"));
  }
  return set;
}

std::vector<GuardedBuffer> ScratchSet::Guards() const {
  std::vector<GuardedBuffer> guards;
  guards.reserve(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) guards.push_back(buffers[i].Guarded(labels[i]));
  return guards;
}

void ScratchSet::AddPointers(std::map<std::string, void*>* pointers) const {
  for (size_t i = 0; i < buffers.size(); ++i) (*pointers)[names[i]] = buffers[i].get();
}

absl::StatusOr<PlanExecutor> PlanExecutor::PrepareBound(const LaunchPlan& plan, CudaModule& module,
                                                        const Bindings& bindings,
                                                        const std::map<std::string, void*>& pointers,
                                                        const PlanLimits& limits) {
  PlanExecutor executor;
  for (const ScratchDecl& s : plan.scratch) {
    if (pointers.find(s.name) == pointers.end()) {
      return MakeRunnerError(v1::INTERNAL_ERROR, Cat("scratch ", s.name, " was not provided"));
    }
  }
  for (const kjudge::Launch& launch : plan.launches) {
    KJ_ASSIGN_OR_RETURN(PreparedLaunch prepared,
                        PrepareLaunch(launch, module, bindings, pointers, limits));
    executor.launches_.push_back(std::move(prepared));
  }
  return executor;
}

absl::StatusOr<PlanExecutor> PlanExecutor::Prepare(const LaunchPlan& plan, CudaModule& module,
                                                   const Bindings& bindings,
                                                   const std::map<std::string, void*>& tensors,
                                                   const PlanLimits& limits,
                                                   const GuardPattern& guards) {
  KJ_ASSIGN_OR_RETURN(ScratchSet scratch, ScratchSet::Allocate(plan, bindings, guards, -1));
  std::map<std::string, void*> pointers = tensors;
  scratch.AddPointers(&pointers);
  KJ_ASSIGN_OR_RETURN(PlanExecutor executor,
                      PrepareBound(plan, module, bindings, pointers, limits));
  executor.scratch_ = std::move(scratch);
  return executor;
}

absl::Status PlanExecutor::Launch(cudaStream_t stream, bool sync_each) const {
  for (size_t i = 0; i < launches_.size(); ++i) {
    const PreparedLaunch& l = launches_[i];
    std::vector<void*> argv(l.args.size());
    for (size_t a = 0; a < l.args.size(); ++a) {
      argv[a] = const_cast<uint64_t*>(&l.args[a]);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    }
    const std::string where = Cat("launch ", i + 1, " of ", launches_.size(), " (",
                                           l.where, ")");
    const cudaError_t launched = cudaLaunchKernel(KernelFunc(l.kernel), l.grid, l.block,
                                                  argv.data(), l.shared_bytes, stream);
    const cudaError_t last = cudaGetLastError();
    const cudaError_t err = launched != cudaSuccess ? launched : last;
    KJ_RETURN_IF_ERROR(CudaStatus(err, where, v1::LAUNCH_ERROR));
    if (sync_each) {
      KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(stream), where));
    }
  }
  return absl::OkStatus();
}

std::vector<GuardedBuffer> PlanExecutor::ScratchGuards() const { return scratch_.Guards(); }

absl::Status PlanExecutor::ScrubScratch(cudaStream_t stream) {
  for (DeviceBuffer& b : scratch_.buffers) KJ_RETURN_IF_ERROR(b.Scrub(stream));
  return absl::OkStatus();
}

}  // namespace kjudge::runner
