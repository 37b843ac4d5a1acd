// CubinCache: a directory of compiled cubins keyed by everything that determines them.
//
// Contract: Key() = sha256 over (source, NVRTC options joined by '\n', arch, NVRTC version,
// sorted+deduplicated name expressions), each field length-prefixed so no two inputs collide.
// An entry is two files, <key>.cubin and <key>.json ({"cubin_sha256", "cubin_size",
// "lowered_names", "kernels", "kernels_cut": each kernel's resources, compiler/ptxas_report.h); each is written to a temporary file and renamed into place, the JSON last,
// so a reader never sees a half-written entry. Lookup() returns nullopt on a miss and also on
// any unreadable or inconsistent entry (corrupt file, size or digest mismatch): a corrupt entry
// is just a miss and is overwritten by the next Store(). A disabled cache (empty dir) always
// misses and stores nothing. Store() failures are logged and ignored (the cache is an
// optimisation). Safe across processes (atomic rename); not thread-safe within one.
// CompileCached's options part of the key includes the compiler's include dirs (kjudge's
// std_headers) and the digest of their content (SandboxedCompiler::include_digest()).
//
// Bounded: the entries' total size stays within max_bytes. A hit marks its entry used (the
// JSON's mtime); each Store() then removes least recently used entries (oldest mtime first,
// never the one just stored) until the total is within the bound; an entry larger than the
// bound is not stored. Private: the directory is made 0700 and every file 0600, whatever the
// umask (cubins of other tenants' submissions live there).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "worker/compiler/sandboxed_compiler.h"
#include "worker/gpu/nvrtc_compiler.h"

namespace kjudge::runner {

inline constexpr uint64_t kDefaultCubinCacheMib = 2048;

class CubinCache {
 public:
  // Creates the directory when missing (0700; an existing one is chmod 0700); "" = disabled.
  explicit CubinCache(std::string dir, uint64_t max_bytes = kDefaultCubinCacheMib << 20);

  static std::string Key(std::string_view source, const std::vector<std::string>& options,
                         std::string_view arch, std::string_view nvrtc_version,
                         std::vector<std::string> name_expressions);

  std::optional<CompiledProgram> Lookup(const std::string& key) const;
  void Store(const std::string& key, const CompiledProgram& program) const;
  bool enabled() const { return !dir_.empty(); }
  uint64_t max_bytes() const { return max_bytes_; }
  // The entries' total size in bytes (a directory scan).
  uint64_t TotalBytes() const;

  // The sandboxed compiler CompileCached() uses on a miss (its binary, limits, read dirs);
  // unset: DefaultSandboxedCompiler().
  void UseCompiler(std::shared_ptr<const compiler::SandboxedCompiler> compiler) {
    compiler_ = std::move(compiler);
  }
  const compiler::SandboxedCompiler& sandboxed_compiler() const;

 private:
  // Removes least recently used entries (never `keep`) until the total is within max_bytes_.
  void Evict(const std::string& keep) const;

  std::string dir_;
  uint64_t max_bytes_;
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
