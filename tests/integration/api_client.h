// ApiClient: direct gRPC calls to a test Cluster's server with a real API key, for what the
// CLI does not expose (initial metadata, batch items, multi-job streams, raw status codes).
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"

namespace kjudge::testing {

class ApiClient {
 public:
  // `key` "" sends no authorization header (a server with auth off).
  ApiClient(const Cluster& cluster, std::string key)
      : key_(std::move(key)),
        stub_(v1::ClientService::NewStub(grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()))) {}

  // A context with the key and a deadline `timeout_ms` from now.
  std::unique_ptr<grpc::ClientContext> Context(int timeout_ms = 30000) const {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!key_.empty()) context->AddMetadata("authorization", "Bearer " + key_);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
    return context;
  }

  v1::ClientService::Stub& stub() { return *stub_; }

  grpc::Status Submit(const v1::SubmitRequest& request, v1::SubmitResponse* response) {
    return stub_->Submit(Context().get(), request, response);
  }
  grpc::Status GetJob(const std::string& id, v1::Job* job) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    return stub_->GetJob(Context().get(), request, job);
  }
  grpc::Status ListJobs(const v1::ListJobsRequest& request, v1::ListJobsResponse* response) {
    return stub_->ListJobs(Context().get(), request, response);
  }
  grpc::Status CancelJob(const std::string& id, v1::Job* job) {
    v1::CancelJobRequest request;
    request.set_job_id(id);
    return stub_->CancelJob(Context().get(), request, job);
  }
  grpc::Status GetStats(const v1::GetStatsRequest& request, v1::Stats* stats) {
    return stub_->GetStats(Context().get(), request, stats);
  }
  // Reads a WatchJobs stream to its end; the jobs it sent in `seen`.
  grpc::Status WatchJobs(const std::vector<std::string>& ids, std::vector<v1::Job>* seen, int timeout_ms = 60000) {
    v1::WatchJobsRequest request;
    for (const std::string& id : ids) request.add_job_ids(id);
    std::unique_ptr<grpc::ClientContext> context = Context(timeout_ms);
    auto reader = stub_->WatchJobs(context.get(), request);
    v1::Job job;
    while (reader->Read(&job)) seen->push_back(job);
    return reader->Finish();
  }

 private:
  std::string key_;
  std::unique_ptr<v1::ClientService::Stub> stub_;
};

// A compile-only submission of the ReLU example (queued until a worker takes it).
inline v1::SubmitRequest ReluRequest() {
  v1::SubmitRequest request;
  request.set_problem("level1/19_ReLU");
  request.set_source(ReadFileOrEmpty(SourcePath("problems/level1/19_ReLU/solution.cu")));
  request.set_filename("solution.cu");
  request.set_compile_only(true);
  return request;
}

// A well-formed submission the judge refuses at once (no launch plan): a REJECTED job that
// GetStats counts.
inline v1::SubmitRequest RejectedRequest() {
  v1::SubmitRequest request;
  request.set_problem("level1/19_ReLU");
  request.set_source("__global__ void k() {}\n");
  request.set_filename("noplan.cu");
  return request;
}

// A server with --require-auth and four keys: two tenants (alice, bob: submitters), an admin and
// a worker; an ApiClient for each person. The fixture of the tenancy tests.
class TenantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    alice_key_ = cluster_->CreateKey("submitter");
    bob_key_ = cluster_->CreateKey("submitter");
    admin_key_ = cluster_->CreateKey("admin");
    worker_key_ = cluster_->CreateKey("worker");
    cluster_->StartServer({"--require-auth"});
    alice_ = std::make_unique<ApiClient>(*cluster_, alice_key_);
    bob_ = std::make_unique<ApiClient>(*cluster_, bob_key_);
    admin_ = std::make_unique<ApiClient>(*cluster_, admin_key_);
  }
  std::unique_ptr<Cluster> cluster_;
  std::string alice_key_, bob_key_, admin_key_, worker_key_;
  std::unique_ptr<ApiClient> alice_, bob_, admin_;
};

}  // namespace kjudge::testing
