// The API an RL loop leans on, over loopback with the real server: idempotent submits (also
// across a restart), Evaluate that always hands out the job id, batch submit, one stream for
// many jobs, ListJobs filters and pages, CancelJob, bounded input with exact messages, and the
// active-job cap under a race.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

#include "tests/integration/api_client.h"

namespace kjudge::testing {
namespace {

class ClientApi : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void Start(const std::vector<std::string>& args = {}) {
    cluster_->StartServer(args);
    api_ = std::make_unique<ApiClient>(*cluster_, "");
  }
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<ApiClient> api_;
};

TEST_F(ClientApi, IdempotentRetriesReturnOneJobAlsoAfterARestart) {
  Start();
  v1::SubmitRequest request = ReluRequest();
  request.set_idempotency_key("episode-7/sample-3");
  v1::SubmitResponse first, again;
  ASSERT_TRUE(api_->Submit(request, &first).ok());
  ASSERT_TRUE(api_->Submit(request, &again).ok());
  EXPECT_EQ(again.job_id(), first.job_id());

  cluster_->KillServer(SIGKILL);
  Start();
  v1::SubmitResponse after_restart;
  ASSERT_TRUE(api_->Submit(request, &after_restart).ok());
  EXPECT_EQ(after_restart.job_id(), first.job_id());
  v1::ListJobsResponse listed;
  ASSERT_TRUE(api_->ListJobs(v1::ListJobsRequest(), &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 1) << "retries must not queue more jobs";

  request.set_source(request.source() + "\n// changed\n");
  v1::SubmitResponse reused;
  grpc::Status status = api_->Submit(request, &reused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_NE(status.error_message().find("with a different request"), std::string::npos) << status.error_message();

  // The CLI passes the key through.
  const std::string file = SourcePath("problems/level1/19_ReLU/solution.cu");
  const std::vector<std::string> args = {"submit", file, "-p", "level1/19_ReLU", "--compile-only",
                                         "--idempotency-key", "cli-1"};
  CliResult one = cluster_->Cli(args);
  CliResult two = cluster_->Cli(args);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(IdText(one.json["id"]), IdText(two.json["id"]));
}

TEST_F(ClientApi, EvaluateHandsOutTheJobIdBeforeTheDeadline) {
  Start();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(1500));
  v1::Job job;
  grpc::Status status = api_->stub().Evaluate(&context, ReluRequest(), &job);  // no worker: never done
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  const auto& metadata = context.GetServerInitialMetadata();
  auto it = metadata.find("kjudge-job-id");
  ASSERT_NE(it, metadata.end()) << "the job id must reach the client before the deadline";
  const std::string id(it->second.data(), it->second.size());
  v1::Job queued;
  ASSERT_TRUE(api_->GetJob(id, &queued).ok());
  EXPECT_EQ(queued.state(), v1::QUEUED) << "the job outlives the client's deadline";

  cluster_->StartWorker();
  grpc::ClientContext finishing;
  finishing.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  v1::Job done;
  ASSERT_TRUE(api_->stub().Evaluate(&finishing, ReluRequest(), &done).ok()) << cluster_->Logs();
  EXPECT_EQ(done.result().verdict(), v1::COMPILED);
  EXPECT_EQ(finishing.GetServerInitialMetadata().count("kjudge-job-id"), 1U);
}

TEST_F(ClientApi, BatchSubmitAnswersEachItem) {
  Start();
  v1::SubmitBatchRequest batch;
  *batch.add_requests() = ReluRequest();
  v1::SubmitRequest bad_tag = ReluRequest();
  (*bad_tag.mutable_tags())["bad key"] = "x";
  *batch.add_requests() = bad_tag;
  v1::SubmitRequest unknown = ReluRequest();
  unknown.set_problem("level9/nope");
  *batch.add_requests() = unknown;
  *batch.add_requests() = RejectedRequest();
  v1::SubmitBatchResponse response;
  ASSERT_TRUE(api_->stub().SubmitBatch(api_->Context().get(), batch, &response).ok());
  ASSERT_EQ(response.items_size(), 4);
  EXPECT_FALSE(response.items(0).job_id().empty());
  EXPECT_EQ(response.items(0).job().state(), v1::QUEUED);
  EXPECT_EQ(response.items(1).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(response.items(1).job_id().empty());
  EXPECT_NE(response.items(1).error().find("tag key 'bad key'"), std::string::npos) << response.items(1).error();
  EXPECT_EQ(response.items(2).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(response.items(3).job().result().verdict(), v1::REJECTED) << "well-formed but refused: a job";
}

TEST_F(ClientApi, WatchJobsFollowsSeveralJobsOnOneStream) {
  Start();
  cluster_->StartWorker();
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    v1::SubmitResponse response;
    ASSERT_TRUE(api_->Submit(ReluRequest(), &response).ok());
    ids.push_back(response.job_id());
  }
  ids.push_back(ids.front());  // a repeated id is watched once
  std::vector<v1::Job> seen;
  grpc::Status status = api_->WatchJobs(ids, &seen);
  ASSERT_TRUE(status.ok()) << status.error_message() << cluster_->Logs();
  std::set<std::string> done;
  for (const v1::Job& job : seen) {
    if (job.state() == v1::DONE) {
      EXPECT_TRUE(done.insert(job.id()).second) << "job " << job.id() << " reported DONE twice";
      EXPECT_EQ(job.result().verdict(), v1::COMPILED);
    }
  }
  EXPECT_EQ(done, std::set<std::string>(ids.begin(), ids.end() - 1));
}

TEST_F(ClientApi, ListJobsFiltersAndPagesNewestFirst) {
  Start();
  for (int i = 0; i < 5; ++i) {
    v1::SubmitRequest request = ReluRequest();
    (*request.mutable_tags())["run"] = i < 3 ? "x" : "y";
    v1::SubmitResponse response;
    ASSERT_TRUE(api_->Submit(request, &response).ok());
  }
  v1::SubmitResponse rejected;
  ASSERT_TRUE(api_->Submit(RejectedRequest(), &rejected).ok());

  v1::ListJobsRequest by_tag;
  (*by_tag.mutable_tags())["run"] = "x";
  v1::ListJobsResponse response;
  ASSERT_TRUE(api_->ListJobs(by_tag, &response).ok());
  EXPECT_EQ(response.jobs_size(), 3);
  v1::ListJobsRequest by_state;
  by_state.set_state(v1::DONE);
  ASSERT_TRUE(api_->ListJobs(by_state, &response).ok());
  ASSERT_EQ(response.jobs_size(), 1);
  EXPECT_EQ(response.jobs(0).id(), rejected.job_id());
  v1::ListJobsRequest by_problem;
  by_problem.set_problem("level1/1_Square_matrix_multiplication_");
  ASSERT_TRUE(api_->ListJobs(by_problem, &response).ok());
  EXPECT_EQ(response.jobs_size(), 0);

  v1::ListJobsRequest paged;
  paged.set_page_size(4);
  std::vector<int64_t> ids;
  int pages = 0;
  do {
    ASSERT_TRUE(api_->ListJobs(paged, &response).ok());
    for (const v1::Job& job : response.jobs()) ids.push_back(std::stoll(job.id()));
    paged.set_page_token(response.next_page_token());
    ++pages;
  } while (!response.next_page_token().empty());
  EXPECT_EQ(pages, 2);
  ASSERT_EQ(ids.size(), 6U);
  EXPECT_TRUE(std::is_sorted(ids.rbegin(), ids.rend())) << "newest first";
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 6U);

  v1::ListJobsRequest bad_token;
  bad_token.set_page_token("garbage");
  grpc::Status status = api_->ListJobs(bad_token, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("page_token"), std::string::npos);

  v1::ListJobsRequest bad_state;
  bad_state.set_state(static_cast<v1::JobState>(7));
  status = api_->ListJobs(bad_state, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "state: unknown value 7; QUEUED, RUNNING, DONE or unset");

  CliResult cli = cluster_->Cli({"jobs", "--tag", "run=y"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(std::count(cli.out.begin(), cli.out.end(), '\n'), 2) << cli.out;
}

TEST_F(ClientApi, CancelEndsAQueuedJobAtOnce) {
  Start();
  v1::SubmitResponse submitted;
  ASSERT_TRUE(api_->Submit(ReluRequest(), &submitted).ok());
  CliResult cancel = cluster_->Cli({"cancel", submitted.job_id()});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel.json.value("state", std::string()), "DONE");
  EXPECT_EQ(cancel.json.value("/result/verdict"_json_pointer, std::string()), "CANCELLED");
  CliResult again = cluster_->Cli({"cancel", submitted.job_id()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already done"), std::string::npos) << again.err;
  CliResult missing = cluster_->Cli({"cancel", "424242"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no job 424242"), std::string::npos) << missing.err;
  // A worker started now finds nothing to run.
  cluster_->StartWorker();
  v1::SubmitResponse next;
  ASSERT_TRUE(api_->Submit(ReluRequest(), &next).ok());
  std::vector<v1::Job> seen;
  ASSERT_TRUE(api_->WatchJobs({next.job_id(), submitted.job_id()}, &seen).ok());
  v1::Job cancelled;
  ASSERT_TRUE(api_->GetJob(submitted.job_id(), &cancelled).ok());
  EXPECT_EQ(cancelled.result().verdict(), v1::CANCELLED);
  EXPECT_EQ(cancelled.attempts(), 0) << "a cancelled queued job is never leased";
}

TEST_F(ClientApi, MalformedInputIsRefusedWithFieldAndPosition) {
  Start();
  const auto refused = [&](const v1::SubmitRequest& request) {
    v1::SubmitResponse response;
    grpc::Status status = api_->Submit(request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    return status.error_message();
  };
  v1::SubmitRequest many = ReluRequest();
  for (int i = 0; i < 17; ++i) (*many.mutable_tags())["k" + std::to_string(i)] = "v";
  EXPECT_EQ(refused(many), "tags: 17 tags; the limit is 16");
  v1::SubmitRequest long_key = ReluRequest();
  (*long_key.mutable_tags())[std::string(65, 'k')] = "v";
  EXPECT_EQ(refused(long_key), "tags: tag key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...' is 65 bytes; keys are 1 to 64 bytes");
  v1::SubmitRequest long_value = ReluRequest();
  (*long_value.mutable_tags())["model"] = std::string(257, 'v');
  EXPECT_EQ(refused(long_value), "tags[model]: 257 bytes; the limit is 256");
  v1::SubmitRequest newline_value = ReluRequest();
  (*newline_value.mutable_tags())["model"] = "a\nb";
  EXPECT_EQ(refused(newline_value),
            "tags[model]: control character (0xa) at byte offset 1; only printable characters are allowed");
  v1::SubmitRequest long_name = ReluRequest();
  long_name.set_filename(std::string(256, 'f'));
  EXPECT_EQ(refused(long_name), "filename: 256 bytes; the limit is 255");
  v1::SubmitRequest forged_log = ReluRequest();
  forged_log.set_filename("x.cu\n[info] job 1 finished CORRECT");
  EXPECT_EQ(refused(forged_log),
            "filename: control character (0xa) at byte offset 4; only printable characters are allowed");
  v1::SubmitRequest empty = ReluRequest();
  empty.clear_source();
  EXPECT_EQ(refused(empty), "source: empty; send CUDA device code");
  v1::ListJobsResponse listed;
  ASSERT_TRUE(api_->ListJobs(v1::ListJobsRequest(), &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 0) << "nothing is stored for a malformed request";

  // Invalid UTF-8 never leaves the CLI; the message gives the byte offset.
  const std::string bad = cluster_->dir() + "/bad.cu";
  {
    std::ofstream out(bad, std::ios::binary);
    out << "// caf\xc3\xa9 ok\n__global__ void k() {} // \xff\n";
  }
  CliResult cli = cluster_->Cli({"submit", bad, "-p", "level1/19_ReLU"});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_NE(cli.err.find("source: invalid UTF-8 at byte offset 38 (byte 0xff)"), std::string::npos) << cli.err;
}

int64_t DatabaseBytes(const Cluster& cluster) {
  int64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    struct stat info {};
    if (stat((cluster.dir() + "/kjudge.sqlite" + suffix).c_str(), &info) == 0) total += info.st_size;
  }
  return total;
}

TEST_F(ClientApi, RejectedSubmissionsStoreOnlyASmallRecord) {
  Start();
  v1::SubmitRequest big = RejectedRequest();  // no launch plan: REJECTED
  big.set_source(std::string(900 << 10, ' ') + "__global__ void k() {}\n");
  v1::SubmitResponse response;
  ASSERT_TRUE(api_->Submit(big, &response).ok());  // warms the WAL up
  const int64_t before = DatabaseBytes(*cluster_);
  for (int i = 0; i < 10; ++i) {
    big.set_filename("big" + std::to_string(i) + ".cu");
    ASSERT_TRUE(api_->Submit(big, &response).ok());
    ASSERT_EQ(response.job().result().verdict(), v1::REJECTED);
  }
  const int64_t grown = DatabaseBytes(*cluster_) - before;
  std::printf("ten rejected 900 KiB submissions grew the database by %lld bytes\n", static_cast<long long>(grown));
  // Each rejected submission is one transaction: its job row, the jobs indexes, its job_events
  // row and index (schema 0007) touch about ten 4 KiB pages of the WAL (~42 KiB measured), far
  // below the 900 KiB source that must not be stored.
  EXPECT_LT(grown, 10 * 64 * 1024) << "a rejected submission must not store its source";
}

TEST_F(ClientApi, ActiveJobCapHoldsUnderConcurrentSubmits) {
  Start({"--max-active-jobs-per-key", "5", "--submit-rate", "0"});
  std::atomic<int> accepted{0}, refused{0}, other{0};
  std::vector<std::thread> threads;
  threads.reserve(20);
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&] {
      ApiClient client(*cluster_, "");
      v1::SubmitResponse response;
      grpc::Status status = client.Submit(ReluRequest(), &response);
      if (status.ok()) {
        ++accepted;
      } else if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
        ++refused;
      } else {
        ++other;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(accepted.load(), 5);
  EXPECT_EQ(refused.load(), 15);
  EXPECT_EQ(other.load(), 0);
  v1::ListJobsRequest queued;
  queued.set_state(v1::QUEUED);
  v1::ListJobsResponse listed;
  ASSERT_TRUE(api_->ListJobs(queued, &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 5);
  CliResult cli = cluster_->Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "-p", "level1/19_ReLU"});
  EXPECT_EQ(cli.exit_code, 5) << "a refusal is not 'server unreachable' (3)";
  EXPECT_NE(cli.err.find("the cap is 5"), std::string::npos) << cli.err;
}

}  // namespace
}  // namespace kjudge::testing
