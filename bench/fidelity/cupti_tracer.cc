#include "bench/fidelity/cupti_tracer.h"

#include <cupti.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace kjudge::bench {
namespace {

constexpr size_t kBufferBytes = size_t{8} << 20;  // per CUPTI activity buffer
constexpr size_t kBufferAlign = 8;                // ACTIVITY_RECORD_ALIGNMENT

CuptiTracer* g_tracer = nullptr;  // the one tracer (CUPTI's buffer callbacks take no user data)

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
constexpr CUpti_CallbackDomain kDomains[] = {CUPTI_CB_DOMAIN_RUNTIME_API,
                                             CUPTI_CB_DOMAIN_DRIVER_API};

absl::Status CuptiStatus(CUptiResult result, const std::string& what) {
  if (result == CUPTI_SUCCESS) return absl::OkStatus();
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "?";
  return absl::InternalError(what + ": " + text + " (CUPTI error " +
                             std::to_string(static_cast<int>(result)) + ")");
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI BufferCompleted(CUcontext /*context*/, uint32_t /*stream_id*/, uint8_t* buffer,
                              size_t /*size*/, size_t valid_size) {
  if (g_tracer != nullptr && buffer != nullptr) g_tracer->OnBufferCompleted(buffer, valid_size);
  std::free(buffer);
}

void CUPTIAPI ApiCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId /*cbid*/,
                          const void* cbdata) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(cbdata);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  static_cast<CuptiTracer*>(userdata)->OnApiEnter(info->correlationId);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CuptiTracer>> CuptiTracer::Create() {
  if (g_tracer != nullptr) return absl::FailedPreconditionError("a CuptiTracer already exists");
  std::unique_ptr<CuptiTracer> tracer(new CuptiTracer());
  absl::Status s = CuptiStatus(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
                               "cuptiActivityRegisterCallbacks");
  if (!s.ok()) return s;
  CUpti_SubscriberHandle sub = nullptr;
  s = CuptiStatus(cuptiSubscribe(&sub, ApiCallback, tracer.get()), "cuptiSubscribe");
  if (!s.ok()) return s;
  tracer->subscriber_ = sub;
  g_tracer = tracer.get();
  return tracer;
}

CuptiTracer::~CuptiTracer() {
  if (active_) (void)Stop();
  if (subscriber_ != nullptr) {
    (void)cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
  }
  (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_tracer = nullptr;
}

absl::Status CuptiTracer::Start(uint64_t flush_bytes) {
  if (active_) return absl::FailedPreconditionError("CuptiTracer::Start while active");
  {
    std::lock_guard<std::mutex> lock(mu_);
    raw_.clear();
  }
  run_of_correlation_.clear();
  current_run_ = -1;
  next_run_ = 0;
  flush_bytes_ = flush_bytes;
  auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
  for (CUpti_CallbackDomain d : kDomains) {
    if (absl::Status s = CuptiStatus(cuptiEnableDomain(1, sub, d), "cuptiEnableDomain");
        !s.ok()) {
      return s;
    }
  }
  for (CUpti_ActivityKind k : kKinds) {
    if (absl::Status s = CuptiStatus(cuptiActivityEnable(k),
                                     "cuptiActivityEnable(" + std::to_string(k) + ")");
        !s.ok()) {
      return s;
    }
  }
  active_ = true;
  return absl::OkStatus();
}

absl::StatusOr<Trace> CuptiTracer::Stop() {
  if (!active_) return absl::FailedPreconditionError("CuptiTracer::Stop while inactive");
  active_ = false;
  current_run_ = -1;
  absl::Status status = absl::OkStatus();
  for (CUpti_ActivityKind k : kKinds) {
    absl::Status s =
        CuptiStatus(cuptiActivityDisable(k), "cuptiActivityDisable(" + std::to_string(k) + ")");
    if (status.ok()) status = s;
  }
  auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
  for (CUpti_CallbackDomain d : kDomains) {
    absl::Status s = CuptiStatus(cuptiEnableDomain(0, sub, d), "cuptiEnableDomain(0)");
    if (status.ok()) status = s;
  }
  {
    absl::Status s = CuptiStatus(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                                 "cuptiActivityFlushAll");
    if (status.ok()) status = s;
  }
  if (!status.ok()) return status;

  Trace trace;
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    trace.dropped_records = dropped;
  }
  trace.runs.resize(static_cast<size_t>(next_run_));
  std::vector<Raw> raw;
  {
    std::lock_guard<std::mutex> lock(mu_);
    raw.swap(raw_);
  }
  for (const Raw& r : raw) {
    if (r.start == 0 || r.end < r.start) {
      ++trace.bad_timestamps;
      continue;
    }
    auto it = run_of_correlation_.find(r.correlation_id);
    if (it == run_of_correlation_.end()) {
      if (r.kind == Raw::Kind::kMemset && r.bytes == flush_bytes_) {
        ++trace.flush_memsets;
      } else {
        ++trace.other_uncorrelated;
      }
      continue;
    }
    RunActivity& run = trace.runs[static_cast<size_t>(it->second)];
    switch (r.kind) {
      case Raw::Kind::kKernel:
        ++run.kernels;
        trace.kernel_names.insert(r.name);
        break;
      case Raw::Kind::kMemcpy: ++run.memcpys; break;
      case Raw::Kind::kMemset: ++run.memsets; break;
    }
    run.busy_ns += r.end - r.start;
    if (run.first_start == 0 || r.start < run.first_start) run.first_start = r.start;
    if (r.end > run.last_end) run.last_end = r.end;
  }
  return trace;
}

void CuptiTracer::OnApiEnter(uint32_t correlation_id) {
  if (current_run_ >= 0) run_of_correlation_[correlation_id] = current_run_;
}

void CuptiTracer::OnBufferCompleted(const uint8_t* buffer, size_t valid_size) {
  std::vector<Raw> got;
  CUpti_Activity* record = nullptr;
  // cuptiActivityGetNextRecord takes a non-const buffer but only reads it.
  auto* buf = const_cast<uint8_t*>(buffer);
  while (cuptiActivityGetNextRecord(buf, valid_size, &record) == CUPTI_SUCCESS) {
    Raw r;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        r.kind = Raw::Kind::kKernel;
        r.correlation_id = k->correlationId;
        r.start = k->start;
        r.end = k->end;
        r.name = k->name != nullptr ? k->name : "?";
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        r.kind = Raw::Kind::kMemcpy;
        r.correlation_id = m->correlationId;
        r.start = m->start;
        r.end = m->end;
        r.bytes = m->bytes;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        r.kind = Raw::Kind::kMemset;
        r.correlation_id = m->correlationId;
        r.start = m->start;
        r.end = m->end;
        r.bytes = m->bytes;
        break;
      }
      default:
        continue;
    }
    got.push_back(std::move(r));
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (Raw& r : got) raw_.push_back(std::move(r));
}

}  // namespace kjudge::bench
