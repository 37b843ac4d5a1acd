// Tenancy over loopback with real keys: a submitter sees only its own jobs and stats; another
// tenant's job reads exactly like a job that does not exist; admins see all; submitters never
// see worker ids, in any field or text; queue positions count only the caller's own queue.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <csignal>
#include <regex>

#include "tests/integration/api_client.h"
#include "tests/integration/stub_worker.h"

namespace kjudge::testing {
namespace {

class Tenancy : public TenantsTest {};

TEST_F(Tenancy, AnotherTenantsJobIsNotFoundOnEveryCall) {
  v1::SubmitResponse submitted;
  ASSERT_TRUE(alice_->Submit(ReluRequest(), &submitted).ok());
  const std::string id = submitted.job_id();

  v1::Job job;
  grpc::Status missing = bob_->GetJob("999999", &job);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(missing.error_message(), "no job 999999");
  grpc::Status get = bob_->GetJob(id, &job);
  EXPECT_EQ(get.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(get.error_message(), "no job " + id) << "must read exactly like a job that does not exist";

  std::vector<v1::Job> seen;
  grpc::Status watch_many = bob_->WatchJobs({id}, &seen, 5000);
  EXPECT_EQ(watch_many.error_code(), grpc::StatusCode::NOT_FOUND) << watch_many.error_message();
  EXPECT_TRUE(seen.empty());
  {
    v1::WatchJobRequest request;
    request.set_job_id(id);
    auto context = bob_->Context(5000);
    auto reader = bob_->stub().WatchJob(context.get(), request);
    EXPECT_FALSE(reader->Read(&job));
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
  }
  v1::ListJobsResponse listed;
  ASSERT_TRUE(bob_->ListJobs(v1::ListJobsRequest(), &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 0);
  grpc::Status cancel = bob_->CancelJob(id, &job);
  EXPECT_EQ(cancel.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(cancel.error_message(), "no job " + id);
  CliResult cli = cluster_->Cli({"--api-key", bob_key_, "job", id});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_NE(cli.err.find("no job " + id), std::string::npos) << cli.err;

  // The owner and an admin see it; the cancel above did nothing.
  ASSERT_TRUE(alice_->GetJob(id, &job).ok());
  EXPECT_EQ(job.state(), v1::QUEUED);
  ASSERT_TRUE(admin_->GetJob(id, &job).ok());
  ASSERT_TRUE(alice_->ListJobs(v1::ListJobsRequest(), &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 1);
  v1::ListJobsResponse all;
  ASSERT_TRUE(admin_->ListJobs(v1::ListJobsRequest(), &all).ok());
  EXPECT_EQ(all.jobs_size(), 1);
}

// Issue 30 pt3: the admin-only calls had no negative test. A submitter's and a worker's key are
// refused with PERMISSION_DENIED naming the role needed, and nothing changes; an admin's are served.
TEST_F(Tenancy, AdminOnlyCallsRefuseSubmittersAndWorkers) {
  ApiClient worker_as_client(*cluster_, worker_key_);
  v1::ImportBaselinesRequest import;
  v1::BaselineTiming* timing = import.add_baselines();
  timing->set_problem("level1/19_ReLU");
  timing->set_name("reference");
  timing->set_shape("forged");
  timing->set_hardware_key("forged-gpu");
  timing->mutable_timing()->set_median_us(0.001);
  const auto refused = [](const grpc::Status& status, const std::string& call) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << call << ": " << status.error_message();
    EXPECT_NE(status.error_message().find("needs admin"), std::string::npos) << call << ": " << status.error_message();
  };
  for (ApiClient* caller : {alice_.get(), &worker_as_client}) {
    v1::ImportBaselinesResponse imported;
    refused(caller->stub().ImportBaselines(caller->Context().get(), import, &imported), "ImportBaselines");
    v1::RefreshBaselinesRequest refresh;
    refresh.set_problem_prefix("level1/");
    v1::RefreshBaselinesResponse refreshed;
    refused(caller->stub().RefreshBaselines(caller->Context().get(), refresh, &refreshed), "RefreshBaselines");
    v1::ReloadProblemsResponse reloaded;
    refused(caller->stub().ReloadProblems(caller->Context().get(), v1::ReloadProblemsRequest(), &reloaded),
            "ReloadProblems");
  }
  // Nothing was stored by the refused import; the admin's own calls go through.
  v1::ListBaselinesRequest list;
  list.set_problem_prefix("level1/19_ReLU");
  v1::ListBaselinesResponse baselines;
  ASSERT_TRUE(admin_->stub().ListBaselines(admin_->Context().get(), list, &baselines).ok());
  for (const auto& b : baselines.baselines()) EXPECT_NE(b.shape(), "forged");
  v1::ReloadProblemsResponse reloaded;
  EXPECT_TRUE(admin_->stub().ReloadProblems(admin_->Context().get(), v1::ReloadProblemsRequest(), &reloaded).ok());
  EXPECT_GT(reloaded.total(), 0);
}

TEST_F(Tenancy, SubmittersNeverSeeWorkerIdsAdminsDo) {
  cluster_->StartWorker({"--api-key", worker_key_});
  v1::SubmitResponse submitted;
  ASSERT_TRUE(alice_->Submit(ReluRequest(), &submitted).ok());
  std::vector<v1::Job> seen;
  ASSERT_TRUE(alice_->WatchJobs({submitted.job_id()}, &seen).ok()) << cluster_->Logs();
  ASSERT_FALSE(seen.empty());
  for (const v1::Job& job : seen) EXPECT_EQ(job.worker(), "") << "a submitter saw a worker id";
  EXPECT_EQ(seen.back().result().verdict(), v1::COMPILED);
  v1::Job job;
  ASSERT_TRUE(alice_->GetJob(submitted.job_id(), &job).ok());
  EXPECT_EQ(job.worker(), "");
  ASSERT_TRUE(admin_->GetJob(submitted.job_id(), &job).ok());
  EXPECT_NE(job.worker(), "") << "admins see which worker ran it";
}

TEST_F(Tenancy, StatsCountOnlyTheCallersJobsOrThePublicOnes) {
  v1::SubmitResponse response;
  ASSERT_TRUE(alice_->Submit(RejectedRequest(), &response).ok());
  ASSERT_EQ(response.job().result().verdict(), v1::REJECTED);
  ASSERT_TRUE(alice_->Submit(RejectedRequest(), &response).ok());
  v1::SubmitRequest shared = RejectedRequest();
  shared.set_public_(true);
  ASSERT_TRUE(bob_->Submit(shared, &response).ok());
  EXPECT_TRUE(response.job().public_());

  const auto jobs = [](ApiClient& client, bool public_only) {
    v1::GetStatsRequest request;
    request.set_public_only(public_only);
    v1::Stats stats;
    EXPECT_TRUE(client.GetStats(request, &stats).ok());
    return stats.jobs();
  };
  EXPECT_EQ(jobs(*alice_, false), 2);
  EXPECT_EQ(jobs(*bob_, false), 1);
  EXPECT_EQ(jobs(*admin_, false), 3);
  EXPECT_EQ(jobs(*alice_, true), 1) << "a leaderboard shows only what owners made public";
  CliResult cli = cluster_->Cli({"--api-key", bob_key_, "stats"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(cli.json.value("jobs", std::string()), "1") << cli.out;
  CliResult board = cluster_->Cli({"--api-key", alice_key_, "stats", "--public"});
  EXPECT_EQ(board.exit_code, 0) << board.err;
  EXPECT_EQ(board.json.value("jobs", std::string()), "1") << board.out;
}

// Issue 25: a position among the jobs the caller may see, so it reveals nothing of another
// tenant's queue; a watcher's positions follow its own queue and nothing else.
TEST_F(Tenancy, QueuePositionCountsOnlyWhatTheCallerMaySee) {
  const auto submit = [](ApiClient& client) {
    v1::SubmitResponse response;
    EXPECT_TRUE(client.Submit(ReluRequest(), &response).ok());
    return response.job_id();
  };
  const auto position = [](ApiClient& client, const std::string& id) {
    v1::Job job;
    EXPECT_TRUE(client.GetJob(id, &job).ok());
    return job.queue_position();
  };
  std::vector<std::string> alices, bobs;
  for (int i = 0; i < 3; ++i) alices.push_back(submit(*alice_));
  for (int i = 0; i < 2; ++i) bobs.push_back(submit(*bob_));
  alices.push_back(submit(*alice_));
  for (size_t i = 0; i < alices.size(); ++i) EXPECT_EQ(position(*alice_, alices[i]), static_cast<int64_t>(i + 1));
  EXPECT_EQ(position(*bob_, bobs[0]), 1) << "three of Alice's jobs are ahead of it, and Bob must not learn that";
  EXPECT_EQ(position(*bob_, bobs[1]), 2);
  EXPECT_EQ(position(*admin_, bobs[0]), 4) << "an admin counts every tenant's queue";
  EXPECT_EQ(position(*admin_, alices[3]), 6);
  v1::ListJobsResponse listed;
  ASSERT_TRUE(bob_->ListJobs(v1::ListJobsRequest(), &listed).ok());
  ASSERT_EQ(listed.jobs_size(), 2);
  EXPECT_EQ(listed.jobs(0).queue_position(), 2);  // newest first
  EXPECT_EQ(listed.jobs(1).queue_position(), 1);

  // Bob watches his second job: Alice's queue moving sends him nothing; his own does.
  v1::WatchJobsRequest request;
  request.add_job_ids(bobs[1]);
  auto context = bob_->Context(20000);
  auto stream = bob_->stub().WatchJobs(context.get(), request);
  v1::Job seen;
  ASSERT_TRUE(stream->Read(&seen));
  EXPECT_EQ(seen.queue_position(), 2);
  v1::Job cancelled;
  ASSERT_TRUE(alice_->CancelJob(alices[0], &cancelled).ok());
  ASSERT_TRUE(alice_->CancelJob(alices[1], &cancelled).ok());
  EXPECT_EQ(position(*alice_, alices[3]), 2);
  EXPECT_EQ(position(*bob_, bobs[1]), 2);
  ASSERT_TRUE(bob_->CancelJob(bobs[0], &cancelled).ok());
  ASSERT_TRUE(stream->Read(&seen));
  EXPECT_EQ(seen.state(), v1::QUEUED);
  EXPECT_EQ(seen.queue_position(), 1) << "the next update is his own queue moving, none for Alice's";
  ASSERT_TRUE(bob_->CancelJob(bobs[1], &cancelled).ok());
  ASSERT_TRUE(stream->Read(&seen));
  EXPECT_EQ(seen.state(), v1::DONE);
  EXPECT_FALSE(stream->Read(&seen));
  EXPECT_TRUE(stream->Finish().ok());
}

// Every string field of `message`, recursively (repeated and map fields included), with its path.
void Strings(const google::protobuf::Message& message, const std::string& path,
             std::vector<std::pair<std::string, std::string>>* out) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    const std::string name = path + "." + std::string(field->name());
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_STRING) {
        out->emplace_back(name, field->is_repeated() ? reflection->GetRepeatedString(message, field, i)
                                                     : reflection->GetString(message, field));
      } else if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
        Strings(field->is_repeated() ? reflection->GetRepeatedMessage(message, field, i)
                                     : reflection->GetMessage(message, field),
                name, out);
      }
    }
  }
}

// Issue 25: worker ids reached tenants in the timeline and in an INTERNAL_ERROR message, and an
// admin's cancel showed the admin's key id. Every string of every response a tenant gets is
// scanned for any worker id and any key id but its own.
TEST_F(Tenancy, NoWorkerIdOrOtherKeyIdReachesATenant) {
  cluster_->KillServer(SIGTERM);
  cluster_->StartServer({"--require-auth", "--lease-seconds", "2", "--max-attempts", "2"});
  StubWorker worker(*cluster_, worker_key_, /*compile_only=*/true);
  ASSERT_FALSE(worker.id().empty());

  // A job whose worker stops renewing twice: requeued once, then INTERNAL_ERROR.
  v1::SubmitResponse abandoned;
  ASSERT_TRUE(alice_->Submit(ReluRequest(), &abandoned).ok());
  for (int attempt = 1; attempt <= 2; ++attempt) {
    std::optional<v1::LeaseJobResponse> lease = worker.Lease();
    ASSERT_TRUE(lease.has_value());
    ASSERT_EQ(lease->spec().job_id(), abandoned.job_id());
    v1::Job job;
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(admin_->GetJob(abandoned.job_id(), &job).ok());
      if (job.state() != v1::RUNNING) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_NE(job.state(), v1::RUNNING) << "the lease never expired";
  }
  v1::Job admin_view;
  ASSERT_TRUE(admin_->GetJob(abandoned.job_id(), &admin_view).ok());
  EXPECT_EQ(admin_view.worker(), worker.id()) << "admins still see which worker held it, in its own field";

  // An admin cancels one of Alice's jobs; Alice cancels one herself.
  v1::SubmitResponse by_admin, by_owner;
  ASSERT_TRUE(alice_->Submit(ReluRequest(), &by_admin).ok());
  ASSERT_TRUE(alice_->Submit(ReluRequest(), &by_owner).ok());
  v1::Job ignored;
  ASSERT_TRUE(admin_->CancelJob(by_admin.job_id(), &ignored).ok());
  v1::Job own_cancel;
  ASSERT_TRUE(alice_->CancelJob(by_owner.job_id(), &own_cancel).ok());

  // Everything Alice can read about them.
  std::vector<std::pair<std::string, std::string>> strings;
  Strings(abandoned, "Submit", &strings);
  Strings(own_cancel, "CancelJob", &strings);
  std::map<std::string, v1::Job> got;
  for (const std::string& id : {abandoned.job_id(), by_admin.job_id(), by_owner.job_id()}) {
    ASSERT_TRUE(alice_->GetJob(id, &got[id]).ok());
    Strings(got[id], "GetJob", &strings);
  }
  v1::ListJobsResponse listed;
  ASSERT_TRUE(alice_->ListJobs(v1::ListJobsRequest(), &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 3);
  Strings(listed, "ListJobs", &strings);
  std::vector<v1::Job> watched;
  ASSERT_TRUE(alice_->WatchJobs({abandoned.job_id(), by_admin.job_id(), by_owner.job_id()}, &watched).ok());
  EXPECT_EQ(watched.size(), 3u);
  for (const v1::Job& job : watched) Strings(job, "WatchJobs", &strings);

  const std::string alice_id = alice_key_.substr(0, alice_key_.find('_', 3));
  const std::regex worker_id("w-[0-9a-f]{16}");
  const std::regex key_id("kj_[0-9a-f]{8}");
  for (const auto& [path, text] : strings) {
    EXPECT_EQ(text.find(worker.id()), std::string::npos) << path << ": " << text;
    EXPECT_FALSE(std::regex_search(text, worker_id)) << path << ": " << text;
    for (std::sregex_iterator it(text.begin(), text.end(), key_id), end; it != end; ++it) {
      EXPECT_EQ(it->str(), alice_id) << path << " names another key: " << text;
    }
  }
  EXPECT_EQ(got[abandoned.job_id()].result().verdict(), v1::INTERNAL_ERROR);
  EXPECT_EQ(got[abandoned.job_id()].result().message(),
            "gave up after 2 attempts; the last ended with: its worker stopped renewing its lease");
  EXPECT_EQ(got[by_admin.job_id()].result().message(), "cancelled by an administrator");
  EXPECT_EQ(got[by_owner.job_id()].result().message(), "cancelled by its owner");
}

}  // namespace
}  // namespace kjudge::testing
