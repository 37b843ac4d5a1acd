#include "server/speedup_rule.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kjudge::server {
namespace {

// The candidate's median at `shape` (0 when the result has none).
double CandidateMedian(const v1::JobResult& result, const std::string& shape) {
  for (const v1::ShapeTiming& timing : result.timings()) {
    if (timing.shape() == shape) return timing.timing().median_us();
  }
  return 0;
}

// The known baseline's median (0 when unknown).
double BaselineMedian(const std::vector<v1::BaselineTiming>& known, const std::string& shape,
                      const std::string& name) {
  for (const v1::BaselineTiming& b : known) {
    if (b.shape() == shape && b.name() == name) return b.timing().median_us();
  }
  return 0;
}

}  // namespace

int RecomputeSpeedups(const std::vector<v1::BaselineTiming>& known, v1::JobResult* result) {
  google::protobuf::RepeatedPtrField<v1::Speedup> kept;
  std::set<std::pair<std::string, std::string>> seen;
  int dropped = 0;
  for (const v1::Speedup& posted : result->speedups()) {
    const double candidate = CandidateMedian(*result, posted.shape());
    const double baseline = BaselineMedian(known, posted.shape(), posted.baseline());
    const char* why = nullptr;
    if (!seen.insert({posted.shape(), posted.baseline()}).second) {
      why = "listed twice";
    } else if (!(candidate > 0)) {
      why = "the result has no timing at that shape";
    } else if (!(baseline > 0)) {
      why = "no baseline of that name the server knows for this job at that shape";
    }
    if (why != nullptr) {
      if (++dropped <= kMaxDropFlags) {
        result->add_flags(absl::StrCat("speedup_dropped: ", posted.baseline().substr(0, 64), " at ",
                                       posted.shape().empty() ? "(no shape)" : posted.shape().substr(0, 64), ": ",
                                       why));
      }
      continue;
    }
    v1::Speedup* speedup = kept.Add();
    *speedup = posted;
    speedup->set_speedup(baseline / candidate);
  }
  if (dropped > kMaxDropFlags) {
    result->add_flags(absl::StrCat("speedup_dropped: ", dropped - kMaxDropFlags, " more"));
  }
  result->mutable_speedups()->Swap(&kept);
  return dropped;
}

}  // namespace kjudge::server
