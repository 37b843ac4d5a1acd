// Integrity checks: the candidate's inputs byte for byte against a private copy regenerated in
// memory no candidate maps (INPUT_MODIFIED), guard bands around every buffer it can reach
// (RUNTIME_ERROR), and the re-check after timing (new inputs at the same addresses with the
// previous outputs left in place, then poisoned outputs).
#include "worker/judge/verdict_protocol.h"

#include <utility>

#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {
namespace verdict_detail {

// Every buffer the candidate's plan can reach: its tensors and its scratch.
std::vector<GuardedBuffer> CandidateBuffers(const TensorSet& tensors, const ScratchSet& scratch) {
  std::vector<GuardedBuffer> buffers = tensors.Guards();
  for (GuardedBuffer& b : scratch.Guards()) buffers.push_back(std::move(b));
  return buffers;
}

}  // namespace verdict_detail

using namespace verdict_detail;  // the protocol's own constants and helpers

absl::StatusOr<std::string> VerdictProtocol::ModifiedInputs(const Shape& shape,
                                                            const TensorSet& tensors,
                                                            const InputSecret& secret) {
  // The judge's private copy: the same inputs regenerated in memory no candidate maps.
  KJ_ASSIGN_OR_RETURN(TensorSet pristine, TensorSet::AllocateInputs(setup_.spec, shape, guards_));
  KJ_RETURN_IF_ERROR(AsInternal(pristine.GenerateInputs(*env_.utilities, secret, env_.stream),
                                "input generation"));
  return tensors.InputsDifferingFrom(pristine, *env_.utilities, env_.stream);
}

// A modified guard is an out-of-bounds write by the candidate: RUNTIME_ERROR without a CUDA
// error and not sticky (the write hit our guard, not someone else's memory; the context is
// fine). The caller's context names the shape.
absl::Status VerdictProtocol::CheckGuards(const std::vector<GuardedBuffer>& buffers,
                                          const std::string& when) {
  KJ_ASSIGN_OR_RETURN(std::vector<GuardDamage> damage,
                      env_.utilities->CheckGuards(GuardRegionsOf(buffers), guards_.key(),
                                                  env_.stream));
  const std::string found = DescribeGuardDamage(buffers, damage);
  if (found.empty()) return absl::OkStatus();
  return MakeRunnerError(v1::RUNTIME_ERROR, Cat(found, ", ", when));
}

absl::Status VerdictProtocol::RecheckAfterTiming(size_t i, BenchSet& set) {
  const Shape& shape = setup_.spec.bench_shapes[i];
  // New data at the same addresses; the reference runs first (into its own buffers), then the
  // candidate with its outputs still holding its last timed results: a kernel that caches by
  // pointer or replays whatever the output holds returns stale values.
  // The untimed regimes ("zeros") are checked here at the bench shape (regime_deck.h).
  absl::StatusOr<InputRegime> drawn = RecheckRegime(setup_.spec.DrawableRegimes());
  KJ_RETURN_IF_ERROR(AsInternal(drawn.status(), "drawing the re-check's input regime"));
  const InputRegime regime = *drawn;
  KJ_ASSIGN_OR_RETURN(set.input, DrawInputSecret(Cat("bench ", i, " re-check"), shape, regime));
  KJ_RETURN_IF_ERROR(AsInternal(set.tensors.GenerateInputs(*env_.utilities, set.input,
                                                           env_.stream),
                                "input generation"));
  KJ_RETURN_IF_ERROR(AsInternal(RunExpected(i, set.tensors, set.expected),
                                "expected outputs on the bench shape"));
  KJ_RETURN_IF_ERROR(process_->Run(set.id, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(set.tensors, set.scratch),
                                 "in the re-check after timing (previous outputs left in place)"));
  KJ_ASSIGN_OR_RETURN(std::optional<v1::TestOutcome> stale,
                      CompareOnDevice(shape, set.tensors, set.expected,
                                      Cat("after timing, on new inputs at the same addresses with "
                                          "the previous outputs left in place",
                                          RegimeNote(set.input.regime))));
  if (stale.has_value()) {
    decision_.FailedSample(shape.Label(), *std::move(stale));
    return absl::OkStatus();
  }
  // The same inputs again with poisoned outputs: every element must be written on every run.
  KJ_RETURN_IF_ERROR(set.tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_RETURN_IF_ERROR(process_->Run(set.id, /*sync_each=*/true));
  KJ_RETURN_IF_ERROR(CheckGuards(CandidateBuffers(set.tensors, set.scratch),
                                 "in the re-check after timing (poisoned outputs)"));
  KJ_ASSIGN_OR_RETURN(std::optional<v1::TestOutcome> poisoned,
                      CompareOnDevice(shape, set.tensors, set.expected,
                                      Cat("after timing, on new inputs with poisoned outputs",
                                          RegimeNote(set.input.regime))));
  if (poisoned.has_value()) decision_.FailedSample(shape.Label(), *std::move(poisoned));
  return absl::OkStatus();
}

}  // namespace kjudge::runner
