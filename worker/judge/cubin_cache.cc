#include "worker/judge/cubin_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "worker/gpu/str_util.h"
#include "common/sha256.h"
#include "worker/process/unique_fd.h"

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

constexpr fs::perms kDirPerms = fs::perms::owner_all;                              // 0700
constexpr mode_t kFileMode = 0600;

// Written to a private temporary file (0600 whatever the umask: cubins of other tenants'
// submissions live here) and renamed into place, so a reader never sees half an entry.
bool WriteAtomically(const fs::path& path, std::string_view data) {
  const fs::path tmp = Cat(path.string(), ".tmp.", ::getpid());
  process::UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, kFileMode));
  if (fd.get() < 0) return false;
  bool ok = ::fchmod(fd.get(), kFileMode) == 0;
  for (size_t done = 0; ok && done < data.size();) {
    const ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  fd.Reset();
  std::error_code ec;
  if (ok) fs::rename(tmp, path, ec);
  if (!ok || ec) fs::remove(tmp, ec);
  return ok && !ec;
}

// The JSON's mtime is the entry's place in the least-recently-used order. Set from the fine
// clock: the times the kernel stamps on a write are coarse (a jiffy), too coarse to order a
// store and a hit a millisecond apart.
void MarkUsed(const std::string& json_path) {
  timespec now[2];
  ::clock_gettime(CLOCK_REALTIME, &now[0]);
  now[1] = now[0];
  (void)::utimensat(AT_FDCWD, json_path.c_str(), now, 0);
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
  // Entries from before kernel resources were reported have none (their key differs anyway).
  if (const auto kernels = meta.find("kernels"); kernels != meta.end()) {
    std::optional<std::vector<compiler::KernelResources>> parsed =
        compiler::KernelsFromJson(*kernels, &program.kernels_cut);
    if (!parsed) return std::nullopt;
    program.kernels = *std::move(parsed);
  }
  if (const auto cut = meta.find("kernels_cut"); cut != meta.end() && cut->is_number_integer()) {
    program.kernels_cut += std::max<int64_t>(0, cut->get<int64_t>());
  }
  return program;
}

}  // namespace

CubinCache::CubinCache(std::string dir, uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (!ec) fs::permissions(dir_, kDirPerms, fs::perm_options::replace, ec);
  if (ec) {
    spdlog::warn("cubin cache disabled: cannot create {} as a private (0700) directory: {}", dir_, ec.message());
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
  if (!program) {
    spdlog::warn("cubin cache entry {} is corrupt; treating it as a miss", key);
    return program;
  }
  MarkUsed(base.string() + ".json");
  return program;
}

uint64_t CubinCache::TotalBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const uintmax_t size = it->file_size(ec);
    if (!ec) total += size;
    ec.clear();
  }
  return total;
}

void CubinCache::Evict(const std::string& keep) const {
  struct Entry {
    uint64_t bytes = 0;
    fs::file_time_type used = fs::file_time_type::min();
    std::vector<fs::path> files;
  };
  std::map<std::string, Entry> entries;
  uint64_t total = 0;
  const auto stale = fs::file_time_type::clock::now() - std::chrono::minutes(10);
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) continue;
    const std::string name = it->path().filename().string();
    const uintmax_t size = it->file_size(file_ec);
    const fs::file_time_type mtime = it->last_write_time(file_ec);
    if (file_ec) continue;
    // A writer that died between write and rename leaves its temporary file: gone after 10 min.
    if (name.find(".tmp.") != std::string::npos) {
      if (mtime < stale) {
        fs::remove(it->path(), file_ec);
      } else {
        total += size;
      }
      continue;
    }
    Entry& entry = entries[name.substr(0, name.find('.'))];
    entry.bytes += size;
    entry.files.push_back(it->path());
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) entry.used = mtime;
    total += size;
  }
  if (total <= max_bytes_) return;
  std::vector<std::pair<fs::file_time_type, std::string>> order;
  for (const auto& [key, entry] : entries) {
    if (key != keep) order.emplace_back(entry.used, key);
  }
  std::sort(order.begin(), order.end());
  size_t removed = 0;
  for (const auto& [used, key] : order) {
    if (total <= max_bytes_) break;
    const Entry& entry = entries[key];
    // The JSON first: without it the entry is a miss, whatever happens to the cubin.
    for (const fs::path& file : entry.files) {
      if (file.extension() == ".json") fs::remove(file, ec);
    }
    for (const fs::path& file : entry.files) fs::remove(file, ec);
    total -= std::min(total, entry.bytes);
    ++removed;
  }
  spdlog::info("cubin cache: removed {} least recently used entr{} ({} bytes left, bound {})", removed,
               removed == 1 ? "y" : "ies", total, max_bytes_);
}

void CubinCache::Store(const std::string& key, const CompiledProgram& program) const {
  if (!enabled()) return;
  nlohmann::json meta;
  meta["cubin_size"] = program.cubin.size();
  meta["cubin_sha256"] = Sha256Hex(program.cubin);
  meta["lowered_names"] = program.lowered_names;
  meta["kernels"] = compiler::KernelsToJson(program.kernels);
  meta["kernels_cut"] = program.kernels_cut;
  const std::string json = meta.dump();
  if (program.cubin.size() + json.size() > max_bytes_) {
    spdlog::info("cubin cache: entry {} ({} bytes) is larger than the whole cache bound ({}); not stored",
                 key, program.cubin.size(), max_bytes_);
    return;
  }
  const fs::path base = fs::path(dir_) / key;
  if (!WriteAtomically(base.string() + ".cubin", program.cubin) ||
      !WriteAtomically(base.string() + ".json", json)) {
    spdlog::warn("could not store cubin cache entry {} in {}", key, dir_);
  }
  MarkUsed(base.string() + ".json");
  Evict(key);
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
