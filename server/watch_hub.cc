#include "server/watch_hub.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace kjudge::server {
namespace {

// Every change is followed by JobEvents::Notify; this only bounds the cost of a missed one
// (a change made by another process, e.g. `keys revoke`, is found in job_events then).
constexpr std::chrono::milliseconds kFallbackPoll(2000);
// After shutdown JobEvents wakes at once every time: pace the rounds that finish the streams.
constexpr std::chrono::milliseconds kShutdownPace(100);
// The most a round's pause lasts. Rounds read only what changed, so they are short; a burst
// (one tenant cancelling thousands of watched jobs) still leaves others' updates this late.
constexpr std::chrono::milliseconds kMaxPause(50);
// job_events rows read per statement; a round reads on until it has them all.
constexpr int kChangeBatch = 5000;

}  // namespace

absl::StatusOr<std::optional<v1::Job>> RoundReads::Get(int64_t id, const Viewer& viewer) {
  auto key = std::make_tuple(id, viewer.key_id, viewer.admin);
  auto it = done_.find(key);
  if (it == done_.end()) {
    absl::StatusOr<std::optional<v1::Job>> job = jobs_->GetForUnranked(id, viewer);
    if (job.ok() && job->has_value() && (*job)->state() == v1::QUEUED) {
      absl::StatusOr<int64_t> position = Position(id, (*job)->compile_only(), viewer);
      if (!position.ok()) {
        job = position.status();
      } else {
        (*job)->set_queue_position(*position);
      }
    }
    it = done_.emplace(std::move(key), std::move(job)).first;
    // The database mutex is not fair: without a yield this thread takes it back at once and a
    // Submit waiting for it waits out the whole round.
    std::this_thread::yield();
  }
  return it->second;
}

absl::StatusOr<const RoundReads::Ranks*> RoundReads::RanksFor(const Viewer& viewer, int64_t id) {
  auto scope = std::make_pair(viewer.admin, viewer.admin ? std::string() : viewer.key_id);
  auto it = ranks_.find(scope);
  // Read once per round; once more if `id` is missing (queued after the first read).
  const bool reread = it != ranks_.end() && !it->second.first.contains(id) && !it->second.second;
  if (it == ranks_.end() || reread) {
    absl::StatusOr<std::vector<std::pair<int64_t, bool>>> queued = jobs_->QueuedFor(viewer);
    if (!queued.ok()) return queued.status();
    Ranks ranks;
    ranks.reserve(queued->size());
    Rank rank;
    for (const auto& [job, compile_only] : *queued) {
      ++rank.all;
      if (!compile_only) ++rank.gpu;
      ranks.emplace(job, rank);
    }
    if (it == ranks_.end()) {
      it = ranks_.emplace(std::move(scope), std::make_pair(std::move(ranks), false)).first;
    } else {
      it->second = std::make_pair(std::move(ranks), true);
    }
    std::this_thread::yield();  // as in Get
  }
  return &it->second.first;
}

absl::StatusOr<int64_t> RoundReads::Position(int64_t id, bool compile_only, const Viewer& viewer) {
  absl::StatusOr<const Ranks*> ranks = RanksFor(viewer, id);
  if (!ranks.ok()) return ranks.status();
  auto it = (*ranks)->find(id);
  if (it == (*ranks)->end()) return 0;
  return compile_only ? it->second.all : it->second.gpu;
}

WatchHub::WatchHub(JobEvents* events, JobStore* jobs, StreamCaps caps, WorkerCapacityCache* capacity)
    : events_(events), jobs_(jobs), caps_(caps), capacity_(capacity) {
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

absl::Status WatchHub::Add(const std::string& key_id, const Viewer& viewer, std::shared_ptr<Watcher> watcher,
                           const std::vector<int64_t>& ids) {
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
  watchers_[raw] = Entry{key_id, viewer, std::move(watcher), {}};
  if (viewer.admin) {
    admins_.insert(raw);
  } else {
    by_viewer_key_[viewer.key_id].insert(raw);
  }
  for (const int64_t id : ids) FollowLocked(raw, id);
  return absl::OkStatus();
}

void WatchHub::Follow(const Watcher* watcher, int64_t id) {
  std::lock_guard lock(mutex_);
  FollowLocked(watcher, id);
}

void WatchHub::FollowLocked(const Watcher* watcher, int64_t id) {
  auto it = watchers_.find(watcher);
  if (it == watchers_.end()) return;
  it->second.ids.push_back(id);
  by_job_[id].insert(watcher);
}

void WatchHub::Remove(const Watcher* watcher) {
  std::shared_ptr<Watcher> last;  // released after the lock: its destructor may be heavy
  std::lock_guard lock(mutex_);
  auto it = watchers_.find(watcher);
  if (it == watchers_.end()) return;
  Entry& entry = it->second;
  if (--per_key_[entry.key_id] == 0) per_key_.erase(entry.key_id);
  for (const int64_t id : entry.ids) {
    auto job = by_job_.find(id);
    if (job == by_job_.end()) continue;
    job->second.erase(watcher);
    if (job->second.empty()) by_job_.erase(job);
  }
  if (entry.viewer.admin) {
    admins_.erase(watcher);
  } else if (auto key = by_viewer_key_.find(entry.viewer.key_id); key != by_viewer_key_.end()) {
    key->second.erase(watcher);
    if (key->second.empty()) by_viewer_key_.erase(key);
  }
  last = std::move(entry.watcher);
  watchers_.erase(it);
}

size_t WatchHub::size() const {
  std::lock_guard lock(mutex_);
  return watchers_.size();
}

void WatchHub::Run() {
  int64_t last_event = 0;
  if (absl::StatusOr<int64_t> newest = jobs_->LastEventId(); newest.ok()) last_event = *newest;
  uint64_t seen = events_->version();
  while (true) {
    seen = events_->WaitForChange(seen, kFallbackPoll);
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
    }
    const auto start = std::chrono::steady_clock::now();
    Round(&last_event);
    const auto spent = std::chrono::steady_clock::now() - start;
    std::this_thread::sleep_for(events_->shutting_down() ? kShutdownPace
                                                         : std::min<std::chrono::steady_clock::duration>(spent, kMaxPause));
  }
}

void WatchHub::Round(int64_t* last_event) {
  const bool shutdown = events_->shutting_down();
  // Read before looking for watchers: one added after the look reads its jobs itself, after
  // every change up to `newest`, so those may be skipped when nobody watched.
  absl::StatusOr<int64_t> newest = jobs_->LastEventId();
  bool idle = false;
  {
    std::lock_guard lock(mutex_);
    idle = watchers_.empty();
  }
  if (idle && !shutdown) {
    if (newest.ok()) *last_event = *newest;
    last_capacity_.reset();
    return;
  }
  // What changed: the jobs with new events, whose owners' queues moved if they entered or left
  // the queue, and the running jobs (their progress within a stage writes no event).
  std::set<int64_t> changed;
  std::set<std::string> moved_queues;
  int64_t next_event = *last_event;
  while (true) {
    absl::StatusOr<std::vector<JobStore::Change>> changes = jobs_->ChangesSince(next_event, kChangeBatch);
    if (!changes.ok()) {
      spdlog::warn("job streams: reading the job changes failed (retried next round): {}", changes.status().message());
      return;
    }
    for (const JobStore::Change& change : *changes) {
      changed.insert(change.job_id);
      if (change.queue_changed) moved_queues.insert(change.owner);
      next_event = change.event_id;
    }
    if (static_cast<int>(changes->size()) < kChangeBatch) break;
  }
  absl::StatusOr<std::vector<int64_t>> running = jobs_->RunningIds();
  if (!running.ok()) {
    spdlog::warn("job streams: reading the running jobs failed (retried next round): {}", running.status().message());
    return;
  }
  *last_event = next_event;
  changed.insert(running->begin(), running->end());

  std::unordered_map<const Watcher*, Wakeup> wakeups;
  {
    std::lock_guard lock(mutex_);
    for (const int64_t id : changed) {
      auto it = by_job_.find(id);
      if (it == by_job_.end()) continue;
      for (const Watcher* watcher : it->second) {
        Wakeup& wakeup = wakeups[watcher];
        if (wakeup.watcher == nullptr) wakeup.watcher = watchers_.at(watcher).watcher;
        wakeup.changed.push_back(id);
        wakeup.cost = std::max(wakeup.cost, wakeup.changed.size());
      }
    }
    const auto positions = [&](const Watcher* watcher) {
      Wakeup& wakeup = wakeups[watcher];
      const Entry& entry = watchers_.at(watcher);
      if (wakeup.watcher == nullptr) wakeup.watcher = entry.watcher;
      wakeup.positions = true;
      wakeup.cost = std::max(wakeup.cost, entry.ids.size());
    };
    for (const std::string& owner : moved_queues) {
      if (auto it = by_viewer_key_.find(owner); it != by_viewer_key_.end()) {
        for (const Watcher* watcher : it->second) positions(watcher);
      }
    }
    if (!moved_queues.empty()) {
      for (const Watcher* watcher : admins_) positions(watcher);
    }
    if (shutdown) {
      for (const auto& [raw, entry] : watchers_) {
        Wakeup& wakeup = wakeups[raw];
        if (wakeup.watcher == nullptr) wakeup.watcher = entry.watcher;
      }
    }
  }
  // Cheapest first: a wakeup costs about its changed ids, or, when positions moved, every job
  // the watcher watches (re-ranked). So one tenant's thousand-job streams wait behind another
  // tenant's single-job watch, never the other way round.
  std::vector<Wakeup*> order;
  order.reserve(wakeups.size());
  for (auto& [raw, wakeup] : wakeups) order.push_back(&wakeup);
  std::stable_sort(order.begin(), order.end(), [](const Wakeup* a, const Wakeup* b) { return a->cost < b->cost; });
  RoundReads reads(jobs_);
  for (Wakeup* wakeup : order) wakeup->watcher->Wake(&reads, wakeup->changed, wakeup->positions);
  if (CapacityMoved()) ReannotateAll();
}

bool WatchHub::CapacityMoved() {
  if (capacity_ == nullptr) return false;
  absl::StatusOr<WorkerCapacity> now = capacity_->Get();
  if (!now.ok()) return false;  // logged where it is read for a job; tried again next round
  const bool moved = !last_capacity_.has_value() || *last_capacity_ != *now;
  last_capacity_ = *now;
  return moved;
}

void WatchHub::ReannotateAll() {
  std::vector<std::shared_ptr<Watcher>> all;
  {
    std::lock_guard lock(mutex_);
    all.reserve(watchers_.size());
    for (const auto& [raw, entry] : watchers_) all.push_back(entry.watcher);
  }
  for (const std::shared_ptr<Watcher>& watcher : all) watcher->CapacityChanged();
}

}  // namespace kjudge::server
