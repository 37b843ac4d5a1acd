// CandidateSession: everything a candidate process does for its one job, request by request
// (proto/kjudge/v1/candidate.proto). It is the only place a submitted cubin is ever loaded.
//
// Contract: the session owns this process's CUDA stream, events and L2-flush buffer, the
// loaded submission (after Load) and the judge's buffers mapped into this process (after Bind;
// inputs read-only). Handle() answers one request; a failure becomes the reply's verdict,
// message and CUDA error. After a reply with sticky = true the caller must exit: the context is
// unusable. The process holds nothing else: no seed, no expected outputs, no pristine inputs,
// no reference, no key; its address space maps only what the judge bound.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "kjudge/v1/candidate.pb.h"
#include "worker/gpu/cuda_module.h"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/job_setup.h"
#include "worker/gpu/message_channel.h"
#include "worker/gpu/plan_executor.h"
#include "worker/gpu/shared_allocation.h"
#include "worker/gpu/timing.h"

namespace kjudge::candidate {

class CandidateSession {
 public:
  // Creates the stream, events and L2-flush buffer on `device` (the context comes with them).
  static absl::StatusOr<std::unique_ptr<CandidateSession>> Create(int device);

  v1::CandidateReply Handle(const v1::CandidateRequest& request,
                            std::vector<runner::ScopedFd> fds);

 private:
  struct BoundSet {
    std::vector<runner::MappedAllocation> mappings;
    std::optional<runner::PlanExecutor> plan;
  };
  CandidateSession(int device, runner::Stream stream, runner::L2Flusher flusher,
                   runner::Event start, runner::Event stop, runner::PlanLimits limits)
      : device_(device), stream_(std::move(stream)), flusher_(std::move(flusher)),
        start_(std::move(start)), stop_(std::move(stop)), limits_(limits) {}

  absl::Status Load(const v1::CandidateRequest::Load& load);
  absl::Status Bind(const v1::CandidateRequest::Bind& bind, std::vector<runner::ScopedFd> fds);
  absl::StatusOr<const runner::PlanExecutor*> PlanOf(int set) const;
  absl::Status Run(const v1::CandidateRequest::Run& run);
  absl::StatusOr<runner::RawSample> Sample(int set);

  int device_;
  runner::Stream stream_;
  runner::L2Flusher flusher_;
  runner::Event start_;
  runner::Event stop_;
  runner::PlanLimits limits_;
  std::optional<runner::JobSetup> setup_;
  std::optional<runner::CudaModule> module_;
  std::map<int, BoundSet> sets_;
};

}  // namespace kjudge::candidate
