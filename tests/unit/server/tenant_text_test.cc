// What a tenant reads of the server's text (issue 25): worker ids and other keys' ids are
// redacted, in stored results and in the timeline (JobStore on a real SQLite file); admins read
// the text as stored.
#include "server/tenant_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "server/job_store.h"
#include "server/migrations.h"

namespace kjudge::server {
namespace {

TEST(TenantText, WorkerIdsAndOtherKeysIdsAreRedacted) {
  EXPECT_EQ(RedactForTenant("gave up after 3 attempts; the last ended with: worker w-0123456789abcdef stopped "
                            "renewing its lease",
                            "kj_00000001"),
            "gave up after 3 attempts; the last ended with: the worker stopped renewing its lease");
  EXPECT_EQ(RedactForTenant("Worker w-0123456789abcdef lost it", ""), "The worker lost it");
  EXPECT_EQ(RedactForTenant("held by w-0123456789abcdef.", ""), "held by a worker.");
  EXPECT_EQ(RedactForTenant("cancelled by its owner (kj_deadbeef)", "kj_0badcafe"), "cancelled by its owner (a key)");
  EXPECT_EQ(RedactForTenant("cancelled by its owner (kj_0badcafe)", "kj_0badcafe"),
            "cancelled by its owner (kj_0badcafe)")
      << "a tenant may read its own key id";
  // Not ids: other lengths, upper case, part of a longer word.
  for (const char* kept : {"w-0123", "w-0123456789ABCDEF", "xw-0123456789abcdef", "w-0123456789abcdef0",
                           "kj_1234567", "kj_123456789", "compile-only worker"}) {
    EXPECT_EQ(RedactForTenant(kept, ""), kept);
  }
}

TEST(TenantText, TimelineAndResultsAreRedactedForSubmittersOnly) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kjudge-tenant-text-" + std::to_string(getpid()) + ".sqlite")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  {
    SharedDatabase shared;
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(ApplyMigrations(**db, BuiltinMigrations()).ok());
    shared.db = std::move(*db);
    shared.now_ms = [] { return int64_t{1'000'000}; };
    JobStore store(&shared, JobStoreOptions{});
    NewJob job;
    job.problem = "level1/19_ReLU";
    job.source = "__global__ void k() {}";
    job.api_key_id = "kj_0badcafe";
    // A result stored before the fix, naming a worker and an admin's key.
    v1::JobResult old;
    old.set_verdict(v1::INTERNAL_ERROR);
    old.set_message("worker w-0123456789abcdef stopped renewing its lease; cancelled by kj_deadbeef");
    job.immediate_result = old;
    absl::StatusOr<int64_t> id = store.Enqueue(job);
    ASSERT_TRUE(id.ok()) << id.status();

    const Viewer owner{"kj_0badcafe", false}, admin{"kj_deadbeef", true};
    absl::StatusOr<std::optional<v1::Job>> seen = store.GetFor(*id, owner);
    ASSERT_TRUE(seen.ok() && seen->has_value());
    EXPECT_EQ((*seen)->result().message(), "the worker stopped renewing its lease; cancelled by a key");
    absl::StatusOr<std::vector<v1::Job>> listed = store.List(owner, JobFilter{});
    ASSERT_TRUE(listed.ok() && listed->size() == 1);
    EXPECT_EQ(listed->front().result().message(), (*seen)->result().message());
    absl::StatusOr<std::vector<JobEvent>> events = store.Events(*id, owner);
    ASSERT_TRUE(events.ok() && !events->empty());
    EXPECT_EQ(events->back().detail, "the worker stopped renewing its lease; cancelled by a key");
    EXPECT_EQ(events->back().worker_id, "");

    absl::StatusOr<std::optional<v1::Job>> as_admin = store.GetFor(*id, admin);
    ASSERT_TRUE(as_admin.ok() && as_admin->has_value());
    EXPECT_EQ((*as_admin)->result().message(), old.message()) << "admins read the text as stored";
    absl::StatusOr<std::vector<JobEvent>> admin_events = store.Events(*id, admin);
    ASSERT_TRUE(admin_events.ok() && !admin_events->empty());
    EXPECT_EQ(admin_events->back().detail, old.message());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

}  // namespace
}  // namespace kjudge::server
