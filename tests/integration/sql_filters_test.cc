// SQL metacharacters in every filter of ListJobs and GetStats (issue 25), over loopback with
// real keys: each answer holds only the caller's own jobs, or is a clear INVALID_ARGUMENT,
// and no message carries SQL or a SQLite error.
#include <set>
#include <string>
#include <vector>

#include "tests/integration/api_client.h"

namespace kjudge::testing {
namespace {

// What no client-visible message may contain (unless it is the caller's own text echoed back,
// capped, in an INVALID_ARGUMENT naming the field).
void ExpectNoSql(const grpc::Status& status, const std::string& what) {
  for (const std::string word : {"SELECT", "sqlite", "json_extract", "FROM jobs", "api_keys", " in: "}) {
    if (what.find(word) != std::string::npos) continue;
    EXPECT_EQ(status.error_message().find(word), std::string::npos) << what << ": " << status.error_message();
  }
  EXPECT_LT(status.error_message().size(), 300U) << what;
}

class SqlFilters : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    const std::string alice_key = cluster_->CreateKey("submitter");
    const std::string bob_key = cluster_->CreateKey("submitter");
    cluster_->StartServer({"--require-auth"});
    alice_ = std::make_unique<ApiClient>(*cluster_, alice_key);
    bob_ = std::make_unique<ApiClient>(*cluster_, bob_key);
    v1::SubmitRequest mine = ReluRequest();
    (*mine.mutable_tags())["run"] = "r1";
    v1::SubmitResponse submitted;
    ASSERT_TRUE(alice_->Submit(mine, &submitted).ok());
    alice_job_ = submitted.job_id();
    v1::SubmitRequest theirs = ReluRequest();
    (*theirs.mutable_tags())["run"] = "r1";
    (*theirs.mutable_tags())["secret"] = "s";
    ASSERT_TRUE(bob_->Submit(theirs, &submitted).ok());
    // A finished job of bob's that GetStats counts (refused at intake: no worker needed).
    v1::SubmitRequest judged = RejectedRequest();
    (*judged.mutable_tags())["run"] = "r1";
    ASSERT_TRUE(bob_->Submit(judged, &submitted).ok());
  }

  // Jobs in a ListJobs answer are the caller's (alice's) only.
  void ExpectOnlyOwn(const v1::ListJobsResponse& listed, const std::string& what) {
    for (const v1::Job& job : listed.jobs()) EXPECT_EQ(job.id(), alice_job_) << what;
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<ApiClient> alice_, bob_;
  std::string alice_job_;
};

const std::vector<std::string>& Hostile() {
  static const std::vector<std::string> texts = {
      "x\"') OR 1=1 --",
      "x\"') = '' UNION SELECT id, name, role, sha256 FROM api_keys --",
      "'", "\"", ")", "--", ";", "*/", "/*", "' OR '1'='1", "r1' --", "%", "_", "\\",
      "\xE2\x80\xAE\xE2\x80\xA8", "\xF0\x9F\x98\x80", "run\")",
  };
  return texts;
}

TEST_F(SqlFilters, ListJobsAnswersOnlyTheCallersJobsOrInvalidArgument) {
  for (const std::string& text : Hostile()) {
    {
      v1::ListJobsRequest request;
      (*request.mutable_tags())[text] = "r1";
      v1::ListJobsResponse listed;
      grpc::Status status = alice_->ListJobs(request, &listed);
      ExpectNoSql(status, "tag key " + text);
      if (status.ok()) {
        ExpectOnlyOwn(listed, "tag key " + text);
      } else {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << text << ": " << status.error_message();
      }
    }
    {
      v1::ListJobsRequest request;
      (*request.mutable_tags())["run"] = text;
      v1::ListJobsResponse listed;
      grpc::Status status = alice_->ListJobs(request, &listed);
      ExpectNoSql(status, "tag value " + text);
      if (status.ok()) {
        EXPECT_EQ(listed.jobs_size(), 0) << "tag value " << text;
      } else {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << text << ": " << status.error_message();
      }
    }
    {
      v1::ListJobsRequest request;
      request.set_problem(text);
      v1::ListJobsResponse listed;
      grpc::Status status = alice_->ListJobs(request, &listed);
      ExpectNoSql(status, "problem " + text);
      ASSERT_TRUE(status.ok() || status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
      EXPECT_EQ(listed.jobs_size(), 0) << "problem " << text;
    }
    {
      v1::ListJobsRequest request;
      request.set_page_token(text);
      v1::ListJobsResponse listed;
      grpc::Status status = alice_->ListJobs(request, &listed);
      ExpectNoSql(status, "page token " + text);
      if (status.ok()) ExpectOnlyOwn(listed, "page token " + text);
      else EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    }
  }
  // The real filter still works, and finds only the caller's job.
  v1::ListJobsRequest run;
  (*run.mutable_tags())["run"] = "r1";
  v1::ListJobsResponse listed;
  ASSERT_TRUE(alice_->ListJobs(run, &listed).ok());
  ASSERT_EQ(listed.jobs_size(), 1);
  EXPECT_EQ(listed.jobs(0).id(), alice_job_);
}

TEST_F(SqlFilters, GetStatsCountsOnlyTheCallersJobsOrInvalidArgument) {
  // Bob's finished job is there to be counted: by bob, never through alice's filters.
  v1::GetStatsRequest bobs;
  (*bobs.mutable_tags())["run"] = "r1";
  v1::Stats counted;
  ASSERT_TRUE(bob_->GetStats(bobs, &counted).ok());
  ASSERT_EQ(counted.jobs(), 1);
  ASSERT_TRUE(alice_->GetStats(bobs, &counted).ok());
  EXPECT_EQ(counted.jobs(), 0);
  for (const std::string& text : Hostile()) {
    for (int field = 0; field < 4; ++field) {
      v1::GetStatsRequest request;
      if (field == 0) (*request.mutable_tags())[text] = "r1";
      if (field == 1) (*request.mutable_tags())["run"] = text;
      if (field == 2) request.set_problem_prefix(text);
      if (field == 3) request.set_baseline(text);
      v1::Stats stats;
      grpc::Status status = alice_->GetStats(request, &stats);
      const std::string what = "field " + std::to_string(field) + " = " + text;
      ExpectNoSql(status, what);
      if (status.ok()) {
        EXPECT_EQ(stats.jobs(), 0) << what << ": alice has no finished job; nothing else may count";
      } else {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << what << ": " << status.error_message();
      }
    }
  }
}

TEST_F(SqlFilters, ThousandsOfTagsAreInvalidArgumentNamingTheLimit) {
  v1::GetStatsRequest stats_request;
  v1::ListJobsRequest list_request;
  for (int i = 0; i < 5000; ++i) {
    (*stats_request.mutable_tags())["t" + std::to_string(i)] = "v";
    (*list_request.mutable_tags())["t" + std::to_string(i)] = "v";
  }
  v1::Stats stats;
  grpc::Status status = alice_->GetStats(stats_request, &stats);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_EQ(status.error_message(), "tags: 5000 tags; the limit is 16");
  v1::ListJobsResponse listed;
  status = alice_->ListJobs(list_request, &listed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_EQ(status.error_message(), "tags: 5000 tags; the limit is 16");
}

}  // namespace
}  // namespace kjudge::testing
