// Tenancy over loopback with real keys: a submitter sees only its own jobs and stats; another
// tenant's job reads exactly like a job that does not exist; admins see all; submitters never
// see worker ids.
#include "tests/integration/api_client.h"

namespace kjudge::testing {
namespace {

class Tenancy : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    alice_key_ = cluster_->CreateKey("submitter");
    bob_key_ = cluster_->CreateKey("submitter");
    admin_key_ = cluster_->CreateKey("admin");
    worker_key_ = cluster_->CreateKey("worker");
    cluster_->StartServer({"--require-auth"});
    alice_ = std::make_unique<ApiClient>(*cluster_, alice_key_);
    bob_ = std::make_unique<ApiClient>(*cluster_, bob_key_);
    admin_ = std::make_unique<ApiClient>(*cluster_, admin_key_);
  }
  std::unique_ptr<Cluster> cluster_;
  std::string alice_key_, bob_key_, admin_key_, worker_key_;
  std::unique_ptr<ApiClient> alice_, bob_, admin_;
};

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

}  // namespace
}  // namespace kjudge::testing
