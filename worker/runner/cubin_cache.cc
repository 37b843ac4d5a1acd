#include "worker/runner/cubin_cache.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "worker/runner/str_util.h"
#include "common/sha256.h"

namespace kjudge::runner {
namespace {

namespace fs = std::filesystem;

void AppendField(std::string& out, std::string_view field) {
  Append(&out, field.size(), ":", field, ";");
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(buffer).str();
}

bool WriteAtomically(const fs::path& path, std::string_view data) {
  const fs::path tmp = Cat(path.string(), ".tmp.", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out.good()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

std::optional<CompiledProgram> ParseEntry(const std::string& cubin, const std::string& json_text) {
  const nlohmann::json meta = nlohmann::json::parse(json_text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) return std::nullopt;
  const auto size = meta.find("cubin_size");
  const auto digest = meta.find("cubin_sha256");
  const auto names = meta.find("lowered_names");
  if (size == meta.end() || digest == meta.end() || names == meta.end()) return std::nullopt;
  if (!size->is_number_unsigned() || !digest->is_string() || !names->is_object()) {
    return std::nullopt;
  }
  if (size->get<size_t>() != cubin.size() || digest->get<std::string>() != Sha256Hex(cubin)) {
    return std::nullopt;
  }
  CompiledProgram program;
  program.cubin = cubin;
  for (const auto& [expr, lowered] : names->items()) {
    if (!lowered.is_string()) return std::nullopt;
    program.lowered_names[expr] = lowered.get<std::string>();
  }
  return program;
}

}  // namespace

CubinCache::CubinCache(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    spdlog::warn("cubin cache disabled: cannot create {}: {}", dir_, ec.message());
    dir_.clear();
  }
}

std::string CubinCache::Key(std::string_view source, const std::vector<std::string>& options,
                            std::string_view arch, std::string_view nvrtc_version,
                            std::vector<std::string> name_expressions) {
  std::sort(name_expressions.begin(), name_expressions.end());
  name_expressions.erase(std::unique(name_expressions.begin(), name_expressions.end()),
                         name_expressions.end());
  std::string material = "kjudge-cubin-v1;";
  AppendField(material, source);
  std::string joined;
  for (const std::string& o : options) Append(&joined, o, "\n");
  AppendField(material, joined);
  AppendField(material, arch);
  AppendField(material, nvrtc_version);
  for (const std::string& e : name_expressions) AppendField(material, e);
  return Sha256Hex(material);
}

std::optional<CompiledProgram> CubinCache::Lookup(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  const fs::path base = fs::path(dir_) / key;
  std::optional<std::string> json_text = ReadFile(base.string() + ".json");
  if (!json_text) return std::nullopt;
  std::optional<std::string> cubin = ReadFile(base.string() + ".cubin");
  if (!cubin) return std::nullopt;
  std::optional<CompiledProgram> program = ParseEntry(*cubin, *json_text);
  if (!program) spdlog::warn("cubin cache entry {} is corrupt; treating it as a miss", key);
  return program;
}

void CubinCache::Store(const std::string& key, const CompiledProgram& program) const {
  if (!enabled()) return;
  nlohmann::json meta;
  meta["cubin_size"] = program.cubin.size();
  meta["cubin_sha256"] = Sha256Hex(program.cubin);
  meta["lowered_names"] = program.lowered_names;
  const fs::path base = fs::path(dir_) / key;
  if (!WriteAtomically(base.string() + ".cubin", program.cubin) ||
      !WriteAtomically(base.string() + ".json", meta.dump())) {
    spdlog::warn("could not store cubin cache entry {} in {}", key, dir_);
  }
}

const compiler::SandboxedCompiler& DefaultSandboxedCompiler() {
  static const compiler::SandboxedCompiler* const kDefault = new compiler::SandboxedCompiler();
  return *kDefault;
}

const compiler::SandboxedCompiler& CubinCache::sandboxed_compiler() const {
  return compiler_ != nullptr ? *compiler_ : DefaultSandboxedCompiler();
}

absl::StatusOr<CompileOutcome> CompileCached(const CompileRequest& request,
                                             const CubinCache& cache) {
  const auto start = std::chrono::steady_clock::now();
  const compiler::SandboxedCompiler& sandboxed = cache.sandboxed_compiler();
  // The headers' content, not only their paths, decides the cubin: an edited std_headers file
  // must never serve a cubin compiled against the old one.
  std::vector<std::string> options = NvrtcOptions(request.arch, sandboxed.options().include_dirs);
  options.push_back(Cat("kjudge-include-digest=", sandboxed.include_digest()));
  const std::string key = CubinCache::Key(request.source, options, request.arch,
                                          NvrtcVersionString(), request.name_expressions);
  if (std::optional<CompiledProgram> hit = cache.Lookup(key)) {
    const bool complete = std::all_of(
        request.name_expressions.begin(), request.name_expressions.end(),
        [&hit](const std::string& e) { return hit->lowered_names.count(e) > 0; });
    if (complete) {
      CompileOutcome outcome;
      outcome.success = true;
      outcome.cache_hit = true;
      outcome.program = std::move(*hit);
      outcome.compile_ms = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      return outcome;
    }
  }
  absl::StatusOr<CompileOutcome> outcome = sandboxed.Compile(request);
  if (outcome.ok() && outcome->success) cache.Store(key, outcome->program);
  return outcome;
}

}  // namespace kjudge::runner
