#include "worker/compiler/ptxas_report.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <utility>

namespace kjudge::compiler {
namespace {

constexpr std::string_view kInfo = "ptxas info";
constexpr std::string_view kProperty = "ptxas         .";
constexpr std::string_view kEntry = "Compiling entry function '";
constexpr std::string_view kProperties = "Function properties for ";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The log split into lines (each without its '\n'); a last line without '\n' counts too.
std::vector<std::string_view> Lines(std::string_view log) {
  std::vector<std::string_view> lines;
  while (!log.empty()) {
    const size_t end = log.find('\n');
    lines.push_back(log.substr(0, end));
    if (end == std::string_view::npos) break;
    log.remove_prefix(end + 1);
  }
  return lines;
}

// Index of the first line of the trailing run of "ptxas" lines (empty lines at the very end
// belong to it); lines.size() when there is none.
size_t ReportStart(const std::vector<std::string_view>& lines) {
  size_t start = lines.size();
  while (start > 0 && lines[start - 1].empty()) --start;
  const size_t blank_tail = start;
  while (start > 0 && StartsWith(lines[start - 1], "ptxas")) --start;
  return start == blank_tail ? lines.size() : start;
}

// The number that ends `text` ("... 4608"), or nullopt.
std::optional<int64_t> TrailingNumber(std::string_view text) {
  size_t begin = text.size();
  while (begin > 0 && text[begin - 1] >= '0' && text[begin - 1] <= '9') --begin;
  if (begin == text.size()) return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data() + begin, text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The number in front of `unit` in "Used 32 registers, used 0 barriers, 4000 bytes smem":
// each comma-separated item is "<words> N <unit>".
int64_t ItemValue(std::string_view line, std::string_view unit) {
  while (!line.empty()) {
    const size_t comma = line.find(',');
    std::string_view item = line.substr(0, comma);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.size() > unit.size() + 1 && item.substr(item.size() - unit.size()) == unit &&
        item[item.size() - unit.size() - 1] == ' ') {
      return TrailingNumber(item.substr(0, item.size() - unit.size() - 1)).value_or(0);
    }
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return 0;
}

// Reads one report into kernels, keyed by name: a name seen again replaces its record.
class ReportReader {
 public:
  explicit ReportReader(size_t max_kernels) : max_kernels_(max_kernels) {}

  void Read(std::string_view line) {
    if (!StartsWith(line, kInfo) && !StartsWith(line, kProperty)) return;
    const size_t colon = line.find(": ");
    const std::string_view text =
        StartsWith(line, kProperty) ? line.substr(kProperty.size())
                                    : (colon == std::string_view::npos ? "" : line.substr(colon + 2));
    if (StartsWith(text, kEntry)) {
      const std::string_view rest = text.substr(kEntry.size());
      Begin(rest.substr(0, rest.find('\'')));
    } else if (StartsWith(text, kProperties)) {
      properties_of_current_ = current_ != nullptr && SafeKernelName(text.substr(kProperties.size())) ==
                                                          current_->name;
    } else if (current_ != nullptr && properties_of_current_ && text.find("stack frame") != std::string_view::npos) {
      current_->local_bytes = ItemValue(text, "bytes stack frame");
      current_->spill_store_bytes = ItemValue(text, "bytes spill stores");
      current_->spill_load_bytes = ItemValue(text, "bytes spill loads");
      properties_of_current_ = false;
    } else if (current_ != nullptr && StartsWith(text, "Used ")) {
      current_->registers = ItemValue(text.substr(5), "registers");
      current_->barriers = ItemValue(text, "barriers");
      current_->static_shared_bytes = ItemValue(text, "bytes smem");
      current_->max_threads_per_block = MaxThreadsForRegisters(current_->registers);
    }
  }

  PtxasReport Finish() && {
    PtxasReport report;
    report.kernels = std::move(kernels_);
    report.kernels_cut = cut_;
    return report;
  }

 private:
  void Begin(std::string_view raw_name) {
    properties_of_current_ = false;
    std::string name = SafeKernelName(raw_name);
    auto it = std::find_if(kernels_.begin(), kernels_.end(),
                           [&name](const KernelResources& k) { return k.name == name; });
    if (it != kernels_.end()) {
      *it = KernelResources{};
      it->name = std::move(name);
      it->max_threads_per_block = MaxThreadsForRegisters(0);
      current_ = &*it;
      return;
    }
    if (kernels_.size() >= max_kernels_) {
      ++cut_;
      current_ = nullptr;
      return;
    }
    KernelResources& kernel = kernels_.emplace_back();
    kernel.name = std::move(name);
    kernel.max_threads_per_block = MaxThreadsForRegisters(0);
    current_ = &kernel;
  }

  size_t max_kernels_;
  std::vector<KernelResources> kernels_;
  KernelResources* current_ = nullptr;  // kernels_ never grows while it is read back
  bool properties_of_current_ = false;
  int64_t cut_ = 0;
};

}  // namespace

std::string SafeKernelName(std::string_view name) {
  std::string out(name.substr(0, kMaxKernelNameBytes));
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '$' || c == '.';
    if (!ok) c = '?';
  }
  return out;
}

int64_t MaxThreadsForRegisters(int64_t registers) {
  if (registers <= 0) return kMaxThreadsPerBlockCap;
  constexpr int64_t kWarp = 32;
  constexpr int64_t kWarpAllocation = 256;  // registers are given to a warp 256 at a time
  // The register file is split among the SM's 4 sub-partitions and a warp lives in one, so a
  // block gets 4 x (warps one quarter holds), not (warps the whole file holds): at 216 registers
  // 9 warps fit the file but 2 fit a quarter, and the driver says 256 threads, not 288 (H200,
  // cuFuncGetAttribute, 2026-11-28).
  constexpr int64_t kSubPartitions = 4;
  const int64_t capped = std::min<int64_t>(registers, kRegistersPerBlock);
  const int64_t per_warp = (capped * kWarp + kWarpAllocation - 1) / kWarpAllocation * kWarpAllocation;
  const int64_t warps = kRegistersPerBlock / kSubPartitions / per_warp * kSubPartitions;
  return std::min(kMaxThreadsPerBlockCap, warps * kWarp);
}

PtxasReport SplitPtxasReport(std::string_view log, size_t max_kernels) {
  const std::vector<std::string_view> lines = Lines(log);
  const size_t start = ReportStart(lines);
  ReportReader reader(max_kernels);
  for (size_t i = start; i < lines.size(); ++i) reader.Read(lines[i]);
  PtxasReport report = std::move(reader).Finish();
  if (start == lines.size()) {
    report.log = std::string(log);
    return report;
  }
  // Everything before the report unchanged, then the report's lines that -v did not add.
  const size_t prefix = static_cast<size_t>(lines[start].data() - log.data());
  report.log = std::string(log.substr(0, prefix));
  for (size_t i = start; i < lines.size(); ++i) {
    if (lines[i].empty() || StartsWith(lines[i], kInfo) || StartsWith(lines[i], kProperty)) continue;
    report.log.append(lines[i]).push_back('\n');
  }
  return report;
}

namespace {

// The numeric fields, by their JSON names.
constexpr std::pair<const char*, int64_t KernelResources::*> kNumberFields[] = {
    {"registers", &KernelResources::registers},
    {"spill_store_bytes", &KernelResources::spill_store_bytes},
    {"spill_load_bytes", &KernelResources::spill_load_bytes},
    {"static_shared_bytes", &KernelResources::static_shared_bytes},
    {"local_bytes", &KernelResources::local_bytes},
    {"barriers", &KernelResources::barriers},
    {"max_threads_per_block", &KernelResources::max_threads_per_block},
};

std::optional<KernelResources> KernelFromJson(const nlohmann::json& doc) {
  if (!doc.is_object()) return std::nullopt;
  KernelResources kernel;
  const auto name = doc.find("name");
  if (name == doc.end() || !name->is_string()) return std::nullopt;
  kernel.name = SafeKernelName(name->get_ref<const std::string&>());
  for (const auto& [key, field] : kNumberFields) {
    const auto it = doc.find(key);
    if (it == doc.end()) continue;
    if (!it->is_number_integer()) return std::nullopt;
    kernel.*field = it->is_number_unsigned()
                        ? static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(),
                                                                  std::numeric_limits<int64_t>::max()))
                        : std::max<int64_t>(0, it->get<int64_t>());
  }
  return kernel;
}

}  // namespace

namespace {

// Little-endian unsigned of `width` bytes at `offset`, if it lies inside `bytes`.
std::optional<uint64_t> ReadLe(std::string_view bytes, uint64_t offset, int width) {
  if (offset > bytes.size() || bytes.size() - offset < static_cast<uint64_t>(width)) return std::nullopt;
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

struct Section {
  uint64_t name = 0;    // offset in the section-name table
  uint64_t offset = 0;  // of its bytes in the file
  uint64_t size = 0;
};

std::optional<Section> SectionAt(std::string_view elf, uint64_t header) {
  const std::optional<uint64_t> name = ReadLe(elf, header, 4);
  const std::optional<uint64_t> offset = ReadLe(elf, header + 0x18, 8);
  const std::optional<uint64_t> size = ReadLe(elf, header + 0x20, 8);
  if (!name || !offset || !size || *offset > elf.size() || elf.size() - *offset < *size) return std::nullopt;
  return Section{*name, *offset, *size};
}

// The NUL-terminated name at `offset` of the section-name table, "" when out of bounds.
std::string_view NameAt(std::string_view elf, const Section& names, uint64_t offset) {
  if (offset >= names.size) return {};
  const std::string_view table = elf.substr(names.offset, names.size);
  const size_t end = table.find('\0', offset);
  return end == std::string_view::npos ? std::string_view() : table.substr(offset, end - offset);
}

constexpr uint8_t kFormatNone = 1;    // EIFMT_NVAL: no value
constexpr uint8_t kFormatByte = 2;    // EIFMT_BVAL: a byte value, padded to 16 bits (e.g. 0x4c
                                      // with __launch_bounds__(t, min_blocks) and __shared__)
constexpr uint8_t kFormatHalf = 3;    // EIFMT_HVAL: a 16-bit value
constexpr uint8_t kFormatSized = 4;   // EIFMT_SVAL: a 16-bit size, then that many bytes
constexpr uint8_t kMaxThreadsAttribute = 0x05;  // EIATTR_MAX_THREADS: three uint32 (x, y, z)

// x * y * z of the EIATTR_MAX_THREADS attribute in one ".nv.info.<kernel>" section.
std::optional<int64_t> MaxThreadsAttribute(std::string_view info) {
  uint64_t at = 0;
  while (at + 2 <= info.size()) {
    const auto format = static_cast<uint8_t>(info[at]);
    const auto attribute = static_cast<uint8_t>(info[at + 1]);
    if (format == kFormatNone) {
      at += 2;
    } else if (format == kFormatByte || format == kFormatHalf) {
      at += 4;
    } else if (format == kFormatSized) {
      const std::optional<uint64_t> size = ReadLe(info, at + 2, 2);
      if (!size) return std::nullopt;
      if (attribute == kMaxThreadsAttribute && *size == 12) {
        int64_t threads = 1;
        for (int i = 0; i < 3; ++i) {
          const std::optional<uint64_t> dim = ReadLe(info, at + 4 + 4 * i, 4);
          if (!dim) return std::nullopt;
          threads *= static_cast<int64_t>(std::min<uint64_t>(*dim, kMaxThreadsPerBlockCap + 1));
          threads = std::min<int64_t>(threads, kMaxThreadsPerBlockCap + 1);
        }
        return threads;
      }
      at += 4 + *size;
    } else {
      return std::nullopt;  // a format this reader does not know: stop rather than guess
    }
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, int64_t> LaunchBoundsFromCubin(std::string_view cubin) {
  std::map<std::string, int64_t> bounds;
  constexpr std::string_view kInfoPrefix = ".nv.info.";
  if (cubin.substr(0, 4) != "\x7f" "ELF" || cubin.size() < 0x40 || cubin[4] != 2 /* ELFCLASS64 */) return bounds;
  const std::optional<uint64_t> table = ReadLe(cubin, 0x28, 8);
  const std::optional<uint64_t> entry_size = ReadLe(cubin, 0x3a, 2);
  const std::optional<uint64_t> count = ReadLe(cubin, 0x3c, 2);
  const std::optional<uint64_t> names_index = ReadLe(cubin, 0x3e, 2);
  if (!table || !entry_size || !count || !names_index || *entry_size < 0x28 || *names_index >= *count) return bounds;
  const std::optional<Section> names = SectionAt(cubin, *table + *names_index * *entry_size);
  if (!names) return bounds;
  for (uint64_t i = 0; i < *count; ++i) {
    const std::optional<Section> section = SectionAt(cubin, *table + i * *entry_size);
    if (!section) continue;  // e.g. .nv.shared.*: NOBITS, no bytes in the file
    const std::string_view name = NameAt(cubin, *names, section->name);
    if (name.substr(0, kInfoPrefix.size()) != kInfoPrefix || name.size() == kInfoPrefix.size()) continue;
    const std::optional<int64_t> threads = MaxThreadsAttribute(cubin.substr(section->offset, section->size));
    if (threads) bounds[SafeKernelName(name.substr(kInfoPrefix.size()))] = *threads;
  }
  return bounds;
}

void ApplyLaunchBounds(std::string_view cubin, std::vector<KernelResources>* kernels) {
  const std::map<std::string, int64_t> bounds = LaunchBoundsFromCubin(cubin);
  for (KernelResources& kernel : *kernels) {
    const auto it = bounds.find(kernel.name);
    if (it != bounds.end()) kernel.max_threads_per_block = std::min(kernel.max_threads_per_block, it->second);
  }
}

nlohmann::json KernelsToJson(const std::vector<KernelResources>& kernels) {
  nlohmann::json out = nlohmann::json::array();
  for (const KernelResources& kernel : kernels) {
    nlohmann::json doc;
    doc["name"] = kernel.name;
    for (const auto& [key, field] : kNumberFields) doc[key] = kernel.*field;
    out.push_back(std::move(doc));
  }
  return out;
}

std::optional<std::vector<KernelResources>> KernelsFromJson(const nlohmann::json& doc, int64_t* cut,
                                                            size_t max_kernels) {
  if (!doc.is_array()) return std::nullopt;
  std::vector<KernelResources> kernels;
  for (const nlohmann::json& item : doc) {
    std::optional<KernelResources> kernel = KernelFromJson(item);
    if (!kernel) return std::nullopt;
    if (kernels.size() >= max_kernels) {
      ++*cut;
      continue;
    }
    kernels.push_back(*std::move(kernel));
  }
  return kernels;
}

}  // namespace kjudge::compiler
