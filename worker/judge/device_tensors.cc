#include "worker/judge/device_tensors.h"

#include "worker/gpu/str_util.h"
#include "worker/gpu/runner_error.h"

namespace kjudge::runner {
namespace {

absl::StatusOr<int64_t> Count(const ProblemSpec& spec, const TensorSpec& t, const Shape& shape) {
  absl::StatusOr<int64_t> count = spec.ElementCount(t, shape);
  if (!count.ok()) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("tensor ", t.name, " at ", shape.Label(), ": ",
                                        std::string(count.status().message())));
  }
  return count;
}

// The sizes of a tensor's last two dims at `shape` (1 where the rank has none).
absl::Status TrailingDims(const ProblemSpec& spec, const TensorSpec& t, const Shape& shape,
                          int64_t& rows, int64_t& cols) {
  const Bindings bindings = spec.BindingsFor(shape);
  const size_t rank = t.shape.size();
  for (size_t back = 1; back <= 2 && back <= rank; ++back) {
    absl::StatusOr<int64_t> dim = t.shape[rank - back].EvaluateInt(bindings);
    if (!dim.ok()) {
      return MakeRunnerError(v1::INTERNAL_ERROR, Cat("tensor ", t.name, " at ", shape.Label(),
                                                     ": ", std::string(dim.status().message())));
    }
    (back == 1 ? cols : rows) = *dim;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<size_t> TensorSet::BytesNeeded(const ProblemSpec& spec, const Shape& shape) {
  size_t total = 0;
  for (const TensorSpec& t : spec.tensors) {
    KJ_ASSIGN_OR_RETURN(int64_t count, Count(spec, t, shape));
    total += GuardedBytes(static_cast<size_t>(count) * DTypeSize(t.dtype));
  }
  return total;
}

absl::StatusOr<size_t> TensorSet::OutputBytes(const ProblemSpec& spec, const Shape& shape) {
  size_t total = 0;
  for (const TensorSpec& t : spec.tensors) {
    if (t.role != TensorRole::kOut) continue;
    KJ_ASSIGN_OR_RETURN(int64_t count, Count(spec, t, shape));
    total += GuardedBytes(static_cast<size_t>(count) * DTypeSize(t.dtype));
  }
  return total;
}

absl::StatusOr<TensorSet> TensorSet::Allocate(const ProblemSpec& spec, const Shape& shape,
                                              const GuardPattern& guards) {
  return AllocateRoles(spec, shape, std::nullopt, guards, -1);
}

absl::StatusOr<TensorSet> TensorSet::AllocateInputs(const ProblemSpec& spec, const Shape& shape,
                                                    const GuardPattern& guards) {
  return AllocateRoles(spec, shape, TensorRole::kIn, guards, -1);
}

absl::StatusOr<TensorSet> TensorSet::AllocateShared(const ProblemSpec& spec, const Shape& shape,
                                                    const GuardPattern& guards, int device) {
  return AllocateRoles(spec, shape, std::nullopt, guards, device);
}

absl::StatusOr<TensorSet> TensorSet::AllocateOutputs(const ProblemSpec& spec, const Shape& shape,
                                                     const GuardPattern& guards) {
  return AllocateRoles(spec, shape, TensorRole::kOut, guards, -1);
}

absl::StatusOr<TensorSet> TensorSet::AllocateOutputsShared(const ProblemSpec& spec,
                                                           const Shape& shape,
                                                           const GuardPattern& guards,
                                                           int device) {
  return AllocateRoles(spec, shape, TensorRole::kOut, guards, device);
}

absl::StatusOr<TensorSet> TensorSet::AllocateRoles(const ProblemSpec& spec, const Shape& shape,
                                                   std::optional<TensorRole> only,
                                                   const GuardPattern& guards,
                                                   int shared_device) {
  TensorSet set;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const TensorSpec& t = spec.tensors[i];
    if (only.has_value() && t.role != *only) continue;
    Entry e;
    e.spec = &t;
    e.index = static_cast<uint32_t>(i);
    e.poison = FixedPoison(t.dtype);
    KJ_ASSIGN_OR_RETURN(e.count, Count(spec, t, shape));
    KJ_RETURN_IF_ERROR(TrailingDims(spec, t, shape, e.rows, e.cols));
    const size_t bytes = static_cast<size_t>(e.count) * DTypeSize(t.dtype);
    if (shared_device >= 0) {
      KJ_ASSIGN_OR_RETURN(e.buffer, DeviceBuffer::AllocateGuardedShared(
                                        bytes, Cat("tensor ", t.name), guards, shared_device));
    } else {
      KJ_ASSIGN_OR_RETURN(e.buffer,
                          DeviceBuffer::AllocateGuarded(bytes, Cat("tensor ", t.name), guards));
    }
    set.pointers_[t.name] = e.buffer.get();
    set.entries_.push_back(std::move(e));
  }
  return set;
}

std::map<std::string, void*> TensorSet::PointersWithOutputsOf(const TensorSet& outputs) const {
  std::map<std::string, void*> pointers = pointers_;
  for (const Entry& e : outputs.entries_) {
    if (e.spec->role == TensorRole::kOut) pointers[e.spec->name] = e.buffer.get();
  }
  return pointers;
}

std::vector<TensorSet::OutputView> TensorSet::Outputs() const {
  std::vector<OutputView> views;
  for (const Entry& e : entries_) {
    if (e.spec->role == TensorRole::kOut) {
      views.push_back({e.spec->name, e.spec->dtype, e.count, e.buffer.get(), e.poison});
    }
  }
  return views;
}

std::vector<TensorSet::BufferView> TensorSet::Buffers() const {
  std::vector<BufferView> views;
  views.reserve(entries_.size());
  for (const Entry& e : entries_) {
    views.push_back({e.spec->name, &e.buffer, e.spec->role == TensorRole::kIn});
  }
  return views;
}

absl::StatusOr<std::string> TensorSet::InputsDifferingFrom(const TensorSet& pristine,
                                                           DeviceUtilities& utils,
                                                           cudaStream_t stream) const {
  std::string differing;
  for (const Entry& e : entries_) {
    if (e.spec->role != TensorRole::kIn) continue;
    for (const Entry& p : pristine.entries_) {
      if (p.spec->name != e.spec->name) continue;
      KJ_ASSIGN_OR_RETURN(uint64_t n, utils.DifferingBytes(e.buffer.get(), p.buffer.get(),
                                                           e.buffer.size(), stream));
      if (n != 0) Append(&differing, differing.empty() ? "" : ", ", e.spec->name);
    }
  }
  return differing;
}

absl::Status TensorSet::GenerateInputs(DeviceUtilities& utils, const SecretKey& key,
                                       cudaStream_t stream) {
  return GenerateInputs(utils, InputSecret{key, InputRegime::kDeclared}, stream);
}

absl::Status TensorSet::GenerateInputs(DeviceUtilities& utils, const InputSecret& secret,
                                       cudaStream_t stream) {
  for (Entry& e : entries_) {
    if (e.spec->role != TensorRole::kIn) continue;
    KJ_RETURN_IF_ERROR(utils.FillRandom(e.buffer.get(), e.spec->dtype, e.count, secret.key,
                                        e.index, e.spec->init, stream, secret.regime));
    KJ_RETURN_IF_ERROR(utils.ApplyTransform(e.buffer.get(), e.spec->dtype, e.count, e.rows,
                                            e.cols, e.spec->init.transform, stream));
  }
  return SyncStatus(cudaStreamSynchronize(stream), "input generation");
}

absl::Status TensorSet::PoisonOutputs(DeviceUtilities& utils, cudaStream_t stream) {
  for (Entry& e : entries_) {
    if (e.spec->role != TensorRole::kOut) continue;
    KJ_ASSIGN_OR_RETURN(e.poison, DrawPoison(e.spec->dtype));  // a fresh secret per set
    KJ_RETURN_IF_ERROR(utils.Poison(e.buffer.get(), e.poison, e.count, stream));
  }
  return SyncStatus(cudaStreamSynchronize(stream), "output poisoning");
}

std::vector<GuardedBuffer> TensorSet::Guards() const {
  std::vector<GuardedBuffer> guards;
  for (const Entry& e : entries_) {
    guards.push_back(e.buffer.Guarded(Cat(e.spec->role == TensorRole::kIn ? "input '" : "output '",
                                          e.spec->name, "' (", e.count, " x ",
                                          DTypeName(e.spec->dtype), ")")));
  }
  return guards;
}

std::vector<std::string> TensorSet::InputNames() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_) {
    if (e.spec->role == TensorRole::kIn) names.push_back(e.spec->name);
  }
  return names;
}

absl::StatusOr<std::vector<HostTensor>> TensorSet::CopyOutputs(cudaStream_t stream) const {
  std::vector<HostTensor> out;
  for (const Entry& e : entries_) {
    if (e.spec->role != TensorRole::kOut) continue;
    HostTensor h;
    h.name = e.spec->name;
    h.dtype = e.spec->dtype;
    h.count = e.count;
    h.poison = e.poison;
    h.bytes.resize(static_cast<size_t>(e.count) * DTypeSize(e.spec->dtype));
    KJ_RETURN_IF_ERROR(SyncStatus(cudaMemcpyAsync(h.bytes.data(), e.buffer.get(), h.bytes.size(),
                                                  cudaMemcpyDeviceToHost, stream),
                                  Cat("copying output ", h.name)));
    out.push_back(std::move(h));
  }
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(stream), "copying outputs"));
  return out;
}

absl::Status TensorSet::Scrub(cudaStream_t stream) {
  for (Entry& e : entries_) KJ_RETURN_IF_ERROR(e.buffer.Scrub(stream));
  return absl::OkStatus();
}

}  // namespace kjudge::runner
