// The compiler sandbox end to end: a source whose NVRTC log is ~22 MB (over the server's 16 MiB
// message limit) ends COMPILE_ERROR with a capped log instead of wedging the worker, and the
// same worker then serves a normal job; a kernel written the way LLMs write them (<cfloat>,
// <cstdint>, -INFINITY) compiles with kjudge's std_headers; a host-only include says what to
// use. Real server, worker, runner and kjudge-compiler.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "kjudge/v1/kjudge.grpc.pb.h"
#include "tests/integration/cluster.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

std::string Verdict(const CliResult& r) {
  return r.json.value("/result/verdict"_json_pointer, std::string());
}

TEST(CompilerSandboxEndToEnd, HugeCompileLogIsCappedAndTheWorkerServesOn) {
  Cluster cluster("CompilerSandboxHugeLog");
  cluster.StartServer();
  cluster.StartWorker();
  // One ~220 KB line with hundreds of undefined identifiers: NVRTC echoes it with each of its
  // 100 errors.
  std::string line = "  Y[0] = 0.0f";
  for (int i = 0; line.size() < 220000; ++i) line += " + undefined_identifier_number_" + std::to_string(i);
  const std::string path = cluster.dir() + "/huge_log.cu";
  std::ofstream(path) << "/* kjudge-plan\nrelu_log<<<min(cdiv(M * N, 256), 65536), 256>>>(X, Y, M * N);\n*/\n"
                         "extern \"C\" __global__ void relu_log(const float* X, float* Y, long long n) {\n"
                      << line << ";\n}\n";
  CliResult big = cluster.Cli({"submit", path, "--problem", "level1/19_ReLU", "--compile-only", "--wait"}, 240);
  EXPECT_EQ(Verdict(big), "COMPILE_ERROR") << big.out << big.err << cluster.Logs();
  const std::string log = big.json.value("/result/compile_log"_json_pointer, std::string());
  EXPECT_LE(log.size(), 70000u);
  EXPECT_NE(log.find("bytes of compiler log cut]"), std::string::npos) << log.substr(0, 500);
  EXPECT_NE(log.find("undefined_identifier_number_0"), std::string::npos);

  CliResult normal = cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                  "level1/19_ReLU", "--compile-only", "--wait"},
                                 240);
  EXPECT_EQ(normal.exit_code, 0) << normal.out << normal.err << cluster.Logs();
  EXPECT_EQ(Verdict(normal), "COMPILED") << normal.out;
}

// The issue's softmax: KernelBench style, starting with <cfloat> and <cstdint>, a row max
// seeded with -INFINITY. Without kjudge's std_headers this was a COMPILE_ERROR.
TEST(CompilerSandboxEndToEnd, StandardHeadersCompile) {
  Cluster cluster("CompilerSandboxStdHeaders");
  cluster.StartServer();
  cluster.StartWorker();
  const std::string path = cluster.dir() + "/softmax_std.cu";
  std::ofstream(path) << R"(#include <cfloat>
#include <cstdint>
#include <cmath>
#include <algorithm>
/* kjudge-plan
softmax_rows<<<M, 256>>>(X, Y, M, N);
*/
extern "C" __global__ void softmax_rows(const float* __restrict__ X, float* __restrict__ Y,
                                        int64_t M, int64_t N) {
  __shared__ float red[256];
  const float* x = X + blockIdx.x * N;
  float* y = Y + blockIdx.x * N;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) m = std::max(m, x[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) sum += std::exp(x[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.f / fmaxf(red[0], FLT_MIN);
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) y[j] = std::exp(x[j] - m) * inv;
}
)";
  CliResult ok = cluster.Cli({"submit", path, "--problem", "level1/23_Softmax", "--compile-only", "--wait"}, 240);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err << cluster.Logs();
  EXPECT_EQ(Verdict(ok), "COMPILED") << ok.out;

  const std::string host = cluster.dir() + "/host_only.cu";
  std::ofstream(host) << "#include <iostream>\n/* kjudge-plan\nk<<<1, 1>>>(X, Y, M, N);\n*/\n"
                         "extern \"C\" __global__ void k(const float* X, float* Y, long long M, long long N) {}\n";
  CliResult bad = cluster.Cli({"submit", host, "--problem", "level1/23_Softmax", "--compile-only", "--wait"}, 240);
  EXPECT_EQ(Verdict(bad), "COMPILE_ERROR") << bad.out << bad.err;
  const std::string log = bad.json.value("/result/compile_log"_json_pointer, std::string());
  EXPECT_NE(log.find("kjudge: <iostream> is a host-only header"), std::string::npos) << log;
  EXPECT_NE(log.find("use device printf (<cstdio>)"), std::string::npos) << log;
}

// --- What a compile may tell a submitter (issue 26.5), over a real server, worker, runner and
// kjudge-compiler. ---

const char kPlan[] = "/* kjudge-plan\nk<<<1, 1>>>(X, Y, M, N);\n*/\n";
const char kKernel[] = "extern \"C\" __global__ void k(const float* X, float* Y, long long M, long long N) {}\n";

std::unique_ptr<v1::ClientService::Stub> Clients(const Cluster& cluster) {
  return v1::ClientService::NewStub(grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
}

void Prepare(grpc::ClientContext* context, const std::string& key = "") {
  if (!key.empty()) context->AddMetadata("authorization", "Bearer " + key);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
}

std::string SubmitSource(v1::ClientService::Stub& clients, const std::string& source, grpc::Status* status,
                         const std::string& key = "") {
  grpc::ClientContext context;
  Prepare(&context, key);
  v1::SubmitRequest request;
  request.set_problem("level1/23_Softmax");
  request.set_source(source);
  request.set_compile_only(true);
  v1::SubmitResponse response;
  *status = clients.Submit(&context, request, &response);
  return response.job_id();
}

v1::Job WaitDone(v1::ClientService::Stub& clients, const std::string& id, int timeout_s = 120) {
  v1::Job job;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    grpc::ClientContext context;
    Prepare(&context);
    v1::GetJobRequest request;
    request.set_job_id(id);
    if (clients.GetJob(&context, request, &job).ok() && job.state() == v1::DONE) return job;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "job " << id << " not done in " << timeout_s << " s: " << job.DebugString();
  return job;
}

// The answer to `#include X` with X and the caret column under it made neutral.
std::string Neutral(const v1::Job& job, const std::string& name) {
  std::string text = job.result().message() + "\n" + job.result().compile_log();
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 3)) text.replace(at, name.size(), "<X>");
  for (size_t caret = text.find(" ^"); caret != std::string::npos; caret = text.find(" ^")) {
    const size_t from = text.find_last_not_of(' ', caret) + 1;
    text.erase(from, caret + 1 - from);
  }
  return text;
}

// Whether a host path exists, is unreadable, is a directory or a process: one answer. And no
// absolute host path in what a mistaken `#include <iostream>` answers.
TEST(CompileTextsEndToEnd, IncludesTellNothingAboutTheHost) {
  Cluster cluster("CompileTextsIncludes");
  cluster.StartServer();
  cluster.StartWorker();
  auto clients = Clients(cluster);
  const std::string unreadable = cluster.dir() + "/unreadable.h";
  std::ofstream(unreadable) << "int x;\n";
  std::filesystem::permissions(unreadable, std::filesystem::perms::none);
  const std::vector<std::string> names = {"/no/such/dir/x.h", unreadable, cluster.dir(), "/etc/passwd",
                                          "/proc/self/status", "/proc/1/status", "../../../../../../../etc/hostname"};
  std::vector<std::string> ids;
  for (const std::string& name : names) {
    grpc::Status status;
    ids.push_back(SubmitSource(*clients, "#include \"" + name + "\"\n" + kPlan + kKernel, &status));
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  const v1::Job missing = WaitDone(*clients, ids[0]);
  EXPECT_EQ(missing.result().verdict(), v1::COMPILE_ERROR);
  const std::string answer = Neutral(missing, names[0]);
  EXPECT_NE(answer.find("cannot open source file \"<X>\"\n"), std::string::npos) << answer;
  for (size_t i = 1; i < names.size(); ++i) {
    const v1::Job job = WaitDone(*clients, ids[i]);
    EXPECT_EQ(job.result().verdict(), v1::COMPILE_ERROR) << names[i];
    EXPECT_EQ(Neutral(job, names[i]), answer) << names[i];
  }

  grpc::Status status;
  const v1::Job host = WaitDone(*clients, SubmitSource(*clients, std::string("#include <iostream>\n") + kPlan + kKernel, &status));
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::string text = host.result().message() + "\n" + host.result().compile_log();
  EXPECT_NE(text.find("<kjudge-include>/iostream("), std::string::npos) << text;
  EXPECT_NE(text.find("kjudge: <iostream> is a host-only header"), std::string::npos) << text;
  EXPECT_EQ(text.find("/share/kjudge/std_headers"), std::string::npos) << text;
  EXPECT_EQ(text.find(SourcePath("")), std::string::npos) << text;
}

// One 1 MB `#error` line per job: the message and log each job carries, a ListJobs page of 50
// of them and the worker's log all stay small.
TEST(CompileTextsEndToEnd, HugeErrorLinesStaySmallEverywhere) {
  Cluster cluster("CompileTextsHugeError");
  cluster.StartServer();
  cluster.StartWorker();
  auto clients = Clients(cluster);
  constexpr int kJobs = 50;
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    grpc::Status status;
    const std::string source = "#error " + std::to_string(i) + std::string(1000000, 'E') + "\n" + kPlan + kKernel;
    ids.push_back(SubmitSource(*clients, source, &status));
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  for (const std::string& id : ids) {
    const v1::Job job = WaitDone(*clients, id, 240);
    EXPECT_EQ(job.result().verdict(), v1::COMPILE_ERROR);
    EXPECT_LE(job.result().message().size(), 4200u);
    EXPECT_NE(job.result().message().find(" bytes cut]"), std::string::npos) << job.result().message().substr(0, 300);
    EXPECT_LE(job.ByteSizeLong(), 16000u) << job.result().compile_log().substr(0, 300);
  }
  grpc::ClientContext context;
  Prepare(&context);
  v1::ListJobsRequest request;
  request.set_page_size(kJobs);
  v1::ListJobsResponse page;
  ASSERT_TRUE(clients->ListJobs(&context, request, &page).ok());
  EXPECT_EQ(page.jobs_size(), kJobs);
  EXPECT_LE(page.ByteSizeLong(), 800000u);  // was ~20 MB: each job ~400 KB
  std::printf("ListJobs of %d 1-MB #error jobs: %zu bytes\n", kJobs, page.ByteSizeLong());
  const auto worker_log = std::filesystem::file_size(cluster.dir() + "/worker.log");
  EXPECT_LE(worker_log, 1000000u) << "the worker's log grew by the error lines";
  std::printf("worker log after them: %zu bytes\n", static_cast<size_t>(worker_log));
}

// The server caps what a worker sends too: a worker key is not trusted to have done so.
TEST(CompileTextsEndToEnd, TheServerCapsAWorkersResultTexts) {
  Cluster cluster("CompileTextsServerCaps");
  const std::string submitter = cluster.CreateKey("submitter");
  const std::string worker_key = cluster.CreateKey("worker");
  cluster.StartServer({"--require-auth"});
  auto channel = grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials());
  auto clients = v1::ClientService::NewStub(channel);
  auto workers = v1::WorkerService::NewStub(channel);
  grpc::Status status;
  const std::string id = SubmitSource(*clients, std::string(kPlan) + kKernel, &status, submitter);
  ASSERT_TRUE(status.ok()) << status.error_message();
  std::string worker_id;
  {
    grpc::ClientContext context;
    Prepare(&context, worker_key);
    v1::RegisterWorkerRequest request;
    request.set_name("flooder");
    request.mutable_gpu()->set_compile_only(true);
    request.mutable_gpu()->set_arch("sm_90a");
    v1::RegisterWorkerResponse response;
    ASSERT_TRUE(workers->RegisterWorker(&context, request, &response).ok());
    worker_id = response.worker_id();
  }
  v1::LeaseJobResponse lease;
  {
    grpc::ClientContext context;
    Prepare(&context, worker_key);
    v1::LeaseJobRequest request;
    request.set_worker_id(worker_id);
    request.set_wait_ms(5000);
    ASSERT_TRUE(workers->LeaseJob(&context, request, &lease).ok());
    ASSERT_EQ(lease.spec().job_id(), id);
  }
  {
    grpc::ClientContext context;
    Prepare(&context, worker_key);
    // Under the server's message limit, far over every text cap.
    v1::CompleteJobRequest request;
    request.set_worker_id(worker_id);
    request.set_job_id(id);
    request.set_lease_token(lease.lease_token());
    v1::JobResult* result = request.mutable_result();
    result->set_verdict(v1::COMPILE_ERROR);
    result->set_message(std::string(800000, 'M'));
    result->set_compile_log(std::string(800000, 'L'));
    result->set_candidate_output(std::string(800000, 'O'));
    v1::TestOutcome* test = result->add_tests();
    test->set_detail(std::string(200000, 'D'));
    for (int i = 0; i < 2000; ++i) test->add_first_mismatches()->set_tensor(std::string(100, 'T'));
    v1::CompleteJobResponse response;
    grpc::Status done = workers->CompleteJob(&context, request, &response);
    ASSERT_TRUE(done.ok()) << done.error_message();
    EXPECT_TRUE(response.accepted());
  }
  grpc::ClientContext context;
  Prepare(&context, submitter);
  v1::GetJobRequest request;
  request.set_job_id(id);
  v1::Job job;
  ASSERT_TRUE(clients->GetJob(&context, request, &job).ok());
  const v1::JobResult& result = job.result();
  EXPECT_NE(result.message().find(" ... [" + std::to_string(800000 - (4 << 10) + 40) + " bytes cut]"), std::string::npos);
  EXPECT_LE(result.compile_log().size(), (64u << 10) + 256);
  EXPECT_LE(result.candidate_output().size(), 64u << 10);
  EXPECT_EQ(result.candidate_output_cut(), 800000 - (64 << 10) + 40);  // kCapNoteBytes: the note fits in the cap
  ASSERT_EQ(result.tests_size(), 1);
  EXPECT_LE(result.tests(0).detail().size(), 2u << 10);
  EXPECT_LE(result.tests(0).first_mismatches_size(), 32);
  EXPECT_LE(job.ByteSizeLong(), 200000u);
}

// A NUL (or any control byte but tab/newline/CR) is refused at submission with its offset,
// through the API and the CLI alike.
TEST(CompileTextsEndToEnd, ControlBytesInASourceAreRefusedWithTheirOffset) {
  Cluster cluster("CompileTextsNul");
  cluster.StartServer();
  auto clients = Clients(cluster);
  const std::string head = std::string(kPlan) + kKernel;
  grpc::Status status;
  SubmitSource(*clients, head + std::string(1, '\0') + "// after the NUL\n", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("control byte 0x00 at byte offset " + std::to_string(head.size())),
            std::string::npos)
      << status.error_message();
  SubmitSource(*clients, head + "\x1b[2J", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();

  const std::string path = cluster.dir() + "/nul.cu";
  std::ofstream(path, std::ios::binary) << head << std::string(1, '\0') << "int hidden;\n";
  CliResult r = cluster.Cli({"submit", path, "--problem", "level1/23_Softmax", "--compile-only"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE((r.out + r.err).find("control byte 0x00 at byte offset " + std::to_string(head.size())), std::string::npos)
      << r.out << r.err;
}

// Exponential template instantiation: a small source, unbounded compile work.
const char kTemplateBomb[] = R"(
template <int N, int M> struct B { static constexpr long v = B<N - 1, M * 2 + 1>::v + B<N - 1, M * 2>::v; };
template <int M> struct B<0, M> { static constexpr long v = M; };
)";

// A compile bomb ends as a COMPILE_ERROR naming the limit it hit, set by one worker flag (small
// here to keep the test fast), and the worker serves on.
TEST(CompileTextsEndToEnd, ACompileBombEndsOnItsLimitAsACompileError) {
  Cluster cluster("CompileTextsBomb");
  cluster.StartServer();
  cluster.StartWorker({"--compile-cpu-seconds", "1"});
  auto clients = Clients(cluster);
  grpc::Status status;
  const auto start = std::chrono::steady_clock::now();
  const v1::Job bomb = WaitDone(*clients, SubmitSource(*clients, std::string(kTemplateBomb) + kPlan +
      "extern \"C\" __global__ void k(const float* X, float* Y, long long M, long long N) { Y[0] = B<28, 1>::v; }\n",
      &status));
  ASSERT_TRUE(status.ok()) << status.error_message();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(bomb.result().verdict(), v1::COMPILE_ERROR) << bomb.result().message() << cluster.Logs();
  // The CPU limit; on a slow or loaded machine the memory or the (2 x 1 + 5 s) wall-clock limit
  // may come first: a limit of the compile in any case, never a worker TIMEOUT.
  const std::string& message = bomb.result().message();
  EXPECT_TRUE(message == "compile exceeded its 1 s CPU limit" || message == "compile exceeded its 2048 MiB memory limit" ||
              message == "compile exceeded its 7 s wall-clock limit")
      << message;
  std::printf("compile bomb: %s after %.1f s\n", message.c_str(), seconds);
  EXPECT_LT(seconds, 60.0);
  const v1::Job normal = WaitDone(*clients, SubmitSource(*clients, std::string(kPlan) + kKernel, &status));
  EXPECT_EQ(normal.result().verdict(), v1::COMPILED) << normal.result().message() << normal.result().compile_log();
}

}  // namespace
}  // namespace kjudge::testing
