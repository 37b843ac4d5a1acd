// Compile feedback (issue 27): each kernel's resources from ptxas' -v report. The parser over
// captured and hostile logs (table), the real NVRTC in-process and through kjudge-compiler
// (spills, __maxnreg__, static __shared__ sizes, several kernels, the kernel cap, the log the
// submitter sees), the wire format and the cubin cache carrying them.
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "worker/compiler/compile_protocol.h"
#include "worker/compiler/ptxas_report.h"
#include "worker/compiler/sandboxed_compiler.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::compiler {
namespace {

using runner::CompileOutcome;
using runner::CompileRequest;

// ptxas' report as NVRTC 13.0 wrote it for three kernels of one source (sm_90a).
constexpr std::string_view kReport =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z5spillPfi' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z5spillPfi\n"
    "ptxas         .     4608 bytes stack frame, 4932 bytes spill stores, 5660 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 4608 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 296.369 ms\n"
    "ptxas info    : Function properties for _Z6helperv\n"
    "ptxas         .     64 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Compiling entry function '_Z3twoPf' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z3twoPf\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 14 registers, used 1 barriers, 4512 bytes smem\n"
    "ptxas info    : Compile time = 6.286 ms\n"
    "ptxas info    : Compiling entry function '_Z4fat1Pf' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z4fat1Pf\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 0 barriers, 380 bytes cmem[0]\n";

TEST(PtxasReport, ReadsEachKernelOfACapturedReport) {
  const std::string front = "solution.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n\n";
  const PtxasReport report = SplitPtxasReport(front + std::string(kReport));
  ASSERT_EQ(report.kernels.size(), 3u);
  const KernelResources& spill = report.kernels[0];
  EXPECT_EQ(spill.name, "_Z5spillPfi");
  EXPECT_EQ(spill.registers, 32);
  EXPECT_EQ(spill.local_bytes, 4608);
  EXPECT_EQ(spill.spill_store_bytes, 4932);
  EXPECT_EQ(spill.spill_load_bytes, 5660);
  EXPECT_EQ(spill.static_shared_bytes, 0);
  EXPECT_EQ(spill.max_threads_per_block, 1024);
  const KernelResources& two = report.kernels[1];  // the helper's frame is not two's
  EXPECT_EQ(two.name, "_Z3twoPf");
  EXPECT_EQ(two.registers, 14);
  EXPECT_EQ(two.barriers, 1);
  EXPECT_EQ(two.static_shared_bytes, 4512);
  EXPECT_EQ(two.local_bytes, 0);
  EXPECT_EQ(two.spill_store_bytes, 0);
  EXPECT_EQ(report.kernels[2].registers, 255);
  EXPECT_EQ(report.kernels[2].max_threads_per_block, 256);
  EXPECT_EQ(report.kernels_cut, 0);
  EXPECT_EQ(report.log, front);  // the log without -v's lines
}

TEST(PtxasReport, MaxThreadsFollowTheRegisterFile) {
  // 256 registers per warp at a time from one of 4 quarters of 65536, at most 1024 threads.
  // 216 -> 256 is the driver's answer on an H200 (a whole-file count says 288).
  const std::vector<std::pair<int64_t, int64_t>> table = {
      {0, 1024}, {1, 1024}, {32, 1024}, {64, 1024}, {65, 896}, {72, 896}, {96, 640},
      {128, 512}, {168, 384}, {216, 256}, {255, 256}, {512, 128}, {513, 0}, {2048, 0}, {1 << 20, 0}};
  for (const auto& [registers, threads] : table) {
    EXPECT_EQ(MaxThreadsForRegisters(registers), threads) << registers << " registers";
  }
}

TEST(PtxasReport, TextTheSourcePrintsNeverCounts) {
  // #pragma message prints any text, newlines included, but NVRTC follows it with the source
  // line and a caret, so it is never in the trailing run of ptxas lines.
  const std::string forged =
      "solution.cu(1): remark #20200-D: #pragma message: \"hi\n"
      "ptxas info    : Compiling entry function '_Z4fakev' for 'sm_90a'\n"
      "ptxas info    : Used 7 registers, 99999 bytes smem\"\n"
      "  #pragma message(\"hi\\nptxas info ...\")\n"
      "                 ^\n\n";
  const PtxasReport report = SplitPtxasReport(forged + std::string(kReport));
  ASSERT_EQ(report.kernels.size(), 3u);
  for (const KernelResources& k : report.kernels) EXPECT_NE(k.name, "_Z4fakev");
  EXPECT_EQ(report.log, forged);  // the remark is the source's own text: shown as NVRTC wrote it
  // Only forged lines (no report after them): nothing.
  EXPECT_TRUE(SplitPtxasReport(forged).kernels.empty());
}

TEST(PtxasReport, LaterRecordOfAKernelReplacesTheEarlierOne) {
  const PtxasReport report = SplitPtxasReport(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Used 200 registers, 50000 bytes smem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Used 9 registers\n");
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_EQ(report.kernels[0].registers, 9);
  EXPECT_EQ(report.kernels[0].static_shared_bytes, 0);
}

TEST(PtxasReport, CapsTheKernelCountAndSaysSo) {
  std::string log;
  for (int i = 0; i < 1000; ++i) {
    log += "ptxas info    : Compiling entry function 'k" + std::to_string(i) + "' for 'sm_90a'\n";
    log += "ptxas info    : Used " + std::to_string(i % 200) + " registers\n";
  }
  const PtxasReport report = SplitPtxasReport(log);
  ASSERT_EQ(report.kernels.size(), kMaxReportedKernels);
  EXPECT_EQ(report.kernels_cut, 1000 - static_cast<int64_t>(kMaxReportedKernels));
  EXPECT_EQ(report.kernels.back().name, "k63");
  EXPECT_EQ(report.kernels.back().registers, 63);
  EXPECT_EQ(report.log, "");
}

TEST(PtxasReport, HostileNamesAndNumbersAreTamed) {
  const std::string long_name(5000, 'a');
  const PtxasReport report = SplitPtxasReport(
      "ptxas info    : Compiling entry function 'bad\x1b[31m<script>\xff' for 'sm_90a'\n"
      "ptxas info    : Used 99999999999999999999999 registers, used -3 barriers, 12x bytes smem\n"
      "ptxas info    : Compiling entry function '" + long_name + "' for 'sm_90a'\n"
      "ptxas info    : Compiling entry function '\n"
      "ptxas         .     bytes stack frame, , , 5 bytes spill stores\n");
  ASSERT_EQ(report.kernels.size(), 3u);
  EXPECT_EQ(report.kernels[0].name, "bad??31m?script??");
  EXPECT_EQ(report.kernels[0].registers, 0);  // over int64: 0, never a wrap
  EXPECT_EQ(report.kernels[0].barriers, 3);   // "-3": the digits that end the item
  EXPECT_EQ(report.kernels[0].static_shared_bytes, 0);
  EXPECT_EQ(report.kernels[1].name, std::string(kMaxKernelNameBytes, 'a'));
  EXPECT_EQ(report.kernels[2].name, "");
}

TEST(PtxasReport, LogsWithoutAReportAreUnchanged) {
  for (const std::string& log : {std::string(), std::string("\n\n"),
                                std::string("solution.cu(2): error: identifier \"x\" is undefined\n"),
                                std::string("ptxas info but not at the end\nthen text\n"),
                                std::string("no newline at the end")}) {
    const PtxasReport report = SplitPtxasReport(log);
    EXPECT_EQ(report.log, log);
    EXPECT_TRUE(report.kernels.empty());
  }
  // ptxas' own warnings and errors stay; only -v's lines go.
  const PtxasReport report = SplitPtxasReport(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas error   : Entry function '_Z1kv' uses too much shared data (0x20000 bytes, 0xc000 max)\n");
  EXPECT_EQ(report.log, "ptxas error   : Entry function '_Z1kv' uses too much shared data (0x20000 bytes, 0xc000 max)\n");
}

TEST(PtxasReport, RandomBytesNeverBreakIt) {
  std::mt19937 rng(27);
  const std::string alphabet = "ptxas info    :.'\n0123456789 Used registers bytes smem stack frame spill stores loads,Compiling entry function for \x01\xff";
  for (int round = 0; round < 3000; ++round) {
    std::string log;
    const int n = static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) log += alphabet[rng() % alphabet.size()];
    if (round % 2 == 0) log.insert(0, kReport.substr(0, rng() % kReport.size()));
    const PtxasReport report = SplitPtxasReport(log, 8);
    EXPECT_LE(report.kernels.size(), 8u);
    EXPECT_LE(report.log.size(), log.size() + 1);
    for (const KernelResources& k : report.kernels) {
      EXPECT_EQ(SafeKernelName(k.name), k.name);
      EXPECT_GE(k.registers, 0);
      EXPECT_GE(k.max_threads_per_block, 0);
      EXPECT_LE(k.max_threads_per_block, 1024);
    }
  }
}

TEST(KernelsJson, RoundTripsAndRejectsWrongShapes) {
  const PtxasReport report = SplitPtxasReport(kReport);
  int64_t cut = 0;
  std::optional<std::vector<KernelResources>> back = KernelsFromJson(KernelsToJson(report.kernels), &cut);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[0].spill_load_bytes, 5660);
  EXPECT_EQ((*back)[1].static_shared_bytes, 4512);
  EXPECT_EQ(cut, 0);
  EXPECT_FALSE(KernelsFromJson(nlohmann::json::object(), &cut));
  EXPECT_FALSE(KernelsFromJson(nlohmann::json::parse(R"([{"name": 3}])"), &cut));
  EXPECT_FALSE(KernelsFromJson(nlohmann::json::parse(R"([{"name": "k", "registers": "9"}])"), &cut));
  back = KernelsFromJson(nlohmann::json::parse(R"([{"name": "k\u0000x", "registers": -5}])"), &cut);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ((*back)[0].name, "k?x");
  EXPECT_EQ((*back)[0].registers, 0);
  nlohmann::json many = nlohmann::json::array();
  for (int i = 0; i < 100; ++i) many.push_back({{"name", "k"}});
  back = KernelsFromJson(many, &cut);
  EXPECT_EQ(back->size(), kMaxReportedKernels);
  EXPECT_EQ(cut, 100 - static_cast<int64_t>(kMaxReportedKernels));
}

TEST(KernelsJson, TheCompilerProtocolCarriesThem) {
  ProtocolResponse response;
  response.success = true;
  response.kernels = SplitPtxasReport(kReport).kernels;
  response.kernels_cut = 7;
  absl::StatusOr<ProtocolResponse> back = DecodeResponse(EncodeResponse(response));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->kernels.size(), 3u);
  EXPECT_EQ(back->kernels[0].spill_store_bytes, 4932);
  EXPECT_EQ(back->kernels_cut, 7);
}

// --- real NVRTC ---

constexpr const char* kKernels = R"(
__global__ void __maxnreg__(40) capped(float* o, int k) {
  float a[32];
  for (int i = 0; i < 32; i++) a[i] = o[i * k];
  float s = 0;
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 32; j++) s += a[i] * a[j] * o[i + j];
  o[0] = s;
}
__global__ void two(float* o) {
  __shared__ float t[1000];
  __shared__ double u[64];
  t[threadIdx.x] = o[threadIdx.x];
  u[threadIdx.x & 63] = t[threadIdx.x ^ 1];
  __syncthreads();
  o[threadIdx.x] = t[999 - threadIdx.x] + u[threadIdx.x & 7];
}
template <int B> __global__ void scale(float* o) { o[threadIdx.x] *= B; }
__global__ void __launch_bounds__(128) spill(float* o, int k) {
  float a[256];
  for (int i = 0; i < 256; i++) a[i] = o[i * k];
  float s = 0;
  for (int i = 0; i < 256; i++) s += a[(i * k) & 255] * a[i];
  o[0] = s;
}
)";

CompileRequest Request(std::string source, std::vector<std::string> names) {
  CompileRequest request;
  request.source = std::move(source);
  request.name_expressions = std::move(names);
  return request;
}

const KernelResources* Find(const CompileOutcome& o, std::string_view name) {
  for (const KernelResources& k : o.program.kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

void ExpectKnownResources(const CompileOutcome& o) {
  ASSERT_TRUE(o.success) << o.log << o.message;
  ASSERT_EQ(o.program.kernels.size(), 4u) << o.log;
  const KernelResources* capped = Find(o, "_Z6cappedPfi");
  ASSERT_NE(capped, nullptr);
  EXPECT_EQ(capped->registers, 40);  // __maxnreg__(40) under real pressure
  EXPECT_EQ(capped->max_threads_per_block, 1024);
  const KernelResources* two = Find(o, "_Z3twoPf");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->static_shared_bytes, 1000 * 4 + 64 * 8);
  EXPECT_EQ(two->barriers, 1);
  EXPECT_EQ(two->spill_store_bytes, 0);
  const KernelResources* spill = Find(o, "_Z5spillPfi");
  ASSERT_NE(spill, nullptr);
  EXPECT_GT(spill->spill_store_bytes, 0);
  EXPECT_GT(spill->spill_load_bytes, 0);
  EXPECT_GE(spill->local_bytes, 1024);  // the 256-float array lives in local memory
  EXPECT_GT(spill->registers, 0);
  EXPECT_LE(spill->registers, 255);
  EXPECT_EQ(spill->max_threads_per_block, 128);  // its __launch_bounds__, read from the cubin
  ASSERT_NE(Find(o, "_Z5scaleILi4EEvPf"), nullptr);
  EXPECT_EQ(o.program.kernels_cut, 0);
  EXPECT_EQ(o.log.find("ptxas"), std::string::npos) << o.log;  // the log NVRTC writes without -v
}

TEST(KernelResourcesNvrtc, InProcessCompileReportsEachKernel) {
  absl::StatusOr<CompileOutcome> o = runner::CompileWithNvrtc(Request(kKernels, {"scale<4>"}));
  ASSERT_TRUE(o.ok()) << o.status();
  ExpectKnownResources(*o);
  EXPECT_EQ(o->log, "");
}

SandboxedCompilerOptions Options() {
  SandboxedCompilerOptions options;
  options.compiler_path = KJUDGE_COMPILER_PATH;
  return options;
}

TEST(KernelResourcesNvrtc, SandboxedCompileReportsEachKernel) {
  const SandboxedCompiler compiler(Options());
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(kKernels, {"scale<4>"}));
  ASSERT_TRUE(o.ok()) << o.status();
  ExpectKnownResources(*o);
}

TEST(KernelResourcesNvrtc, LaunchBoundsComeFromTheCubin) {
  const std::string source =
      "__global__ void __launch_bounds__(256, 2) lb2(float* o) { o[threadIdx.x] = 1.f; }\n"
      // min_blocks with __shared__ puts a byte-valued attribute (EIFMT_BVAL) before the bound.
      "__global__ void __launch_bounds__(256, 2) lb2s(float* o) {\n"
      "  __shared__ float t[1000]; t[threadIdx.x] = o[threadIdx.x]; __syncthreads();\n"
      "  o[threadIdx.x] = t[999 - threadIdx.x]; }\n"
      "__global__ void __launch_bounds__(64) lb(float* o) { o[threadIdx.x] = 2.f; }\n"
      "__global__ void plain(float* o) { o[threadIdx.x] = 3.f; }\n";
  absl::StatusOr<CompileOutcome> o = runner::CompileWithNvrtc(Request(source, {}));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->success) << o->log;
  const std::map<std::string, int64_t> bounds = LaunchBoundsFromCubin(o->program.cubin);
  EXPECT_EQ(bounds, (std::map<std::string, int64_t>{{"_Z3lb2Pf", 256}, {"_Z4lb2sPf", 256}, {"_Z2lbPf", 64}}));
  ASSERT_NE(Find(*o, "_Z3lb2Pf"), nullptr);
  EXPECT_EQ(Find(*o, "_Z3lb2Pf")->max_threads_per_block, 256);
  EXPECT_EQ(Find(*o, "_Z2lbPf")->max_threads_per_block, 64);
  EXPECT_EQ(Find(*o, "_Z5plainPf")->max_threads_per_block, 1024);
  // Untrusted bytes: truncations and random corruptions of a real cubin never crash the reader
  // and never invent a bound above the hardware cap.
  std::mt19937 rng(27);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = o->program.cubin.substr(0, rng() % (o->program.cubin.size() + 1));
    for (int flips = 0; flips < 1 + static_cast<int>(rng() % 8) && !bytes.empty(); ++flips) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    for (const auto& [name, threads] : LaunchBoundsFromCubin(bytes)) {
      EXPECT_EQ(SafeKernelName(name), name);
      EXPECT_GE(threads, 0);
      EXPECT_LE(threads, 1025);
    }
  }
  EXPECT_TRUE(LaunchBoundsFromCubin("").empty());
  EXPECT_TRUE(LaunchBoundsFromCubin("\x7f" "ELF").empty());
}

TEST(KernelResourcesNvrtc, WarningsStayAndForgedReportsDoNotCount) {
  const std::string source = std::string(
      "#pragma message(\"x\\nptxas info    : Compiling entry function '_Z4fakev' for 'sm_90a'\\n"
      "ptxas info    : Used 7 registers\")\n"
      "__global__ void k(float* o) { int unused; o[0] = 1.f; }\n");
  const SandboxedCompiler compiler(Options());
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(source, {"k"}));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->success) << o->log;
  ASSERT_EQ(o->program.kernels.size(), 1u);
  EXPECT_EQ(o->program.kernels[0].name, "_Z1kPf");
  EXPECT_NE(o->log.find("#pragma message"), std::string::npos) << o->log;
  EXPECT_NE(o->log.find("declared but never referenced"), std::string::npos) << o->log;
  EXPECT_EQ(o->log.find("ptxas info    : 0 bytes gmem"), std::string::npos) << o->log;
}

TEST(KernelResourcesNvrtc, ThousandKernelsAreCutToTheCap) {
  std::string source;
  for (int i = 0; i < 300; ++i) {
    source += "__global__ void k" + std::to_string(i) + "(float* o) { o[" + std::to_string(i) + "] = 1.f; }\n";
  }
  const SandboxedCompiler compiler(Options());
  absl::StatusOr<CompileOutcome> o = compiler.Compile(Request(source, {}));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->success) << o->log;
  EXPECT_EQ(o->program.kernels.size(), kMaxReportedKernels);
  EXPECT_EQ(o->program.kernels_cut, 300 - static_cast<int64_t>(kMaxReportedKernels));
}

}  // namespace
}  // namespace kjudge::compiler
