// CubinCache: a directory of compiled cubins keyed by everything that determines them.
//
// Contract: Key() = sha256 over (source, NVRTC options joined by '\n', arch, NVRTC version,
// sorted+deduplicated name expressions), each field length-prefixed so no two inputs collide.
// An entry is two files, <key>.cubin and <key>.json ({"cubin_sha256", "cubin_size",
// "lowered_names"}); each is written to a temporary file and renamed into place, the JSON last,
// so a reader never sees a half-written entry. Lookup() returns nullopt on a miss and also on
// any unreadable or inconsistent entry (corrupt file, size or digest mismatch): a corrupt entry
// is just a miss and is overwritten by the next Store(). A disabled cache (empty dir) always
// misses and stores nothing. Store() failures are logged and ignored (the cache is an
// optimisation). Safe across processes (atomic rename); not thread-safe within one.
// CompileCached's options part of the key includes the compiler's include dirs (kjudge's
// std_headers) and the digest of their content (SandboxedCompiler::include_digest()).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "worker/compiler/sandboxed_compiler.h"
#include "worker/runner/nvrtc_compiler.h"

namespace kjudge::runner {

class CubinCache {
 public:
  explicit CubinCache(std::string dir);  // creates the directory when missing; "" = disabled

  static std::string Key(std::string_view source, const std::vector<std::string>& options,
                         std::string_view arch, std::string_view nvrtc_version,
                         std::vector<std::string> name_expressions);

  std::optional<CompiledProgram> Lookup(const std::string& key) const;
  void Store(const std::string& key, const CompiledProgram& program) const;
  bool enabled() const { return !dir_.empty(); }

  // The sandboxed compiler CompileCached() uses on a miss (its binary, limits, read dirs);
  // unset: DefaultSandboxedCompiler().
  void UseCompiler(std::shared_ptr<const compiler::SandboxedCompiler> compiler) {
    compiler_ = std::move(compiler);
  }
  const compiler::SandboxedCompiler& sandboxed_compiler() const;

 private:
  std::string dir_;
  std::shared_ptr<const compiler::SandboxedCompiler> compiler_;
};

// A SandboxedCompiler with default options (kjudge-compiler beside this executable, else
// $KJUDGE_COMPILER; CompilerLimits defaults). Immutable; thread-safe.
const compiler::SandboxedCompiler& DefaultSandboxedCompiler();

// Compile through the cache: a hit skips NVRTC (outcome.cache_hit = true, compile_ms is the
// lookup time); a miss compiles the (untrusted) source in a kjudge-compiler process through
// cache.sandboxed_compiler(), so a hostile source can read no file but the CUDA headers and a
// limit hit is a compile error naming it. A successful compile is stored. Compile errors are
// never cached.
absl::StatusOr<CompileOutcome> CompileCached(const CompileRequest& request,
                                             const CubinCache& cache);

}  // namespace kjudge::runner
