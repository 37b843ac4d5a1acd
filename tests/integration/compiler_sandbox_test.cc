// The compiler sandbox end to end: a source whose NVRTC log is ~22 MB (over the server's 16 MiB
// message limit) ends COMPILE_ERROR with a capped log instead of wedging the worker, and the
// same worker then serves a normal job. Real server, worker, runner and kjudge-compiler.
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

}  // namespace
}  // namespace kjudge::testing
