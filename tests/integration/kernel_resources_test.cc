// Compile feedback end to end (issue 27): a compile-only job's result carries each kernel's
// resources (ptxas' report, no GPU), through a real server, worker, runner and kjudge-compiler,
// in `kjudge job N --json` (GetJob over gRPC) and in the CLI's text view.
#include <fstream>
#include <string>

#include "tests/integration/cluster.h"
#include "tests/support/binary_path.h"
#include "tests/support/subprocess.h"

namespace kjudge::testing {
namespace {

// An int64 field of the CLI's JSON (proto JSON may print int64 as a string; it leaves zeros out);
// -1 when it is neither.
int64_t Int(const nlohmann::json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end()) return 0;  // proto3 JSON leaves zeros out
  if (it->is_string()) return std::stoll(it->get<std::string>());
  return it->is_number_integer() ? it->get<int64_t>() : -1;
}

const nlohmann::json* KernelNamed(const nlohmann::json& job, const std::string& name) {
  for (const nlohmann::json& k : job["result"]["kernels"]) {
    if (k.value("name", "") == name) return &k;
  }
  return nullptr;
}

TEST(KernelResourcesEndToEnd, CompiledJobReportsEachKernel) {
  Cluster cluster("KernelResources");
  cluster.StartServer();
  cluster.StartWorker();
  const std::string path = cluster.dir() + "/relu_resources.cu";
  std::ofstream(path) << R"(/* kjudge-plan
relu_smem<<<cdiv(M * N, 256), 256, 2048>>>(X, Y, M * N);
*/
extern "C" __global__ void relu_smem(const float* X, float* Y, long long n) {
  extern __shared__ float dyn[];
  __shared__ float fixed[100];
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  fixed[threadIdx.x % 100] = 0.f;
  dyn[threadIdx.x] = i < n ? X[i] : 0.f;
  __syncthreads();
  if (i < n) Y[i] = fmaxf(dyn[threadIdx.x], fixed[(threadIdx.x + 1) % 100]);
}
// Not in the plan: still compiled, so still reported.
__global__ void __maxnreg__(40) capped(float* o, int k) {
  float a[32];
  for (int i = 0; i < 32; i++) a[i] = o[i * k];
  float s = 0;
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 32; j++) s += a[i] * a[j] * o[i + j];
  o[0] = s;
}
)";
  CliResult done = cluster.Cli({"submit", path, "--problem", "level1/19_ReLU", "--compile-only", "--wait"}, 240);
  ASSERT_EQ(done.exit_code, 0) << done.out << done.err << cluster.Logs();
  ASSERT_TRUE(done.json.contains("id")) << done.out;
  const nlohmann::json& id_field = done.json["id"];  // a number or a string, as --json prints ids
  const std::string id = id_field.is_string() ? id_field.get<std::string>() : id_field.dump();
  ASSERT_FALSE(id.empty()) << done.out;

  CliResult shown = cluster.Cli({"job", id});  // GetJob over gRPC, printed as JSON
  ASSERT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  const nlohmann::json& job = shown.json;
  EXPECT_EQ(job.value("/result/verdict"_json_pointer, std::string()), "COMPILED") << shown.out;
  ASSERT_EQ(job["result"]["kernels"].size(), 2u) << shown.out;
  EXPECT_EQ(Int(job["result"], "kernels_cut"), 0);
  const nlohmann::json* relu = KernelNamed(job, "relu_smem");
  ASSERT_NE(relu, nullptr) << shown.out;
  EXPECT_EQ((*relu)["plan_names"], nlohmann::json::array({"relu_smem"}));
  EXPECT_EQ(Int(*relu, "static_shared_bytes"), 400);
  EXPECT_EQ(Int(*relu, "dynamic_shared_bytes"), 2048);
  EXPECT_GT(Int(*relu, "registers"), 0);
  EXPECT_EQ(Int(*relu, "spill_store_bytes"), 0);
  EXPECT_EQ(Int(*relu, "max_threads_per_block"), 1024);
  const nlohmann::json* capped = KernelNamed(job, "_Z6cappedPfi");
  ASSERT_NE(capped, nullptr) << shown.out;
  EXPECT_EQ(Int(*capped, "registers"), 40);
  EXPECT_TRUE(capped->value("plan_names", nlohmann::json::array()).empty()) << *capped;
  EXPECT_EQ(Int(*capped, "dynamic_shared_bytes"), 0);
  // The log the submitter sees is NVRTC's without -v: no ptxas report in it.
  EXPECT_EQ(job.value("/result/compile_log"_json_pointer, std::string()).find("ptxas"), std::string::npos);

  // The text view lists them.
  CommandResult text = kjudge::testing::Run({ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN), "--server", cluster.address(), "job", id}, std::chrono::seconds(60));
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("relu_smem: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("shared 400 B static + 2048 B dynamic"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("_Z6cappedPfi: 40 registers"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace kjudge::testing
