#include "worker/lease_keeper.h"

#include <grpcpp/grpcpp.h>

#include "common/log.h"

namespace kjudge::worker {

LeaseKeeper::LeaseKeeper(v1::WorkerService::Stub* stub, std::string api_key, std::string worker_id,
                         std::string job_id, std::string lease_token, std::chrono::milliseconds period)
    : stub_(stub), api_key_(std::move(api_key)), worker_id_(std::move(worker_id)), job_id_(std::move(job_id)),
      lease_token_(std::move(lease_token)), period_(period) {
  thread_ = std::thread(&LeaseKeeper::Loop, this);
}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void LeaseKeeper::Loop() {
  std::unique_lock lock(mutex_);
  while (!cv_.wait_for(lock, period_, [&] { return stop_; })) {
    lock.unlock();
    grpc::ClientContext context;
    if (!api_key_.empty()) context.AddMetadata("authorization", "Bearer " + api_key_);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::RenewLeaseRequest request;
    request.set_worker_id(worker_id_);
    request.set_job_id(job_id_);
    request.set_lease_token(lease_token_);
    v1::RenewLeaseResponse response;
    grpc::Status status = stub_->RenewLease(&context, request, &response);
    const bool refused = status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
                         status.error_code() == grpc::StatusCode::UNAUTHENTICATED;
    if ((status.ok() && !response.still_yours()) || refused) {
      spdlog::warn("job {}: the server says the lease is no longer ours{}; stopping", job_id_,
                   refused ? " (" + status.error_message() + ")" : "");
      lost_ = true;
    } else if (!status.ok()) {
      spdlog::warn("job {}: lease renewal failed ({}); will retry", job_id_, status.error_message());
    }
    lock.lock();
  }
}

}  // namespace kjudge::worker
