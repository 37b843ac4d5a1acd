// The compiler sandbox end to end: a source whose NVRTC log is ~22 MB (over the server's 16 MiB
// message limit) ends COMPILE_ERROR with a capped log instead of wedging the worker, and the
// same worker then serves a normal job; a kernel written the way LLMs write them (<cfloat>,
// <cstdint>, -INFINITY) compiles with kjudge's std_headers; a host-only include says what to
// use. Real server, worker, runner and kjudge-compiler.
#include <fstream>
#include <string>

#include "tests/integration/cluster.h"

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

}  // namespace
}  // namespace kjudge::testing
