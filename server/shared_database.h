// SharedDatabase: the server's one SQLite connection and the mutex that serialises it.
//
// Contract: every store (jobs, workers, baselines) takes the lock for exactly one logical
// operation, usually one transaction, so no caller ever sees half of another's change.
// Readers in other processes (the dashboard) use their own connections; WAL lets them read
// while the server writes.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "server/database.h"

namespace kjudge::server {

struct SharedDatabase {
  std::unique_ptr<Database> db;
  std::mutex mutex;
  // Milliseconds since the Unix epoch; tests replace it to move time.
  std::function<int64_t()> now_ms;
};

int64_t SystemNowMs();

}  // namespace kjudge::server
