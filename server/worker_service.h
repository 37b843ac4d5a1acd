// WorkerService: what kjudge-worker calls (kjudge.v1.WorkerService).
//
// Contract: LeaseJob long-polls up to wait_ms (capped) for a job the worker can run and hands
// it with everything needed to judge it: the problem's spec and reference source and the
// baselines cached for this worker's hardware key. Renew/ReportProgress answer still_yours =
// false once the lease was lost, so the worker stops. CompleteJob stores the result and any
// newly measured baselines, and is refused for a lease that is no longer held.
#pragma once

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "server/server_state.h"

namespace kjudge::server {

class WorkerService final : public v1::WorkerService::Service {
 public:
  WorkerService(ServerState* state, int lease_seconds) : state_(state), lease_seconds_(lease_seconds) {}

  grpc::Status RegisterWorker(grpc::ServerContext* context, const v1::RegisterWorkerRequest* request,
                              v1::RegisterWorkerResponse* response) override;
  grpc::Status LeaseJob(grpc::ServerContext* context, const v1::LeaseJobRequest* request,
                        v1::LeaseJobResponse* response) override;
  grpc::Status RenewLease(grpc::ServerContext* context, const v1::RenewLeaseRequest* request,
                          v1::RenewLeaseResponse* response) override;
  grpc::Status ReportProgress(grpc::ServerContext* context, const v1::ReportProgressRequest* request,
                              v1::ReportProgressResponse* response) override;
  grpc::Status CompleteJob(grpc::ServerContext* context, const v1::CompleteJobRequest* request,
                           v1::CompleteJobResponse* response) override;
  grpc::Status ReleaseJob(grpc::ServerContext* context, const v1::ReleaseJobRequest* request,
                          v1::ReleaseJobResponse* response) override;

 private:
  grpc::Status FindWorker(const std::string& id, struct WorkerRecord* record);
  // Fills spec with the problem; false (and the job finished as REJECTED) if it is gone.
  bool AttachProblem(const struct WorkerRecord& worker, v1::RunSpec* spec);
  // Speedups against baselines imported for this worker's GPU model (e.g. PyTorch eager).
  void AddImportedSpeedups(const struct WorkerRecord& worker, const std::string& job_id, v1::JobResult* result);

  ServerState* state_;
  int lease_seconds_;
};

}  // namespace kjudge::server
