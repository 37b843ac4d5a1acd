#include "server/server_metrics.h"

#include "absl/strings/str_cat.h"

namespace kjudge::server {
namespace {

prometheus::Histogram::BucketBoundaries SecondsBuckets() {
  return {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
}

}  // namespace

ServerMetrics::ServerMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  submitted_ = &prometheus::BuildCounter().Name("kjudge_jobs_submitted_total").Help("Jobs accepted").Register(*registry_).Add({});
  finished_ = &prometheus::BuildCounter().Name("kjudge_jobs_finished_total").Help("Finished jobs by verdict").Register(*registry_);
  rejected_ = &prometheus::BuildCounter().Name("kjudge_rpc_refused_total").Help("Calls refused by auth or limits").Register(*registry_);
  lease_latency_ = &prometheus::BuildHistogram().Name("kjudge_queue_to_lease_seconds")
                        .Help("Time from submission to first lease").Register(*registry_).Add({}, SecondsBuckets());
  job_latency_ = &prometheus::BuildHistogram().Name("kjudge_submit_to_verdict_seconds")
                      .Help("Time from submission to verdict").Register(*registry_).Add({}, SecondsBuckets());
  auto& gauges = prometheus::BuildGauge().Name("kjudge_jobs").Help("Jobs by state").Register(*registry_);
  queued_ = &gauges.Add({{"state", "queued"}});
  running_ = &gauges.Add({{"state", "running"}});
  done_ = &gauges.Add({{"state", "done"}});
  workers_ = &prometheus::BuildGauge().Name("kjudge_workers_live").Help("Workers seen in the last minute").Register(*registry_).Add({});
}

absl::StatusOr<std::unique_ptr<ServerMetrics>> ServerMetrics::Create(const std::string& listen) {
  std::unique_ptr<ServerMetrics> metrics(new ServerMetrics());
  if (!listen.empty()) {
    try {
      metrics->exposer_ = std::make_unique<prometheus::Exposer>(listen);
    } catch (const std::exception& error) {  // civetweb reports a busy port by throwing
      return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen, ": ", error.what()));
    }
    metrics->exposer_->RegisterCollectable(metrics->registry_);
  }
  return metrics;
}

void ServerMetrics::JobFinished(v1::Verdict verdict, double queue_to_done_s) {
  finished_->Add({{"verdict", v1::Verdict_Name(verdict)}}).Increment();
  job_latency_->Observe(queue_to_done_s);
}

void ServerMetrics::RpcRejected(const std::string& reason) { rejected_->Add({{"reason", reason}}).Increment(); }

void ServerMetrics::Refresh(int64_t queued, int64_t running, int64_t done, int64_t live_workers) {
  queued_->Set(static_cast<double>(queued));
  running_->Set(static_cast<double>(running));
  done_->Set(static_cast<double>(done));
  workers_->Set(static_cast<double>(live_workers));
}

}  // namespace kjudge::server
