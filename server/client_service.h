// ClientService: the API people and agents call (kjudge.v1.ClientService).
//
// Contract:
//  * Submit returns once the job is durable (or judged REJECTED at once); with an
//    idempotency_key a retry returns the first job. SubmitBatch does the same per item.
//  * Tenancy: a submitter sees only its own jobs and stats; another tenant's job answers
//    NOT_FOUND exactly like a job that does not exist. Admins (and everyone with auth off)
//    see all; only admins see worker ids.
//  * WatchJob / WatchJobs stream a Job whenever a watched job's state, stage, progress or
//    queue position changes and end when all are DONE; Evaluate sends the job id as initial
//    metadata "kjudge-job-id" at once, then the finished job. These three run on gRPC's
//    callback API: an open stream holds no thread; one WatchHub thread wakes them on
//    JobEvents. Open streams are capped per key and in total (RESOURCE_EXHAUSTED).
//  * Bad input follows the rule in kjudge.proto (INVALID_ARGUMENT naming field and position).
#pragma once

#include <memory>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "server/server_state.h"
#include "server/watch_hub.h"

namespace kjudge::server {

using ClientServiceBase = v1::ClientService::WithCallbackMethod_WatchJob<
    v1::ClientService::WithCallbackMethod_WatchJobs<v1::ClientService::WithCallbackMethod_Evaluate<
        v1::ClientService::Service>>>;

class ClientService final : public ClientServiceBase {
 public:
  explicit ClientService(ServerState* state, StreamCaps caps = {}) : state_(state), hub_(state->events, state->jobs, caps, state->capacity) {}

  grpc::Status ListProblems(grpc::ServerContext* context, const v1::ListProblemsRequest* request,
                            v1::ListProblemsResponse* response) override;
  grpc::Status GetProblem(grpc::ServerContext* context, const v1::GetProblemRequest* request,
                          v1::Problem* response) override;
  grpc::Status Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override;
  grpc::Status SubmitBatch(grpc::ServerContext* context, const v1::SubmitBatchRequest* request,
                           v1::SubmitBatchResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::Job* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                         v1::Job* response) override;
  grpc::Status GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                        v1::Stats* response) override;
  grpc::Status ListBaselines(grpc::ServerContext* context, const v1::ListBaselinesRequest* request,
                             v1::ListBaselinesResponse* response) override;
  grpc::Status RefreshBaselines(grpc::ServerContext* context, const v1::RefreshBaselinesRequest* request,
                                v1::RefreshBaselinesResponse* response) override;
  grpc::Status ImportBaselines(grpc::ServerContext* context, const v1::ImportBaselinesRequest* request,
                               v1::ImportBaselinesResponse* response) override;
  // The job's filename, source and launch plan as stored, capped (kjudge.proto JobSource); the
  // same NOT_FOUND as GetJob for an unknown id or another tenant's job.
  grpc::Status GetJobSource(grpc::ServerContext* context, const v1::GetJobRequest* request,
                            v1::JobSource* response) override;
  // Admin only: re-reads the problems directory (catalog_reload.h); a broken problem refuses it.
  grpc::Status ReloadProblems(grpc::ServerContext* context, const v1::ReloadProblemsRequest* request,
                              v1::ReloadProblemsResponse* response) override;

  // Callback API: each returns a reactor that lives until its call is done.
  grpc::ServerWriteReactor<v1::Job>* WatchJob(grpc::CallbackServerContext* context,
                                              const v1::WatchJobRequest* request) override;
  grpc::ServerWriteReactor<v1::Job>* WatchJobs(grpc::CallbackServerContext* context,
                                               const v1::WatchJobsRequest* request) override;
  grpc::ServerUnaryReactor* Evaluate(grpc::CallbackServerContext* context, const v1::SubmitRequest* request,
                                     v1::Job* response) override;

  // Open job streams (WatchJob, WatchJobs, Evaluate), for tests and metrics.
  size_t open_streams() const { return hub_.size(); }

 private:
  grpc::Status Authorize(const grpc::ServerContextBase& context, ApiKey* caller);
  // Rate limit, intake checks, then one JobStore transaction (idempotency, cap, insert).
  grpc::Status SubmitJob(grpc::ServerContextBase* context, const ApiKey& caller, const v1::SubmitRequest& request,
                         int64_t* id);
  grpc::Status LoadJob(int64_t id, const Viewer& viewer, v1::Job* job);
  // Sets a queued job's waiting_reason when no connected worker can take it (worker_capacity.h).
  void AnnotateWaiting(v1::Job* job);
  grpc::ServerWriteReactor<v1::Job>* OpenStream(grpc::CallbackServerContext* context,
                                                const google::protobuf::RepeatedPtrField<std::string>& ids);

  ServerState* state_;
  WatchHub hub_;
};

}  // namespace kjudge::server
