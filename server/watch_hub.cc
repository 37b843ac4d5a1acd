#include "server/watch_hub.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kjudge::server {
namespace {

// Every change is followed by JobEvents::Notify; this only bounds the cost of a missed one.
constexpr std::chrono::milliseconds kFallbackPoll(2000);
// After shutdown JobEvents wakes at once every time: pace the rounds that finish the streams.
constexpr std::chrono::milliseconds kShutdownPace(100);
// The most a round's pause lasts: updates still reach watchers within a fraction of a second.
constexpr std::chrono::milliseconds kMaxPause(250);

}  // namespace

absl::StatusOr<std::optional<v1::Job>> RoundReads::Get(int64_t id, const Viewer& viewer) {
  auto key = std::make_tuple(id, viewer.key_id, viewer.admin);
  auto it = done_.find(key);
  if (it == done_.end()) {
    it = done_.emplace(std::move(key), jobs_->GetFor(id, viewer)).first;
    // The database mutex is not fair: without a yield this thread takes it back at once and a
    // Submit waiting for it waits out the whole round.
    std::this_thread::yield();
  }
  return it->second;
}

WatchHub::WatchHub(JobEvents* events, JobStore* jobs, StreamCaps caps) : events_(events), jobs_(jobs), caps_(caps) {
  thread_ = std::thread([this] { Run(); });
}

WatchHub::~WatchHub() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  events_->Notify();
  thread_.join();
}

absl::Status WatchHub::Add(const std::string& key_id, std::shared_ptr<Watcher> watcher) {
  std::lock_guard lock(mutex_);
  if (static_cast<int>(watchers_.size()) >= caps_.total) {
    return absl::ResourceExhaustedError(absl::StrCat("the server has ", watchers_.size(),
                                                     " open job streams, its limit; close some or retry later"));
  }
  // key "" is the single tenant of a server without auth: only the total cap applies to it.
  int& mine = per_key_[key_id];
  if (!key_id.empty() && mine >= caps_.per_key) {
    return absl::ResourceExhaustedError(absl::StrCat("this key has ", mine, " open job streams (the limit is ",
                                                     caps_.per_key, "); close some, or watch many jobs on one "
                                                     "stream with WatchJobs"));
  }
  ++mine;
  const Watcher* raw = watcher.get();
  watchers_[raw] = Entry{key_id, std::move(watcher)};
  return absl::OkStatus();
}

void WatchHub::Remove(const Watcher* watcher) {
  std::shared_ptr<Watcher> last;  // released after the lock: its destructor may be heavy
  std::lock_guard lock(mutex_);
  auto it = watchers_.find(watcher);
  if (it == watchers_.end()) return;
  if (--per_key_[it->second.key_id] == 0) per_key_.erase(it->second.key_id);
  last = std::move(it->second.watcher);
  watchers_.erase(it);
}

size_t WatchHub::size() const {
  std::lock_guard lock(mutex_);
  return watchers_.size();
}

void WatchHub::Run() {
  uint64_t seen = events_->version();
  while (true) {
    seen = events_->WaitForChange(seen, kFallbackPoll);
    std::vector<std::shared_ptr<Watcher>> round;
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
      round.reserve(watchers_.size());
      for (const auto& [raw, entry] : watchers_) round.push_back(entry.watcher);
    }
    const auto start = std::chrono::steady_clock::now();
    RoundReads reads(jobs_);
    for (const std::shared_ptr<Watcher>& watcher : round) watcher->Poll(&reads);
    const auto spent = std::chrono::steady_clock::now() - start;
    std::this_thread::sleep_for(events_->shutting_down() ? kShutdownPace
                                                         : std::min<std::chrono::steady_clock::duration>(spent, kMaxPause));
  }
}

}  // namespace kjudge::server
