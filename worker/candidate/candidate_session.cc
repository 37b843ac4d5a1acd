#include "worker/candidate/candidate_session.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "worker/runner/runner_error.h"
#include "worker/runner/str_util.h"

namespace kjudge::candidate {
namespace {

using runner::Cat;
using runner::MakeRunnerError;

v1::CandidateReply FailureReply(const absl::Status& status) {
  const runner::ErrorInfo info = runner::DescribeError(status);
  v1::CandidateReply reply;
  reply.set_verdict(info.verdict);
  reply.set_message(info.message);
  reply.set_cuda_error(info.cuda_error);
  reply.set_sticky(info.sticky);
  return reply;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CandidateSession>> CandidateSession::Create(int device) {
  KJ_RETURN_IF_ERROR(runner::CudaStatus(cudaSetDevice(device), "cudaSetDevice"));
  KJ_RETURN_IF_ERROR(runner::CudaStatus(cudaFree(nullptr), "creating the CUDA context"));
  cudaDeviceProp props{};
  KJ_RETURN_IF_ERROR(
      runner::CudaStatus(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties"));
  runner::PlanLimits limits;
  limits.max_threads_per_block = props.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) limits.max_grid[i] = props.maxGridSize[i];
  limits.max_shared_optin = props.sharedMemPerBlockOptin;
  KJ_ASSIGN_OR_RETURN(runner::Stream stream, runner::Stream::Create());
  KJ_ASSIGN_OR_RETURN(runner::L2Flusher flusher,
                      runner::L2Flusher::Create(static_cast<size_t>(props.l2CacheSize)));
  KJ_ASSIGN_OR_RETURN(runner::Event start, runner::Event::Create());
  KJ_ASSIGN_OR_RETURN(runner::Event stop, runner::Event::Create());
  return std::unique_ptr<CandidateSession>(new CandidateSession(
      device, std::move(stream), std::move(flusher), std::move(start), std::move(stop), limits));
}

v1::CandidateReply CandidateSession::Handle(const v1::CandidateRequest& request,
                                            std::vector<runner::ScopedFd> fds) {
  absl::Status status;
  v1::CandidateReply reply;
  switch (request.kind_case()) {
    case v1::CandidateRequest::kLoad:
      status = Load(request.load());
      break;
    case v1::CandidateRequest::kBind:
      status = Bind(request.bind(), std::move(fds));
      break;
    case v1::CandidateRequest::kRun:
      status = Run(request.run());
      break;
    case v1::CandidateRequest::kSample: {
      absl::StatusOr<runner::RawSample> sample = Sample(request.sample().set());
      status = sample.status();
      if (sample.ok()) {
        reply.set_elapsed_us(sample->elapsed_us);
        reply.set_busy_after_stop(sample->busy_after_stop);
      }
      break;
    }
    case v1::CandidateRequest::kRelease:
      sets_.erase(request.release().set());
      break;
    case v1::CandidateRequest::kOpen:
      status = MakeRunnerError(v1::INTERNAL_ERROR, "Open sent twice");
      break;
    default:
      status = MakeRunnerError(v1::INTERNAL_ERROR, "an empty request");
  }
  if (!status.ok()) return FailureReply(status);
  return reply;
}

absl::Status CandidateSession::Load(const v1::CandidateRequest::Load& load) {
  KJ_ASSIGN_OR_RETURN(runner::JobSetup setup, runner::SetUpJob(load.run()));
  setup_.emplace(std::move(setup));
  runner::CompiledProgram program;
  program.cubin = load.cubin();
  for (const auto& [expr, lowered] : load.lowered_names()) program.lowered_names[expr] = lowered;
  absl::StatusOr<runner::CudaModule> module = runner::CudaModule::Load(program);
  if (!module.ok()) {
    // The cubin is the submission's: a load failure that leaves the context usable is its
    // LAUNCH_ERROR (e.g. a resource the device cannot provide).
    const runner::ErrorInfo info = runner::DescribeError(module.status());
    return MakeRunnerError(info.sticky ? v1::RUNTIME_ERROR : v1::LAUNCH_ERROR,
                           Cat("loading the compiled submission: ", info.message),
                           info.cuda_error, info.sticky);
  }
  module_.emplace(*std::move(module));
  return absl::OkStatus();
}

absl::Status CandidateSession::Bind(const v1::CandidateRequest::Bind& bind,
                                    std::vector<runner::ScopedFd> fds) {
  if (!setup_.has_value() || !module_.has_value()) {
    return MakeRunnerError(v1::INTERNAL_ERROR, "Bind before Load");
  }
  const std::vector<Shape>& shapes = bind.bench() ? setup_->spec.bench_shapes
                                                  : setup_->spec.test_shapes;
  if (bind.shape() < 0 || static_cast<size_t>(bind.shape()) >= shapes.size()) {
    return MakeRunnerError(v1::INTERNAL_ERROR, Cat("no shape ", bind.shape()));
  }
  if (fds.size() != static_cast<size_t>(bind.buffers_size())) {
    return MakeRunnerError(v1::INTERNAL_ERROR, Cat(bind.buffers_size(), " buffers but ",
                                                   fds.size(), " descriptors"));
  }
  BoundSet set;
  std::map<std::string, void*> pointers;
  for (int i = 0; i < bind.buffers_size(); ++i) {
    const v1::SharedBuffer& b = bind.buffers(i);
    if (b.data_offset() >= b.alloc_bytes()) {
      return MakeRunnerError(v1::INTERNAL_ERROR, Cat("buffer ", b.name(), ": bad offset"));
    }
    KJ_ASSIGN_OR_RETURN(runner::MappedAllocation m,
                        runner::MappedAllocation::Import(fds[i].get(), b.alloc_bytes(), device_,
                                                         b.read_only()));
    pointers[b.name()] = static_cast<std::byte*>(m.ptr()) + b.data_offset();
    set.mappings.push_back(std::move(m));
  }
  const Shape& shape = shapes[static_cast<size_t>(bind.shape())];
  KJ_ASSIGN_OR_RETURN(runner::PlanExecutor plan,
                      runner::PlanExecutor::PrepareBound(setup_->candidate_plan, *module_,
                                                         setup_->spec.BindingsFor(shape),
                                                         pointers, limits_));
  set.plan.emplace(std::move(plan));
  sets_[bind.set()] = std::move(set);
  return absl::OkStatus();
}

absl::StatusOr<const runner::PlanExecutor*> CandidateSession::PlanOf(int set) const {
  auto it = sets_.find(set);
  if (it == sets_.end() || !it->second.plan.has_value()) {
    return MakeRunnerError(v1::INTERNAL_ERROR, Cat("no bound set ", set));
  }
  return &*it->second.plan;
}

absl::Status CandidateSession::Run(const v1::CandidateRequest::Run& run) {
  KJ_ASSIGN_OR_RETURN(const runner::PlanExecutor* plan, PlanOf(run.set()));
  KJ_RETURN_IF_ERROR(plan->Launch(stream_.get(), run.sync_each()));
  KJ_RETURN_IF_ERROR(runner::SyncStatus(cudaStreamSynchronize(stream_.get()), "the plan's run"));
  // Nothing of the plan may still run when the judge looks at the outputs.
  return runner::SyncStatus(cudaDeviceSynchronize(), "device-wide check after the plan's run");
}

absl::StatusOr<runner::RawSample> CandidateSession::Sample(int set) {
  KJ_ASSIGN_OR_RETURN(const runner::PlanExecutor* plan, PlanOf(set));
  const runner::RunFn run = [plan](cudaStream_t s) { return plan->Launch(s, false); };
  return runner::TimeOneRun(run, stream_.get(), flusher_, start_, stop_);
}

}  // namespace kjudge::candidate
