// WorkerService: what kjudge-worker calls (kjudge.v1.WorkerService).
//
// Contract: LeaseJob long-polls up to wait_ms (capped) for a job the worker can run and hands
// it with everything needed to judge it: the problem's spec and reference source, the
// baselines cached for this worker's hardware key, and the lease token. Every call that names
// a worker id is PERMISSION_DENIED (nothing changes) unless the caller's key registered that
// worker. Renew/ReportProgress answer still_yours = false once the lease is not current (lost,
// expired, wrong token), so the worker stops. CompleteJob stores the result only for the
// current lease, and of its baselines only those the server asked that lease to measure when
// it leased the job (none from a compile-only worker); the rest are dropped with a log line.
// A baselines-only job's stored result lists the baselines stored (JobResult.baselines).
// ReleaseJob of a lease that is not current is FAILED_PRECONDITION.
#pragma once

#include <string>
#include <vector>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "server/server_state.h"

namespace kjudge::server {

// The baselines of one CompleteJob: those the lease was asked for (to store) and the rest.
struct BaselineTriage {
  std::vector<v1::BaselineTiming> accepted;  // hardware_key as the server asked
  std::vector<std::string> dropped;          // "problem shape name from worker dropped: why"
};

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
  // FindWorker, and PERMISSION_DENIED unless `caller` registered that worker.
  grpc::Status FindOwnWorker(const ApiKey& caller, const std::string& id, struct WorkerRecord* record);
  // Fills the job's spec with the problem and records the baselines this lease is asked to
  // measure; false (and the job finished as REJECTED) if the problem is gone.
  bool AttachProblem(const struct WorkerRecord& worker, LeasedJob* job);
  // Splits the measured baselines of a result into those that match a request of the lease
  // (`requested`; hardware key taken from the request) and the rest, each with why.
  static BaselineTriage TriageBaselines(const struct WorkerRecord& worker, const v1::CompleteJobRequest& request,
                                        const std::vector<v1::BaselineTiming>& requested);
  // Stores the accepted baselines of a completed lease; logs the dropped ones.
  void StoreBaselines(const std::string& job_id, const BaselineTriage& triage);
  // The baselines a completed job's speedups may use (server/speedup_rule.h): those measured in
  // the job and accepted, then the cache for the worker's hardware key.
  std::vector<v1::BaselineTiming> KnownBaselines(const struct WorkerRecord& worker, const std::string& problem,
                                                 const BaselineTriage& triage);
  // Speedups against baselines imported for this worker's GPU model (e.g. PyTorch eager).
  void AddImportedSpeedups(const struct WorkerRecord& worker, const std::string& problem, v1::JobResult* result);
  // Records which of the result's speedups is the default one (the strongest baseline).
  void AddDefaultDenominator(const std::string& problem, v1::JobResult* result);

  ServerState* state_;
  int lease_seconds_;
};

}  // namespace kjudge::server
