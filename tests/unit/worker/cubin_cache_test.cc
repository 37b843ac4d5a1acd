#include "worker/judge/cubin_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace kjudge::runner {
namespace {

namespace fs = std::filesystem;

class CubinCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // CompileCached() compiles through kjudge-compiler, which is not beside this test binary.
    ::setenv("KJUDGE_COMPILER", KJUDGE_COMPILER_PATH, 0);
    dir_ = fs::temp_directory_path() /
           ("kjudge_cubin_cache_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

CompiledProgram Program() {
  CompiledProgram p;
  p.cubin = std::string("\x7f" "ELF\0binary", 11);
  p.lowered_names = {{"k<1>", "_Z1kILi1EEvv"}, {"plain", "plain"}};
  return p;
}

TEST_F(CubinCacheTest, MissThenHit) {
  CubinCache cache(dir_.string());
  const std::string key = CubinCache::Key("src", {"-a"}, "sm_90a", "13.0", {"plain", "k<1>"});
  EXPECT_FALSE(cache.Lookup(key).has_value());
  cache.Store(key, Program());
  std::optional<CompiledProgram> hit = cache.Lookup(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->cubin, Program().cubin);
  EXPECT_EQ(hit->lowered_names, Program().lowered_names);
}

TEST_F(CubinCacheTest, KeyCoversEveryInputAndSortsNames) {
  const std::string base = CubinCache::Key("src", {"-a"}, "sm_90a", "13.0", {"a", "b"});
  EXPECT_EQ(base, CubinCache::Key("src", {"-a"}, "sm_90a", "13.0", {"b", "a", "a"}));
  EXPECT_NE(base, CubinCache::Key("src2", {"-a"}, "sm_90a", "13.0", {"a", "b"}));
  EXPECT_NE(base, CubinCache::Key("src", {"-b"}, "sm_90a", "13.0", {"a", "b"}));
  EXPECT_NE(base, CubinCache::Key("src", {"-a"}, "sm_100a", "13.0", {"a", "b"}));
  EXPECT_NE(base, CubinCache::Key("src", {"-a"}, "sm_90a", "13.1", {"a", "b"}));
  EXPECT_NE(base, CubinCache::Key("src", {"-a"}, "sm_90a", "13.0", {"a"}));
  EXPECT_NE(CubinCache::Key("ab", {}, "c", "d", {}), CubinCache::Key("a", {}, "bc", "d", {}));
  EXPECT_EQ(base.size(), 64U);
}

TEST_F(CubinCacheTest, CorruptEntryIsAMiss) {
  CubinCache cache(dir_.string());
  const std::string key = CubinCache::Key("src", {}, "sm_90a", "13.0", {});
  cache.Store(key, Program());
  {
    std::ofstream cubin(dir_ / (key + ".cubin"), std::ios::binary | std::ios::trunc);
    cubin << "truncated";
  }
  EXPECT_FALSE(cache.Lookup(key).has_value());
  {
    std::ofstream json(dir_ / (key + ".json"), std::ios::trunc);
    json << "{not json";
  }
  EXPECT_FALSE(cache.Lookup(key).has_value());
  cache.Store(key, Program());  // overwritten by the next store
  EXPECT_TRUE(cache.Lookup(key).has_value());
}

TEST_F(CubinCacheTest, DisabledCacheNeverHits) {
  CubinCache cache("");
  EXPECT_FALSE(cache.enabled());
  cache.Store("k", Program());
  EXPECT_FALSE(cache.Lookup("k").has_value());
}

TEST_F(CubinCacheTest, CompileCachedHitsSecondTime) {
  CubinCache cache(dir_.string());
  CompileRequest request;
  request.source = "template <int N> __global__ void k(int* x) { x[0] = N; }\n";
  request.name_expressions = {"k<3>"};
  absl::StatusOr<CompileOutcome> first = CompileCached(request, cache);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(first->success) << first->log;
  EXPECT_FALSE(first->cache_hit);
  absl::StatusOr<CompileOutcome> second = CompileCached(request, cache);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cache_hit);
  EXPECT_EQ(second->program.cubin, first->program.cubin);
  EXPECT_EQ(second->program.lowered_names, first->program.lowered_names);
}

TEST_F(CubinCacheTest, CompileErrorsAreNotCached) {
  CubinCache cache(dir_.string());
  CompileRequest request;
  request.source = "__global__ void k() { oops }\n";
  request.name_expressions = {"k"};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<CompileOutcome> out = CompileCached(request, cache);
    ASSERT_TRUE(out.ok());
    EXPECT_FALSE(out->success);
    EXPECT_FALSE(out->cache_hit);
  }
}

TEST_F(CubinCacheTest, CompileCachedCompilesInTheSandbox) {
  CubinCache cache(dir_.string());
  CompileRequest request;
  request.source = "__global__ void k(int* x) { *x = 1; }\n";
  request.name_expressions = {"k"};
  absl::StatusOr<CompileOutcome> ok = CompileCached(request, cache);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(ok->success) << ok->log;
  EXPECT_NE(ok->sandbox.find("landlock"), std::string::npos) << ok->sandbox;
  EXPECT_GT(ok->peak_rss_kib, 0);

  request.source = "#include \"/etc/passwd\"\n";
  absl::StatusOr<CompileOutcome> hostile = CompileCached(request, cache);
  ASSERT_TRUE(hostile.ok()) << hostile.status();
  EXPECT_FALSE(hostile->success);
  EXPECT_EQ(hostile->log.find("root:"), std::string::npos) << hostile->log;
}

TEST_F(CubinCacheTest, UseCompilerAppliesItsLimits) {
  CubinCache cache(dir_.string());
  compiler::SandboxedCompilerOptions options;
  options.limits.source_bytes = 10;
  cache.UseCompiler(std::make_shared<compiler::SandboxedCompiler>(options));
  CompileRequest request;
  request.source = "__global__ void k(int* x) { *x = 1; }\n";
  absl::StatusOr<CompileOutcome> out = CompileCached(request, cache);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->success);
  EXPECT_EQ(out->limit_hit, "source");
}

// An edited std_headers file changes the key: a cubin compiled against the old header is never
// served for the new one: the same source compiled against a copy of the headers, then again
// after the copy's FLT_MAX was edited.
TEST_F(CubinCacheTest, KeyFollowsTheStdHeadersContent) {
  const compiler::SandboxedCompiler found;
  ASSERT_TRUE(found.std_headers_status().ok()) << found.std_headers_status();
  const fs::path headers = dir_ / "headers" / "std_headers";
  fs::create_directories(headers.parent_path());
  fs::copy(*found.options().std_headers_dir, headers, fs::copy_options::recursive);
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(headers.parent_path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  compiler::SandboxedCompilerOptions options;
  options.std_headers_dir = headers.string();

  CubinCache cache((dir_ / "cache").string());
  CompileRequest request;
  request.source = "#include <cfloat>\n__global__ void k(float* x) { *x = -FLT_MAX; }\n";
  request.name_expressions = {"k"};
  cache.UseCompiler(std::make_shared<compiler::SandboxedCompiler>(options));
  absl::StatusOr<CompileOutcome> first = CompileCached(request, cache);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(first->success) << first->log;
  absl::StatusOr<CompileOutcome> again = CompileCached(request, cache);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cache_hit);

  std::ofstream(headers / "__kjudge" / "float.h", std::ios::app) << "#undef FLT_MAX\n#define FLT_MAX 1.0F\n";
  cache.UseCompiler(std::make_shared<compiler::SandboxedCompiler>(options));
  absl::StatusOr<CompileOutcome> edited = CompileCached(request, cache);
  ASSERT_TRUE(edited.ok()) << edited.status();
  ASSERT_TRUE(edited->success) << edited->log;
  EXPECT_FALSE(edited->cache_hit);
  EXPECT_NE(edited->program.cubin, first->program.cubin);  // the header did change the code
}

// An entry of about `bytes` bytes (its cubin), distinct per key.
CompiledProgram ProgramOfSize(size_t bytes, char fill) {
  CompiledProgram p;
  p.cubin = std::string(bytes, fill);
  p.lowered_names = {{"k", "k"}};
  return p;
}

// The cache stays within its bound, removing the least recently USED entry first: a hit
// counts as a use, so an old but popular entry survives a newer unused one.
TEST_F(CubinCacheTest, TotalSizeIsBoundedLeastRecentlyUsedFirst) {
  CubinCache cache(dir_.string(), 250000);  // room for two 100 kB entries, not three
  const std::string a = CubinCache::Key("a", {}, "sm_90a", "13.0", {"k"});
  const std::string b = CubinCache::Key("b", {}, "sm_90a", "13.0", {"k"});
  const std::string c = CubinCache::Key("c", {}, "sm_90a", "13.0", {"k"});
  cache.Store(a, ProgramOfSize(100000, 'a'));
  cache.Store(b, ProgramOfSize(100000, 'b'));
  ASSERT_TRUE(cache.Lookup(a).has_value());  // a is now used more recently than b
  cache.Store(c, ProgramOfSize(100000, 'c'));
  EXPECT_TRUE(cache.Lookup(a).has_value());
  EXPECT_FALSE(cache.Lookup(b).has_value());
  EXPECT_TRUE(cache.Lookup(c).has_value());
  EXPECT_LE(cache.TotalBytes(), 250000u);
  EXPECT_FALSE(fs::exists(dir_ / (b + ".cubin")));
  EXPECT_FALSE(fs::exists(dir_ / (b + ".json")));
  // Many new entries (each new comment in a source makes one): the total never passes the bound.
  for (int i = 0; i < 20; ++i) {
    cache.Store(CubinCache::Key("src // comment " + std::to_string(i), {}, "sm_90a", "13.0", {"k"}),
                ProgramOfSize(60000, static_cast<char>('0' + i)));
    EXPECT_LE(cache.TotalBytes(), 250000u) << i;
  }
}

TEST_F(CubinCacheTest, AnEntryLargerThanTheBoundIsNotStored) {
  CubinCache cache(dir_.string(), 50000);
  const std::string key = CubinCache::Key("big", {}, "sm_90a", "13.0", {"k"});
  cache.Store(key, ProgramOfSize(60000, 'x'));
  EXPECT_FALSE(cache.Lookup(key).has_value());
  EXPECT_EQ(cache.TotalBytes(), 0u);
}

// Cubins of other tenants' submissions: the directory 0700 and every file 0600, whatever the
// umask and even when the directory was there before with looser modes.
TEST_F(CubinCacheTest, FilesArePrivateWhateverTheUmask) {
  const mode_t old_umask = ::umask(0);
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::all);  // 0777, as a careless earlier start might leave it
  {
    CubinCache cache(dir_.string());
    const std::string key = CubinCache::Key("src", {}, "sm_90a", "13.0", {"k"});
    cache.Store(key, Program());
    ASSERT_TRUE(cache.Lookup(key).has_value());
  }
  ::umask(old_umask);
  EXPECT_EQ(fs::status(dir_).permissions(), fs::perms::owner_all);
  size_t files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.status().permissions(), fs::perms::owner_read | fs::perms::owner_write) << entry.path();
  }
  EXPECT_EQ(files, 2u);
  // A fresh directory, created under umask 0, is 0700 too.
  const fs::path fresh = dir_ / "fresh";
  ::umask(0);
  { CubinCache cache(fresh.string()); }
  ::umask(old_umask);
  EXPECT_EQ(fs::status(fresh).permissions(), fs::perms::owner_all);
}

}  // namespace
}  // namespace kjudge::runner
