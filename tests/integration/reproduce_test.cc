// `kjudge reproduce` over loopback (issue 26): a real kjudge-server on a real SQLite file, a job
// completed the way a GPU worker completes it (its RPCs through the generated stubs) with the
// input keys the judge reveals after the verdict, then the CLI as a user runs it: --list and
// --json name every set with its shape, regime and key and the default set; argument errors say
// what to do; on a machine without a GPU the CLI runs the real kjudge-reproduce, which says it
// needs a CUDA GPU, and prints the exact command for a GPU host (on a GPU it writes the files).
// kjudge-reproduce's own argument checks (before any GPU is touched) are tested directly.
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/integration/stub_worker.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

const std::string kRelu = "level1/19_ReLU";
const std::string kKeyA = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const std::string kKeyB = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";
const std::string kKeyC = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

std::string ReproduceBin() {
  return ResolveBinary("kjudge-reproduce", "KJUDGE_REPRODUCE_BIN", KJUDGE_REPRODUCE_BIN);
}

class Reproduce : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    submitter_ = cluster_->CreateKey("submitter");
    const std::string worker_key = cluster_->CreateKey("worker");
    cluster_->StartServer({"--require-auth"});
    clients_ = v1::ClientService::NewStub(
        grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials()));
    worker_ = std::make_unique<StubWorker>(*cluster_, worker_key, /*compile_only=*/false);
    // kjudge-reproduce from this build, wherever the CLI binary lives.
    setenv("KJUDGE_BIN_DIR", std::filesystem::path(ReproduceBin()).parent_path().c_str(), 1);
  }
  static void Prepare(grpc::ClientContext* context, const std::string& key) {
    context->AddMetadata("authorization", "Bearer " + key);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  }
  v1::Problem Problem(const std::string& name) {
    grpc::ClientContext context;
    Prepare(&context, submitter_);
    v1::GetProblemRequest request;
    request.set_name(name);
    v1::Problem problem;
    EXPECT_TRUE(clients_->GetProblem(&context, request, &problem).ok());
    return problem;
  }
  std::string Submit() {
    grpc::ClientContext context;
    Prepare(&context, submitter_);
    v1::SubmitRequest submit;
    submit.set_problem(kRelu);
    submit.set_source(ReadFileOrEmpty(SourcePath("problems/" + kRelu + "/solution.cu")));
    v1::SubmitResponse submitted;
    EXPECT_TRUE(clients_->Submit(&context, submit, &submitted).ok());
    return submitted.job_id();
  }
  // Submits ReLU's example and completes it as the fake GPU worker: test 0 passed, test 1
  // failed (WRONG_ANSWER), one timed sample; each set with its key and regime, as the judge
  // reports them after the verdict.
  std::string JudgeWithKeys() {
    std::string job = Submit();
    const std::optional<v1::LeaseJobResponse> lease = worker_->Lease();
    if (!lease.has_value()) {
      ADD_FAILURE() << "the stub worker got no lease for job " << job;
      return job;
    }
    EXPECT_EQ(lease->spec().job_id(), job);
    const v1::Problem problem = Problem(kRelu);
    test_shape_ = problem.test_shapes(1);
    bench_shape_ = problem.bench_shapes(0);
    v1::JobResult result;
    result.set_verdict(v1::WRONG_ANSWER);
    result.set_message("wrong answer on test shape 1");
    v1::TestOutcome* passed = result.add_tests();
    passed->set_shape(problem.test_shapes(0));
    passed->set_passed(true);
    v1::TestOutcome* failed = result.add_tests();
    failed->set_shape(test_shape_);
    failed->set_passed(false);
    AddKey(&result, "test 0", problem.test_shapes(0), kKeyA, "declared");
    AddKey(&result, "test 1", test_shape_, kKeyB, "ties");
    AddKey(&result, "bench 0 sample 0", bench_shape_, kKeyC, "offset");
    EXPECT_TRUE(worker_->Complete(*lease, result));
    return job;
  }
  static void AddKey(v1::JobResult* result, const std::string& set, const std::string& shape,
                     const std::string& key_hex, const std::string& regime) {
    v1::InputKey* key = result->add_input_keys();
    key->set_set(set);
    key->set_shape(shape);
    key->set_key_hex(key_hex);
    key->set_regime(regime);
  }
  // `kjudge` as a person runs it (no --json unless given).
  CommandResult Kjudge(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN), "--server",
                                     cluster_->address(), "--api-key", submitter_};
    argv.insert(argv.end(), args.begin(), args.end());
    return kjudge::testing::Run(argv, std::chrono::seconds(120));
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<v1::ClientService::Stub> clients_;
  std::unique_ptr<StubWorker> worker_;
  std::string submitter_;
  std::string test_shape_, bench_shape_;
};

TEST_F(Reproduce, ListNamesEverySetWithShapeRegimeAndKeyAndTheDefaultIsTheFirstFailingTest) {
  const std::string job = JudgeWithKeys();
  const CommandResult json = Kjudge({"--json", "reproduce", job, "--list"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json list = nlohmann::json::parse(json.out);
  EXPECT_EQ(IdText(list["job_id"]), job);
  EXPECT_EQ(list.value("problem", ""), kRelu);
  EXPECT_EQ(list.value("verdict", ""), "WRONG_ANSWER");
  ASSERT_EQ(list["sets"].size(), 3U) << json.out;
  EXPECT_EQ(list["sets"][1].value("set", ""), "test 1");
  EXPECT_EQ(list["sets"][1].value("shape", ""), test_shape_);
  EXPECT_EQ(list["sets"][1].value("regime", ""), "ties");
  EXPECT_EQ(list["sets"][1].value("key_hex", ""), kKeyB);
  EXPECT_EQ(list["sets"][2].value("regime", ""), "offset");
  EXPECT_EQ(list["sets"][2].value("shape", ""), bench_shape_);
  // The failing test's set is the default, and only it.
  EXPECT_FALSE(list["sets"][0].value("default", true));
  EXPECT_TRUE(list["sets"][1].value("default", false));
  EXPECT_FALSE(list["sets"][2].value("default", true));

  const CommandResult human = Kjudge({"reproduce", job, "--list"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find(kKeyC), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("bench 0 sample 0"), std::string::npos) << human.out;
  const size_t default_line = human.out.find("<- default");
  ASSERT_NE(default_line, std::string::npos) << human.out;
  const size_t line_start = human.out.rfind('\n', default_line) + 1;  // npos + 1 = 0
  EXPECT_EQ(human.out.substr(line_start, 6), "test 1") << human.out;
  EXPECT_NE(human.out.substr(line_start, default_line - line_start).find(kKeyB), std::string::npos)
      << human.out;
  EXPECT_NE(human.err.find("kjudge reproduce " + job + " --set 'test 1'"), std::string::npos) << human.err;
}

TEST_F(Reproduce, ArgumentErrorsSayWhatToDo) {
  const std::string job = JudgeWithKeys();
  const CommandResult unknown_set = Kjudge({"reproduce", job, "--set", "test 9"});
  EXPECT_EQ(unknown_set.exit_code, 2) << unknown_set.err;
  EXPECT_NE(unknown_set.err.find("has no input set 'test 9'"), std::string::npos) << unknown_set.err;
  EXPECT_NE(unknown_set.err.find("kjudge reproduce " + job + " --list"), std::string::npos) << unknown_set.err;

  const CommandResult unknown_job = Kjudge({"reproduce", "999999", "--list"});
  EXPECT_NE(unknown_job.exit_code, 0);
  EXPECT_NE(unknown_job.err.find("999999"), std::string::npos) << unknown_job.err;

  const CommandResult no_id = Kjudge({"reproduce"});
  EXPECT_EQ(no_id.exit_code, 2) << no_id.err;

  // Not finished: the keys are not revealed before the verdict.
  const std::string queued = Submit();
  const CommandResult unfinished = Kjudge({"reproduce", queued, "--list"});
  EXPECT_EQ(unfinished.exit_code, 4) << unfinished.err;
  EXPECT_NE(unfinished.err.find("is not finished"), std::string::npos) << unfinished.err;
  EXPECT_NE(unfinished.err.find("kjudge job " + queued + " --wait"), std::string::npos) << unfinished.err;
}

TEST_F(Reproduce, WithoutAGpuItSaysSoAndPrintsTheCommandForAGpuHost) {
  const std::string job = JudgeWithKeys();
  const std::string out = cluster_->dir() + "/repro";
  const CommandResult run = Kjudge({"reproduce", job, "--set", "bench 0 sample 0", "--out", out});
  // The spec the set was drawn for, from the server, beside the files.
  EXPECT_TRUE(std::filesystem::exists(out + "/spec/" + kRelu + "/problem.toml")) << run.err;
  if (run.exit_code == 0) {  // this machine has a GPU: the files are there
    const nlohmann::json manifest = nlohmann::json::parse(ReadFileOrEmpty(out + "/manifest.json"));
    EXPECT_EQ(manifest.value("key_hex", ""), kKeyC);
    EXPECT_EQ(manifest.value("regime", ""), "offset");
    GTEST_SKIP() << "this machine has a CUDA GPU: the no-GPU message is not reachable";
  }
  EXPECT_EQ(run.exit_code, 7) << run.out << run.err;
  EXPECT_NE(run.err.find("kjudge reproduce needs a CUDA GPU: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("kjudge --server " + cluster_->address() + " reproduce " + job +
                         " --set 'bench 0 sample 0' --out " + out),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("kjudge-reproduce --problems problems --problem " + kRelu + " --shape " +
                         bench_shape_ + " --key " + kKeyC + " --regime offset"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find(submitter_), std::string::npos) << "the API key must never be printed";
}

// kjudge-reproduce checks every argument before it touches a GPU, so these hold anywhere.
TEST(ReproduceBinary, BadArgumentsAreRefusedBeforeAnyGpuWork) {
  const std::string problems = SourcePath("problems");
  const std::vector<std::string> base = {ReproduceBin(), "--problems", problems, "--out", "/dev/null/never"};
  auto run = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return kjudge::testing::Run(argv, std::chrono::seconds(60));
  };
  const CommandResult bad_key = run({"--problem", kRelu, "--shape", "N=1", "--key", "xyz"});
  EXPECT_EQ(bad_key.exit_code, 2) << bad_key.err;
  const CommandResult unknown_problem = run({"--problem", "level9/nope", "--shape", "N=1", "--key", kKeyA});
  EXPECT_EQ(unknown_problem.exit_code, 2);
  EXPECT_NE(unknown_problem.err.find("unknown problem 'level9/nope'"), std::string::npos) << unknown_problem.err;
  const CommandResult unknown_shape = run({"--problem", kRelu, "--shape", "N=12345678901", "--key", kKeyA});
  EXPECT_EQ(unknown_shape.exit_code, 2);
  EXPECT_NE(unknown_shape.err.find("unknown shape 'N=12345678901'"), std::string::npos) << unknown_shape.err;
  EXPECT_NE(unknown_shape.err.find("its shapes: "), std::string::npos) << unknown_shape.err;
  // A real shape, the first the error lists, for the key and regime checks.
  const size_t from = unknown_shape.err.find("its shapes: ") + 12;
  const std::string shape = unknown_shape.err.substr(from, unknown_shape.err.find_first_of(" \n", from) - from);
  const CommandResult short_key = run({"--problem", kRelu, "--shape", shape, "--key", "abcd"});
  EXPECT_EQ(short_key.exit_code, 2);
  EXPECT_NE(short_key.err.find("--key: expected 64 hex digits"), std::string::npos) << short_key.err;
  std::string not_hex = kKeyA;
  not_hex[10] = 'g';
  const CommandResult bad_digit = run({"--problem", kRelu, "--shape", shape, "--key", not_hex});
  EXPECT_EQ(bad_digit.exit_code, 2);
  EXPECT_NE(bad_digit.err.find("character 11 is not a hex digit"), std::string::npos) << bad_digit.err;
  const CommandResult bad_regime =
      run({"--problem", kRelu, "--shape", shape, "--key", kKeyA, "--regime", "offest"});
  EXPECT_EQ(bad_regime.exit_code, 2);
  EXPECT_NE(bad_regime.err.find("--regime 'offest'"), std::string::npos) << bad_regime.err;
  // All good: the GPU is the only thing left (exit 3 here without one; 1 on a GPU host, where
  // --out cannot be created under /dev/null, not even by root).
  const CommandResult good = run({"--problem", kRelu, "--shape", shape, "--key", kKeyA, "--regime", "declared"});
  if (good.exit_code == 3) {
    EXPECT_NE(good.err.find("kjudge reproduce needs a CUDA GPU: "), std::string::npos) << good.err;
  } else {
    EXPECT_EQ(good.exit_code, 1) << good.err;
  }
}

}  // namespace
}  // namespace kjudge::testing
