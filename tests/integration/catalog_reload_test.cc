// `kjudge problems reload` and SIGHUP (issue 27 pt9): a running kjudge-server serves a new or
// changed import without a restart. Real server over loopback with real API keys and a real
// catalog folder; the CLI as a user runs it; a worker through the generated WorkerService stub.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/integration/api_client.h"
#include "tests/integration/stub_worker.h"
#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

// A plain HTTP/1.0 GET on 127.0.0.1:port; the whole response ("" when it cannot connect).
std::string HttpGet(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string request =
        "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      for (ssize_t n; (n = ::read(fd, buffer, sizeof(buffer))) > 0;) response.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return response;
}

namespace fs = std::filesystem;

const std::string kSquare = "level1/1_Square_matrix_multiplication_";
const std::string kDiagonal = "level1/12_Matmul_with_diagonal_matrices_";
const std::string kHinge = "level1/100_HingeLoss";
const std::string kRelu = "level1/19_ReLU";

class CatalogReload : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    catalog_ = fs::path(cluster_->dir()) / "catalog";
    for (const std::string& name : {kSquare, kDiagonal, kHinge}) Copy(name);
    cluster_->SetProblems(catalog_.string());
    admin_ = cluster_->CreateKey("admin");
    submitter_ = cluster_->CreateKey("submitter");
    worker_key_ = cluster_->CreateKey("worker");
    cluster_->StartServer({"--require-auth"});
  }
  void Copy(const std::string& name) {
    fs::create_directories((catalog_ / name).parent_path());
    fs::copy(SourcePath("problems/" + name), catalog_ / name, fs::copy_options::recursive);
  }
  CliResult Cli(const std::string& key, std::vector<std::string> args) {
    args.insert(args.begin(), {"--api-key", key});
    return cluster_->Cli(args);
  }
  std::vector<std::string> Listed() {
    std::vector<std::string> names;
    CliResult r = Cli(submitter_, {"problems"});
    for (const auto& p : r.json["problems"]) names.push_back(p["name"]);
    return names;
  }
  std::string Submit(const std::string& problem) {
    ApiClient api(*cluster_, submitter_);
    v1::SubmitRequest request = ReluRequest();  // compile-only, with the problem's own example
    request.set_problem(problem);
    request.set_source(ReadFileOrEmpty(SourcePath("problems/" + problem + "/solution.cu")));
    v1::SubmitResponse response;
    grpc::Status status = api.Submit(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
  }

  std::unique_ptr<Cluster> cluster_;
  fs::path catalog_;
  std::string admin_, submitter_, worker_key_;
};

TEST_F(CatalogReload, AdminReloadServesANewImportAndReportsTheDiff) {
  // Catalog order: by KernelBench number (1, 12, 100), not lexically (100, 12, 1).
  EXPECT_EQ(Listed(), (std::vector<std::string>{kSquare, kDiagonal, kHinge}));
  Copy(kRelu);
  std::ofstream(catalog_ / kDiagonal / "problem.toml", std::ios::app) << "\n# re-imported\n";
  fs::remove_all(catalog_ / kHinge);
  EXPECT_EQ(Listed().size(), 3u) << "nothing changes before the reload";

  CliResult denied = Cli(submitter_, {"problems", "reload"});
  EXPECT_EQ(denied.exit_code, 6) << denied.err;
  EXPECT_EQ(Listed().size(), 3u) << "a submitter's reload does nothing";

  CliResult reload = Cli(admin_, {"problems", "reload"});
  ASSERT_EQ(reload.exit_code, 0) << reload.out << reload.err << cluster_->Logs();
  EXPECT_EQ(reload.json["added"], "1");  // int64 counts are protobuf-JSON strings
  EXPECT_EQ(reload.json["changed"], "1");
  EXPECT_EQ(reload.json["removed"], "1");
  EXPECT_EQ(reload.json["total"], "3");
  EXPECT_EQ(reload.json["added_names"], nlohmann::json::array({kRelu}));
  EXPECT_EQ(reload.json["changed_names"], nlohmann::json::array({kDiagonal}));
  EXPECT_EQ(reload.json["removed_names"], nlohmann::json::array({kHinge}));
  EXPECT_EQ(Listed(), (std::vector<std::string>{kSquare, kDiagonal, kRelu}));
  CliResult shown = Cli(submitter_, {"problem", kRelu});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_FALSE(Submit(kRelu).empty()) << "the new problem takes submissions";

  // The text form, as a person reads it.
  std::vector<std::string> args = {"--server", cluster_->address(), "--api-key", admin_, "problems", "reload"};
  CommandResult text = kjudge::testing::Run([&] {
    std::vector<std::string> argv = {KJUDGE_CLI_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }(), std::chrono::seconds(60));
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("3 problems served now: 0 added, 0 changed, 0 removed"), std::string::npos) << text.out;
}

TEST_F(CatalogReload, ABrokenProblemRefusesTheReloadAndTheOldCatalogKeepsServing) {
  Copy(kRelu);
  std::ofstream(catalog_ / kHinge / "problem.toml", std::ios::app) << "\n[[[ not toml\n";
  CliResult reload = Cli(admin_, {"problems", "reload"});
  EXPECT_EQ(reload.exit_code, 1);
  EXPECT_NE(reload.err.find("100_HingeLoss/problem.toml"), std::string::npos) << reload.err;
  EXPECT_NE(reload.err.find("previous catalog is still served"), std::string::npos) << reload.err;
  EXPECT_EQ(Listed(), (std::vector<std::string>{kSquare, kDiagonal, kHinge})) << "all or nothing: no 19_ReLU either";
  EXPECT_FALSE(Submit(kHinge).empty()) << "the old catalog still takes submissions";
}

TEST_F(CatalogReload, JobsOfARemovedProblemFinishOrEndRejectedWithTheReason) {
  StubWorker worker(*cluster_, worker_key_, /*compile_only=*/true);
  const std::string running = Submit(kSquare);
  std::optional<v1::LeaseJobResponse> lease = worker.Lease();
  ASSERT_TRUE(lease.has_value());
  ASSERT_EQ(lease->spec().job_id(), running);
  const std::string queued = Submit(kSquare);
  fs::remove_all(catalog_ / kSquare);
  CliResult reload = Cli(admin_, {"problems", "reload"});
  ASSERT_EQ(reload.exit_code, 0) << reload.err;
  EXPECT_EQ(reload.json["removed"], "1");

  // The running job finishes with what it was leased with.
  EXPECT_TRUE(worker.Complete(*lease, v1::COMPILED));
  ApiClient api(*cluster_, submitter_);
  v1::Job job;
  ASSERT_TRUE(api.GetJob(running, &job).ok());
  EXPECT_EQ(job.result().verdict(), v1::COMPILED);
  // The queued one ends REJECTED, saying why, when a worker asks for work.
  EXPECT_FALSE(worker.Lease(1000).has_value());
  ASSERT_TRUE(api.GetJob(queued, &job).ok());
  EXPECT_EQ(job.state(), v1::DONE);
  EXPECT_EQ(job.result().verdict(), v1::REJECTED);
  EXPECT_NE(job.result().message().find("no longer in the catalog"), std::string::npos) << job.result().message();
}

// The dashboard reads the catalog itself (a separate process): it notices a new import on its
// own, within its 2 s check, without a restart or a signal.
TEST_F(CatalogReload, TheDashboardShowsANewImportWithoutARestart) {
  const int port = FreeLoopbackPort();
  Subprocess dashboard({ResolveBinary("kjudge-dashboard", "KJUDGE_DASHBOARD_BIN", KJUDGE_DASHBOARD_BIN), "--db",
                        cluster_->dir() + "/kjudge.sqlite", "--problems", catalog_.string(), "--listen",
                        "127.0.0.1:" + std::to_string(port)},
                       cluster_->dir() + "/dashboard.log");
  ASSERT_TRUE(cluster_->WaitForLog("dashboard.log", "kjudge-dashboard: http://", 30))
      << ReadFileOrEmpty(cluster_->dir() + "/dashboard.log");
  const std::string before = HttpGet(port, "/problems");
  ASSERT_NE(before.find("100_HingeLoss"), std::string::npos) << before;
  EXPECT_EQ(before.find("19_ReLU"), std::string::npos);
  // Catalog order on the page too: 1, 12, 100.
  EXPECT_LT(before.find("1_Square"), before.find("12_Matmul"));
  EXPECT_LT(before.find("12_Matmul"), before.find("100_HingeLoss"));
  Copy(kRelu);
  std::string after;
  for (int i = 0; i < 60 && after.find("19_ReLU") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = HttpGet(port, "/problems");
  }
  EXPECT_NE(after.find("19_ReLU"), std::string::npos) << after.substr(0, 2000)
                                                       << ReadFileOrEmpty(cluster_->dir() + "/dashboard.log");
  EXPECT_NE(HttpGet(port, "/problems/" + kRelu).find("200 OK"), std::string::npos);
}

TEST_F(CatalogReload, SighupReloadsToo) {
  Copy(kRelu);
  cluster_->SignalServer(SIGHUP);
  std::vector<std::string> names;
  for (int i = 0; i < 50 && names.size() != 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    names = Listed();
  }
  EXPECT_EQ(names, (std::vector<std::string>{kSquare, kDiagonal, kRelu, kHinge}));
  EXPECT_TRUE(cluster_->WaitForLog("server-1.log", "problems reloaded", 5)) << cluster_->Logs();
}

}  // namespace
}  // namespace kjudge::testing

namespace kjudge::testing {
namespace {

// Issue 27 pt9: --json works after the subcommand too, and ids are JSON numbers.
TEST(CliJson, AfterTheSubcommandWithNumericIds) {
  Cluster cluster("CliJsonAfterSubcommand");
  const std::string key = cluster.CreateKey("submitter");
  cluster.StartServer({"--require-auth"});
  // Empty states read as such, not as a blank or a zero (issue 27 pt9).
  const std::vector<std::string> connect = {KJUDGE_CLI_BIN, "--server", cluster.address(), "--api-key", key};
  auto text = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv = connect;
    argv.insert(argv.end(), args.begin(), args.end());
    return kjudge::testing::Run(argv, std::chrono::seconds(60));
  };
  const CommandResult no_jobs = text({"jobs"});
  EXPECT_EQ(no_jobs.exit_code, 0) << no_jobs.err;
  EXPECT_NE(no_jobs.out.find("none yet: no job"), std::string::npos) << no_jobs.out;
  EXPECT_NE(text({"jobs", "--problem", "level1/19_ReLU"}).out.find("none yet: no job matches"), std::string::npos);
  EXPECT_NE(text({"baselines"}).out.find("none yet: no baseline measured"), std::string::npos);
  ApiClient api(cluster, key);
  v1::SubmitResponse submitted;
  ASSERT_TRUE(api.Submit(ReluRequest(), &submitted).ok());
  const std::string id = submitted.job_id();
  auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {KJUDGE_CLI_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult r = kjudge::testing::Run(argv, std::chrono::seconds(60));
    return std::make_pair(r, nlohmann::json::parse(r.out, nullptr, false));
  };
  auto [after, after_json] = run({"job", id, "--json", "--server", cluster.address(), "--api-key", key});
  EXPECT_EQ(after.exit_code, 4) << after.err;  // queued: not finished
  ASSERT_TRUE(after_json.is_object()) << after.out << after.err;
  EXPECT_TRUE(after_json["id"].is_number_integer()) << after.out;
  EXPECT_EQ(after_json["id"], std::stoll(id));
  auto [before, before_json] = run({"--json", "--server", cluster.address(), "--api-key", key, "job", id});
  EXPECT_EQ(before_json, after_json);
  auto [jobs, jobs_json] = run({"jobs", "--json", "--server", cluster.address(), "--api-key", key});
  EXPECT_TRUE(jobs_json.is_object() && jobs_json["id"].is_number_integer()) << jobs.out << jobs.err;
  auto [problems, problems_json] = run({"problems", "--json", "--server", cluster.address(), "--api-key", key});
  EXPECT_TRUE(problems_json.is_object() && problems_json["problems"].is_array()) << problems.out << problems.err;
  auto [cancel, cancel_json] = run({"cancel", id, "--json", "--server", cluster.address(), "--api-key", key});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel_json["id"], std::stoll(id));
  EXPECT_EQ(cancel_json["state"], "DONE");
}

}  // namespace
}  // namespace kjudge::testing
