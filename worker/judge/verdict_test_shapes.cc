// Test-shape checks: the candidate on every test shape with shared inputs (read-only in its
// process), guard bands, the byte-for-byte input check and the host comparison of its outputs
// with the reference's; and the diagnosis of an illegal-address fault (a write to a read-only
// input, INPUT_MODIFIED, or a wild access, RUNTIME_ERROR).
#include "worker/judge/verdict_protocol.h"

#include <utility>

#include "common/output_comparison.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/host_values.h"
#include "worker/judge/result_proto.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {

using namespace verdict_detail;  // the protocol's own constants and helpers

absl::Status VerdictProtocol::DiagnoseFault(size_t i, const absl::Status& fault) {
  const Shape& shape = setup_.spec.test_shapes[i];
  if (i >= test_inputs_.size()) return fault;  // no reference run on it: nothing to diagnose
  const InputSecret& input = test_inputs_[i];
  const InputScaleScope scale(*env_.utilities, shape.input_scale);
  std::unique_ptr<CandidateProcess> faulted = std::move(process_);
  (void)faulted->Finish();
  absl::StatusOr<std::string> modified = [&]() -> absl::StatusOr<std::string> {
    KJ_ASSIGN_OR_RETURN(process_, env_.candidates->Take());
    TakeCandidateHeartbeat();
    KJ_RETURN_IF_ERROR(process_->Load(run_, candidate_.program));
    KJ_ASSIGN_OR_RETURN(TensorSet tensors,
                        TensorSet::AllocateShared(setup_.spec, shape, guards_, env_.device));
    KJ_RETURN_IF_ERROR(tensors.GenerateInputs(*env_.utilities, input, env_.stream));
    KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
    KJ_ASSIGN_OR_RETURN(ScratchSet scratch,
                        ScratchSet::Allocate(setup_.candidate_plan, setup_.spec.BindingsFor(shape),
                                             guards_, env_.device));
    const int set = next_set_++;
    KJ_RETURN_IF_ERROR(BindSet(set, false, i, tensors, scratch, /*writable_inputs=*/true));
    KJ_RETURN_IF_ERROR(process_->Run(set, /*sync_each=*/true));
    return ModifiedInputs(shape, tensors, input);
  }();
  // Faults again with writable inputs: a wild access, not an input write.
  if (!modified.ok()) return fault;
  const Fault input_write = InputWriteFault(FaultOf(DescribeError(fault)), *modified);
  return MakeRunnerError(input_write.verdict, input_write.message, input_write.cuda_error);
}

absl::Status VerdictProtocol::BindSet(int set, bool bench, size_t i, const TensorSet& tensors,
                                      const ScratchSet& scratch, bool writable_inputs) {
  std::vector<BindBuffer> buffers;
  for (const TensorSet::BufferView& b : tensors.Buffers()) {
    buffers.push_back({b.name, b.buffer, b.read_only && !writable_inputs});
  }
  for (size_t k = 0; k < scratch.buffers.size(); ++k) {
    buffers.push_back({scratch.names[k], &scratch.buffers[k], false});
  }
  return process_->Bind(set, bench, static_cast<int>(i), buffers);
}

absl::Status VerdictProtocol::CheckShape(size_t i) {
  const Shape& shape = setup_.spec.test_shapes[i];
  const Bindings bindings = setup_.spec.BindingsFor(shape);
  // The inputs the reference's outputs were computed for (RunReferenceShape drew the key).
  if (i >= test_inputs_.size()) {
    return MakeRunnerError(v1::INTERNAL_ERROR, Cat("test shape ", shape.Label(), " has no reference run"));
  }
  const InputSecret& input = test_inputs_[i];
  const InputScaleScope scale(*env_.utilities, shape.input_scale);  // also for ModifiedInputs
  KJ_ASSIGN_OR_RETURN(TensorSet tensors,
                      TensorSet::AllocateShared(setup_.spec, shape, guards_, env_.device));
  KJ_RETURN_IF_ERROR(AsInternal(tensors.GenerateInputs(*env_.utilities, input, env_.stream),
                                "input generation"));
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_ASSIGN_OR_RETURN(ScratchSet scratch,
                      ScratchSet::Allocate(setup_.candidate_plan, bindings, guards_, env_.device));
  const int set = next_set_++;
  KJ_RETURN_IF_ERROR(BindSet(set, false, i, tensors, scratch));
  KJ_RETURN_IF_ERROR(process_->Run(set, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(tensors, scratch), "after the candidate's run"));
  KJ_ASSIGN_OR_RETURN(std::string modified, ModifiedInputs(shape, tensors, input));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, tensors.CopyOutputs(env_.stream));
  KJ_RETURN_IF_ERROR(process_->Release(set));

  const Tolerance& tol = setup_.spec.tolerance;
  OutputComparator comparator({tol.atol, tol.rtol, tol.rel_l2});
  for (size_t t = 0; t < outputs.size(); ++t) {
    const HostTensor& h = outputs[t];
    comparator.AddTensor(h.name, DecodeToDouble(h.dtype, h.bytes, h.count),
                         reference_outputs_[i][t], PoisonMask(h.poison, h.bytes, h.count));
  }
  (void)decision_.TestShape(
      {ToTestOutcome(shape.Label(), comparator.Result()), input.regime, std::move(modified)});
  return absl::OkStatus();
}

}  // namespace kjudge::runner
