// StubWorker: a worker driven through the generated WorkerService stub with a real worker key,
// for tests that need a lease at a moment of their choosing (complete now, or let it expire)
// rather than a real kjudge-worker's timing.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"

namespace kjudge::testing {

class StubWorker {
 public:
  // Registers a worker with `key`; compile_only: it is offered only compile-only jobs.
  StubWorker(const Cluster& cluster, std::string key, bool compile_only)
      : key_(std::move(key)),
        stub_(v1::WorkerService::NewStub(grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()))) {
    auto context = Context();
    v1::RegisterWorkerRequest request;
    request.set_name("stub");
    request.mutable_gpu()->set_compile_only(compile_only);
    if (!compile_only) request.mutable_gpu()->set_name("NVIDIA H100 80GB HBM3");
    v1::RegisterWorkerResponse response;
    grpc::Status status = stub_->RegisterWorker(context.get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    id_ = response.worker_id();
  }

  const std::string& id() const { return id_; }

  // The next job for this worker, waiting up to wait_ms; nullopt when none came.
  std::optional<v1::LeaseJobResponse> Lease(int wait_ms = 5000) {
    auto context = Context();
    v1::LeaseJobRequest request;
    request.set_worker_id(id_);
    request.set_wait_ms(wait_ms);
    v1::LeaseJobResponse response;
    grpc::Status status = stub_->LeaseJob(context.get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (!status.ok() || !response.has_job()) return std::nullopt;
    return response;
  }

  // Completes the lease with `verdict`; whether the server took the result.
  bool Complete(const v1::LeaseJobResponse& lease, v1::Verdict verdict, const std::string& message = "") {
    v1::JobResult result;
    result.set_verdict(verdict);
    result.set_message(message);
    return Complete(lease, result);
  }

  // Completes the lease with a whole result (tests, input keys...) and the baselines measured
  // with it (kept only where the lease asked for them); whether the server took the result.
  // The server computes every speedup itself from the result's timings and the baselines it
  // knows (server/speedup_rule.h): a speedup needs its timing and its baseline.
  bool Complete(const v1::LeaseJobResponse& lease, const v1::JobResult& result,
                const std::vector<v1::BaselineTiming>& baselines = {}) {
    auto context = Context();
    v1::CompleteJobRequest request;
    request.set_worker_id(id_);
    request.set_job_id(lease.spec().job_id());
    request.set_lease_token(lease.lease_token());
    *request.mutable_result() = result;
    for (const v1::BaselineTiming& b : baselines) *request.add_new_baselines() = b;
    v1::CompleteJobResponse response;
    grpc::Status status = stub_->CompleteJob(context.get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.accepted();
  }

 private:
  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", "Bearer " + key_);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return context;
  }

  std::string key_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  std::string id_;
};

}  // namespace kjudge::testing
