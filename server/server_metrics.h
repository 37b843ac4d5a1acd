// ServerMetrics: Prometheus metrics of a kjudge-server, served over HTTP at /metrics.
//
// Contract: counters and histograms are updated where things happen (submissions, verdicts,
// lease latency); gauges (queue depth, running jobs, live workers) are refreshed by
// Refresh(), which the server calls once a second. Without a listen address nothing is
// served, but the methods still work (so callers need no branches).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "kjudge/v1/kjudge.pb.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace kjudge::server {

class ServerMetrics {
 public:
  // listen: "127.0.0.1:9464", or "" for no HTTP endpoint.
  static absl::StatusOr<std::unique_ptr<ServerMetrics>> Create(const std::string& listen);

  void JobSubmitted() { submitted_->Increment(); }
  void JobFinished(v1::Verdict verdict, double queue_to_done_s);
  void JobLeased(double queued_s) { lease_latency_->Observe(queued_s); }
  void RpcRejected(const std::string& reason);
  void Refresh(int64_t queued, int64_t running, int64_t done, int64_t live_workers);

 private:
  ServerMetrics();

  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Counter* submitted_;
  prometheus::Family<prometheus::Counter>* finished_;
  prometheus::Family<prometheus::Counter>* rejected_;
  prometheus::Histogram* lease_latency_;
  prometheus::Histogram* job_latency_;
  prometheus::Gauge* queued_;
  prometheus::Gauge* running_;
  prometheus::Gauge* done_;
  prometheus::Gauge* workers_;
};

}  // namespace kjudge::server
