// The kernel corpus (tests/corpus, issue 12) compiles for real: every .cu file there is submitted
// compile-only (SubmitBatch) to a real kjudge-server and compiled by two real compile-only
// workers (NVRTC inside the sandboxed kjudge-compiler, with kjudge's own standard headers), and
// must end COMPILED: NVRTC accepted the source and the launch plan resolved against the problem.
// A failure names the file and prints its verdict, message and compile log. The corpus layout is
// checked too (size, one problem per folder, the style line, the README table), so the corpus
// cannot shrink or drift silently. On a GPU host tests/gpu/run_corpus.sh runs the same files for
// CORRECT.
#include <algorithm>
#include <iterator>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/api_client.h"
#include "tests/integration/cluster.h"

namespace kjudge::testing {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMinFiles = 60;
constexpr size_t kMinProblems = 20;
// nvcc-style kernels with no #include at all (nvcc_no_include_*.cu, issue 27 pt3): they compile
// only through kjudge's implicit prelude (worker/compiler/std_headers/__kjudge/nvcc_prelude.h).
constexpr size_t kMinNoIncludeFiles = 4;
constexpr int kBatch = 100;  // the server's SubmitBatch limit

struct CorpusFile {
  std::string path;     // relative to tests/corpus, e.g. level1/19_ReLU/float4_vectorized.cu
  std::string problem;  // e.g. level1/19_ReLU
};

// Every tests/corpus/<level>/<problem>/<style>.cu, sorted by path.
std::vector<CorpusFile> CorpusFiles() {
  const fs::path root = SourcePath("tests/corpus");
  std::vector<CorpusFile> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".cu") continue;
    const fs::path relative = fs::relative(entry.path(), root);
    const fs::path problem = relative.parent_path();
    files.push_back({relative.string(), problem.string()});
  }
  std::sort(files.begin(), files.end(), [](const CorpusFile& a, const CorpusFile& b) { return a.path < b.path; });
  return files;
}

TEST(Corpus, LayoutIsComplete) {
  const std::vector<CorpusFile> files = CorpusFiles();
  std::set<std::string> problems;
  size_t no_include_files = 0;
  const std::string readme = ReadFileOrEmpty(SourcePath("tests/corpus/README.md"));
  for (const CorpusFile& file : files) {
    problems.insert(file.problem);
    // <level>/<problem>/<style>.cu: the folder names a catalog problem.
    const fs::path path(file.path);
    EXPECT_EQ(std::distance(path.begin(), path.end()), 3)
        << file.path << ": expected tests/corpus/<level>/<problem>/<style>.cu";
    EXPECT_TRUE(fs::exists(SourcePath("problems/" + file.problem + "/problem.toml")))
        << file.path << ": no catalog problem '" << file.problem << "' (problems/" << file.problem
        << "/problem.toml); name the folder after a problem directory";
    const std::string source = ReadFileOrEmpty(SourcePath("tests/corpus/" + file.path));
    EXPECT_EQ(source.rfind("// Style: ", 0), 0u) << file.path << ": the first line must be '// Style: <what it represents>'";
    EXPECT_NE(source.find("kjudge-plan"), std::string::npos) << file.path << ": no /* kjudge-plan ... */ block";
    EXPECT_NE(readme.find(file.path), std::string::npos)
        << file.path << " is missing from the style table in tests/corpus/README.md";
    if (path.filename().string().rfind("nvcc_no_include_", 0) == 0) {
      ++no_include_files;
      EXPECT_EQ(source.find("\n#include"), std::string::npos)
          << file.path << ": an nvcc_no_include_* kernel must have no #include (it tests the implicit prelude)";
    }
  }
  EXPECT_GE(no_include_files, kMinNoIncludeFiles)
      << "the corpus must keep at least " << kMinNoIncludeFiles << " nvcc-style kernels without includes";
  EXPECT_GE(files.size(), kMinFiles) << "the corpus must keep at least " << kMinFiles << " kernels";
  EXPECT_GE(problems.size(), kMinProblems) << "the corpus must cover at least " << kMinProblems << " problems";
  EXPECT_TRUE(std::any_of(problems.begin(), problems.end(), [](const std::string& p) { return p.rfind("level2/", 0) == 0; }))
      << "the corpus must include level-2 problems";
}

TEST(Corpus, EveryKernelCompiles) {
  const std::vector<CorpusFile> files = CorpusFiles();
  ASSERT_FALSE(files.empty()) << "no .cu files under " << SourcePath("tests/corpus");
  Cluster cluster("Corpus");
  cluster.StartServer({"--submit-rate", "0", "--max-active-jobs-per-key", "0"});
  // Two compile-only workers: CI machines have two cores, and each compile is one process.
  cluster.StartWorker({}, "worker-1.log");
  cluster.StartWorker({}, "worker-2.log");
  ApiClient api(cluster, "");

  std::map<std::string, const CorpusFile*> file_of_job;
  std::vector<std::string> ids;
  for (size_t begin = 0; begin < files.size(); begin += kBatch) {
    v1::SubmitBatchRequest batch;
    const size_t end = std::min(files.size(), begin + kBatch);
    for (size_t i = begin; i < end; ++i) {
      v1::SubmitRequest* request = batch.add_requests();
      request->set_problem(files[i].problem);
      request->set_source(ReadFileOrEmpty(SourcePath("tests/corpus/" + files[i].path)));
      request->set_filename(fs::path(files[i].path).filename().string());
      request->set_compile_only(true);
      (*request->mutable_tags())["suite"] = "corpus";
    }
    v1::SubmitBatchResponse response;
    const grpc::Status status = api.stub().SubmitBatch(api.Context().get(), batch, &response);
    ASSERT_TRUE(status.ok()) << status.error_message() << cluster.Logs();
    ASSERT_EQ(static_cast<size_t>(response.items_size()), end - begin);
    for (size_t i = begin; i < end; ++i) {
      const v1::SubmitBatchItem& item = response.items(static_cast<int>(i - begin));
      EXPECT_EQ(item.error_code(), 0) << files[i].path << ": refused: " << item.error();
      if (item.job_id().empty()) continue;
      file_of_job[item.job_id()] = &files[i];
      ids.push_back(item.job_id());
    }
  }

  std::vector<v1::Job> seen;
  // Shorter than ctest's 300 s per test (tests/integration/CMakeLists.txt), so a slow run fails here
  // with the cluster's logs instead of being killed without them.
  const grpc::Status watched = api.WatchJobs(ids, &seen, /*timeout_ms=*/270000);
  ASSERT_TRUE(watched.ok()) << watched.error_message() << cluster.Logs();
  std::map<std::string, v1::Job> final_state;
  for (const v1::Job& job : seen) {
    if (job.state() == v1::DONE) final_state[job.id()] = job;
  }
  int compiled = 0;
  for (const std::string& id : ids) {
    const CorpusFile& file = *file_of_job.at(id);
    auto it = final_state.find(id);
    if (it == final_state.end()) {
      ADD_FAILURE() << "tests/corpus/" << file.path << ": job " << id << " never finished";
      continue;
    }
    const v1::JobResult& result = it->second.result();
    if (result.verdict() == v1::COMPILED) {
      ++compiled;
      continue;
    }
    ADD_FAILURE() << "tests/corpus/" << file.path << " (" << file.problem << "): " << v1::Verdict_Name(result.verdict())
                  << ", expected COMPILED\n  message: " << result.message() << "\n  compile log:\n"
                  << result.compile_log();
  }
  EXPECT_EQ(compiled, static_cast<int>(files.size())) << compiled << " of " << files.size() << " corpus kernels compiled";
}

}  // namespace
}  // namespace kjudge::testing
