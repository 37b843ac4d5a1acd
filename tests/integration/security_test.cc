// Auth, roles and per-key limits, end to end over loopback with the real binaries.
#include <signal.h>

#include "tests/integration/cluster.h"

namespace kjudge::testing {
namespace {

const std::string kSolution = "problems/level1/19_ReLU/solution.cu";

class Security : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  CliResult Submit(const std::string& key, bool wait = false) {
    std::vector<std::string> args;
    if (!key.empty()) args = {"--api-key", key};
    args.insert(args.end(), {"submit", SourcePath(kSolution), "--problem", "level1/19_ReLU", "--compile-only"});
    if (wait) args.push_back("--wait");
    return cluster_->Cli(args);
  }
  std::unique_ptr<Cluster> cluster_;
};

TEST_F(Security, UnauthenticatedAndWrongRoleCallsAreRefused) {
  const std::string submitter = cluster_->CreateKey("submitter");
  const std::string worker = cluster_->CreateKey("worker");
  cluster_->StartServer({"--require-auth"});
  CliResult none = Submit("");
  EXPECT_EQ(none.exit_code, 6);
  EXPECT_NE(none.err.find("requires an API key"), std::string::npos) << none.err;
  CliResult bogus = Submit("kj_deadbeef_0123");
  EXPECT_EQ(bogus.exit_code, 6);
  EXPECT_NE(bogus.err.find("unknown or revoked"), std::string::npos) << bogus.err;
  CliResult wrong_role = Submit(worker);
  EXPECT_EQ(wrong_role.exit_code, 6);
  EXPECT_NE(wrong_role.err.find("role worker"), std::string::npos) << wrong_role.err;

  // A worker with a submitter key cannot register; with its own key it serves the job.
  cluster_->StartWorker({"--api-key", submitter});
  EXPECT_TRUE(cluster_->WaitForLog("worker.log", "cannot register", 20)) << cluster_->Logs();
  cluster_->StopWorker(SIGKILL);
  cluster_->StartWorker({"--api-key", worker});
  CliResult ok = Submit(submitter, /*wait=*/true);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err << cluster_->Logs();
  EXPECT_EQ(ok.json.value("/result/verdict"_json_pointer, std::string()), "COMPILED");
}

TEST_F(Security, RateLimitAndQueueCapAnswerResourceExhausted) {
  cluster_->StartServer({"--submit-rate", "0.2", "--submit-burst", "3", "--max-active-jobs-per-key", "2"});
  EXPECT_EQ(Submit("").exit_code, 0);
  EXPECT_EQ(Submit("").exit_code, 0);
  CliResult capped = Submit("");  // no worker: two jobs are queued, the cap is 2
  EXPECT_EQ(capped.exit_code, 5);
  EXPECT_NE(capped.err.find("the cap is 2"), std::string::npos) << capped.err;
  CliResult limited = Submit("");  // the burst of 3 is spent
  EXPECT_EQ(limited.exit_code, 5);
  EXPECT_NE(limited.err.find("rate limit"), std::string::npos) << limited.err;
  EXPECT_NE(limited.err.find("retry in"), std::string::npos) << limited.err;
}

}  // namespace
}  // namespace kjudge::testing
