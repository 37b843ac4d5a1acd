// ClientService: the API people and agents call (kjudge.v1.ClientService).
//
// Contract: Submit returns once the job is durable (or judged REJECTED at once); WatchJob
// streams a Job message whenever its state, stage, progress or queue position changes and
// ends after DONE; Evaluate is Submit + wait, bounded by the caller's deadline.
#pragma once

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "server/server_state.h"

namespace kjudge::server {

class ClientService final : public v1::ClientService::Service {
 public:
  explicit ClientService(ServerState* state) : state_(state) {}

  grpc::Status ListProblems(grpc::ServerContext* context, const v1::ListProblemsRequest* request,
                            v1::ListProblemsResponse* response) override;
  grpc::Status GetProblem(grpc::ServerContext* context, const v1::GetProblemRequest* request,
                          v1::Problem* response) override;
  grpc::Status Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::Job* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::Job>* writer) override;
  grpc::Status Evaluate(grpc::ServerContext* context, const v1::SubmitRequest* request,
                        v1::Job* response) override;
  grpc::Status GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                        v1::Stats* response) override;
  grpc::Status ListBaselines(grpc::ServerContext* context, const v1::ListBaselinesRequest* request,
                             v1::ListBaselinesResponse* response) override;
  grpc::Status RefreshBaselines(grpc::ServerContext* context, const v1::RefreshBaselinesRequest* request,
                                v1::RefreshBaselinesResponse* response) override;
  grpc::Status ImportBaselines(grpc::ServerContext* context, const v1::ImportBaselinesRequest* request,
                               v1::ImportBaselinesResponse* response) override;

 private:
  grpc::Status Authorize(grpc::ServerContext* context, ApiKey* caller);
  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitRequest& request, int64_t* id);
  grpc::Status LoadJob(int64_t id, v1::Job* job);

  ServerState* state_;
};

}  // namespace kjudge::server
