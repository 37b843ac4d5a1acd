#include "common/toml_reader.h"

#include <charconv>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/absl_compat.h"

namespace kjudge {
namespace {

std::string FormatPos(SourcePos pos) { return absl::StrCat(pos.line, ":", pos.column); }

// Splits "<line>:<column>: rest" into its parts; false when the message has no such prefix.
bool SplitPosPrefix(absl::string_view message, SourcePos& pos, absl::string_view& rest) {
  const std::vector<absl::string_view> parts = absl::StrSplit(message, absl::MaxSplits(':', 2));
  if (parts.size() != 3 || parts[2].empty() || parts[2][0] != ' ') return false;
  for (int i = 0; i < 2; ++i) {
    int& out = i == 0 ? pos.line : pos.column;
    const auto [end, ec] = std::from_chars(parts[i].data(), parts[i].data() + parts[i].size(), out);
    if (ec != std::errc() || end != parts[i].data() + parts[i].size()) return false;
  }
  rest = parts[2].substr(1);
  return true;
}

}  // namespace

absl::StatusOr<TomlReader> TomlReader::Parse(std::string_view text, std::string_view origin) {
  try {
    toml::table root = toml::parse(text, origin);
    return TomlReader(std::string(text), std::string(origin), std::move(root));
  } catch (const toml::parse_error& e) {
    const SourcePos pos{static_cast<int>(e.source().begin.line),
                        static_cast<int>(e.source().begin.column)};
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(origin), ":", FormatPos(pos), ": invalid TOML: ", ToAbsl(e.description())));
  }
}

std::string TomlReader::Join(absl::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", ToAbsl(key));
}

std::string TomlReader::Index(absl::string_view path, size_t i) {
  return absl::StrCat(path, "[", i, "]");
}

SourcePos TomlReader::PosOf(const toml::node& node) {
  return SourcePos{static_cast<int>(node.source().begin.line),
                   static_cast<int>(node.source().begin.column)};
}

absl::Status TomlReader::Error(SourcePos pos, absl::string_view path,
                               absl::string_view message) const {
  const std::string where = pos.line > 0 ? absl::StrCat(":", FormatPos(pos)) : "";
  const std::string key = path.empty() ? "" : absl::StrCat(path, ": ");
  return absl::InvalidArgumentError(absl::StrCat(origin_, where, ": ", key, message));
}

absl::Status TomlReader::Error(const toml::node& node, absl::string_view path,
                               absl::string_view message) const {
  return Error(PosOf(node), path, message);
}

absl::Status TomlReader::Rebase(const absl::Status& status, absl::string_view path) const {
  SourcePos pos{0, 0};
  absl::string_view rest;
  if (SplitPosPrefix(status.message(), pos, rest)) return Error(pos, path, rest);
  return Error(SourcePos{0, 0}, path, status.message());
}

absl::Status TomlReader::CheckKeys(const toml::table& table, absl::string_view path,
                                   std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, node] : table) {
    bool known = false;
    std::vector<std::string> names;
    for (std::string_view a : allowed) {
      known = known || a == key.str();
      names.emplace_back(a);
    }
    if (known) continue;
    const SourcePos pos{static_cast<int>(key.source().begin.line),
                        static_cast<int>(key.source().begin.column)};
    return Error(pos, Join(path, key.str()),
                 absl::StrCat("unknown key '", ToAbsl(key.str()), "'; expected one of: ",
                              absl::StrJoin(names, ", ")));
  }
  return absl::OkStatus();
}

absl::StatusOr<const toml::node*> TomlReader::Require(const toml::table& table,
                                                      absl::string_view path,
                                                      std::string_view key) const {
  const toml::node* node = table.get(key);
  if (node != nullptr) return node;
  SourcePos pos = PosOf(table);
  if (pos.line == 0) pos = SourcePos{1, 1};
  const std::string full = Join(path, key);
  return Error(pos, full, absl::StrCat("missing required key '", full, "'"));
}

absl::string_view TomlReader::TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    default:
      return "a date/time";
  }
}

absl::StatusOr<std::string> TomlReader::GetString(const toml::table& table, absl::string_view path,
                                                  std::string_view key) const {
  absl::StatusOr<const toml::node*> node = Require(table, path, key);
  if (!node.ok()) return node.status();
  if (const auto* s = (*node)->as_string()) return s->get();
  return Error(**node, Join(path, key), absl::StrCat("expected a string, found ", TypeName(**node)));
}

absl::StatusOr<int64_t> TomlReader::GetInt(const toml::table& table, absl::string_view path,
                                           std::string_view key) const {
  absl::StatusOr<const toml::node*> node = Require(table, path, key);
  if (!node.ok()) return node.status();
  if (const auto* i = (*node)->as_integer()) return i->get();
  return Error(**node, Join(path, key),
               absl::StrCat("expected an integer, found ", TypeName(**node)));
}

absl::StatusOr<bool> TomlReader::GetBool(const toml::table& table, absl::string_view path,
                                         std::string_view key) const {
  absl::StatusOr<const toml::node*> node = Require(table, path, key);
  if (!node.ok()) return node.status();
  if (const auto* b = (*node)->as_boolean()) return b->get();
  return Error(**node, Join(path, key),
               absl::StrCat("expected true or false, found ", TypeName(**node)));
}

absl::StatusOr<double> TomlReader::GetNumber(const toml::table& table, absl::string_view path,
                                             std::string_view key) const {
  absl::StatusOr<const toml::node*> node = Require(table, path, key);
  if (!node.ok()) return node.status();
  if (const auto* i = (*node)->as_integer()) return static_cast<double>(i->get());
  if (const auto* f = (*node)->as_floating_point()) return f->get();
  return Error(**node, Join(path, key), absl::StrCat("expected a number, found ", TypeName(**node)));
}

absl::StatusOr<const toml::table*> TomlReader::GetTable(const toml::table& table,
                                                        absl::string_view path,
                                                        std::string_view key) const {
  absl::StatusOr<const toml::node*> node = Require(table, path, key);
  if (!node.ok()) return node.status();
  if (const auto* t = (*node)->as_table()) return t;
  return Error(**node, Join(path, key), absl::StrCat("expected a table, found ", TypeName(**node)));
}

absl::StatusOr<const toml::array*> TomlReader::GetArray(const toml::table& table,
                                                        absl::string_view path,
                                                        std::string_view key) const {
  absl::StatusOr<const toml::node*> node = Require(table, path, key);
  if (!node.ok()) return node.status();
  if (const auto* a = (*node)->as_array()) return a;
  return Error(**node, Join(path, key), absl::StrCat("expected an array, found ", TypeName(**node)));
}

absl::StatusOr<const toml::table*> TomlReader::ElementTable(const toml::node& node,
                                                            absl::string_view path) const {
  if (const auto* t = node.as_table()) return t;
  return Error(node, path, absl::StrCat("expected a table, found ", TypeName(node)));
}

SourcePos TomlReader::StringContentStart(const toml::node& node) const {
  SourcePos pos = PosOf(node);
  // Find the byte offset of pos in the text (columns count UTF-8 code points).
  size_t offset = 0;
  for (int line = 1; line < pos.line && offset < text_.size(); ++offset) {
    if (text_[offset] == '\n') ++line;
  }
  for (int col = 1; col < pos.column && offset < text_.size(); ++offset) {
    if ((static_cast<unsigned char>(text_[offset]) & 0xC0) != 0x80) ++col;
  }
  const std::string_view at = std::string_view(text_).substr(offset);
  if (at.starts_with("\"\"\"") || at.starts_with("'''")) {
    if (at.substr(3).starts_with("\n") || at.substr(3).starts_with("\r\n")) {
      return SourcePos{pos.line + 1, 1};
    }
    return SourcePos{pos.line, pos.column + 3};
  }
  return SourcePos{pos.line, pos.column + 1};
}

absl::StatusOr<Expr> TomlReader::ToExpr(const toml::node& node, absl::string_view path) const {
  if (const auto* i = node.as_integer()) return Expr::IntLiteral(i->get(), PosOf(node));
  const auto* s = node.as_string();
  if (s == nullptr) {
    return Error(node, path,
                 absl::StrCat("expected an expression string (like \"M * N\") or an integer, "
                              "found ",
                              TypeName(node)));
  }
  absl::StatusOr<Expr> expr = ParseExpression(s->get(), StringContentStart(node));
  if (!expr.ok()) return Rebase(expr.status(), path);
  return expr;
}

}  // namespace kjudge
