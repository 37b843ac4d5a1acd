// GetJobSource and `kjudge job N --source` (issue 27 pt9) over loopback with real keys: the owner
// and admins read the source, launch plan and filename exactly as submitted; another tenant and
// an unknown id get GetJob's NOT_FOUND; a REJECTED job keeps its source; the CLI prints the
// source alone, so `> file.cu` gives back the judged file.
#include "tests/integration/api_client.h"

namespace kjudge::testing {
namespace {

class JobSource : public TenantsTest {
 protected:
  static grpc::Status Read(ApiClient& client, const std::string& id, v1::JobSource* out) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    return client.stub().GetJobSource(client.Context().get(), request, out);
  }
  // The CLI without --json (Cluster::Cli adds it): stdout exactly as a shell redirect gets it.
  CommandResult PlainCli(const std::string& key, const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {KJUDGE_CLI_BIN, "--server", cluster_->address(), "--api-key", key};
    argv.insert(argv.end(), args.begin(), args.end());
    return kjudge::testing::Run(argv, std::chrono::seconds(60));
  }
};

TEST_F(JobSource, OwnerAndAdminReadItOthersAndUnknownIdsGetNotFound) {
  const v1::SubmitRequest request = ReluRequest();
  v1::SubmitResponse submitted;
  ASSERT_TRUE(alice_->Submit(request, &submitted).ok());
  const std::string id = submitted.job_id();

  for (ApiClient* reader : {alice_.get(), admin_.get()}) {
    v1::JobSource source;
    grpc::Status status = Read(*reader, id, &source);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(source.job_id(), id);
    EXPECT_EQ(source.filename(), "solution.cu");
    EXPECT_EQ(source.source(), request.source()) << "byte for byte as submitted";
    EXPECT_NE(source.launch_plan().find("relu_vec4<<<"), std::string::npos) << "the plan taken from the source's block: "
                                                                    << source.launch_plan();
  }
  v1::JobSource source;
  grpc::Status other = Read(*bob_, id, &source);
  EXPECT_EQ(other.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(other.error_message(), "no job " + id) << "must read exactly like a job that does not exist";
  EXPECT_TRUE(source.source().empty());
  grpc::Status missing = Read(*admin_, "999999", &source);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(missing.error_message(), "no job 999999");
  grpc::Status bad = Read(*alice_, "12x", &source);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad.error_message();
  ApiClient anonymous(*cluster_, "");
  EXPECT_EQ(Read(anonymous, id, &source).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(JobSource, ARejectedJobKeepsItsSourceAndAPlanGivenApart) {
  v1::SubmitResponse rejected;
  ASSERT_TRUE(alice_->Submit(RejectedRequest(), &rejected).ok());
  ASSERT_EQ(rejected.job().result().verdict(), v1::REJECTED);
  v1::JobSource source;
  ASSERT_TRUE(Read(*alice_, rejected.job_id(), &source).ok());
  EXPECT_EQ(source.source(), RejectedRequest().source());
  EXPECT_EQ(source.filename(), "noplan.cu");
  EXPECT_EQ(source.launch_plan(), "");

  v1::SubmitRequest with_plan = ReluRequest();
  with_plan.set_launch_plan("relu_vec4<<<1, 256>>>(X, Y, M * N);\n");
  v1::SubmitResponse planned;
  ASSERT_TRUE(alice_->Submit(with_plan, &planned).ok());
  ASSERT_TRUE(Read(*alice_, planned.job_id(), &source).ok());
  EXPECT_EQ(source.launch_plan(), with_plan.launch_plan()) << "the plan sent apart from the source";
}

TEST_F(JobSource, CliPrintsOnlyTheSourceAndJsonTheMessage) {
  const v1::SubmitRequest request = ReluRequest();
  v1::SubmitResponse submitted;
  ASSERT_TRUE(alice_->Submit(request, &submitted).ok());
  const std::string id = submitted.job_id();

  CommandResult plain = PlainCli(alice_key_, {"job", id, "--source"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, request.source()) << "stdout is the file itself, nothing around it";
  EXPECT_EQ(plain.err, "");

  CliResult json = cluster_->Cli({"--api-key", admin_key_, "job", id, "--source"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  ASSERT_TRUE(json.json.is_object()) << json.out;
  EXPECT_EQ(json.json["job_id"], nlohmann::json(std::stoll(id))) << "ids as numbers, as every --json";
  EXPECT_EQ(json.json["source"], request.source());
  EXPECT_EQ(json.json["filename"], "solution.cu");
  EXPECT_TRUE(json.json.contains("launch_plan"));

  CommandResult other = PlainCli(bob_key_, {"job", id, "--source"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.out, "");
  EXPECT_NE(other.err.find("no job " + id), std::string::npos) << other.err;

  CommandResult both = PlainCli(alice_key_, {"job", id, "--source", "--wait"});
  EXPECT_EQ(both.exit_code, 2) << "--source and --wait do not go together";
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace kjudge::testing
