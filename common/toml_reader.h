// TomlReader (internal to kjudge_common): typed, Status-returning access to a parsed TOML
// document, with errors of the form "<origin>:<line>:<column>: <key path>: <message>".
//
// Contract: no exceptions escape (toml++ parse errors are caught in Parse and become Status);
// `path` arguments are the dotted key path of the table being read ("tensor[1]", "" for the
// root) and appear in every message.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/expression.h"

namespace kjudge {

class TomlReader {
 public:
  // Parses the document; the error carries toml++'s line:column.
  static absl::StatusOr<TomlReader> Parse(std::string_view text, std::string_view origin);

  const toml::table& root() const { return *root_; }
  std::string_view text() const { return text_; }

  // "<key path>.<key>" or "<key>" at the root; "<path>[<i>]" for array elements.
  static std::string Join(absl::string_view path, std::string_view key);
  static std::string Index(absl::string_view path, size_t i);

  // "<origin>:<line>:<column>: <path>: <message>" (no position when `pos` has line 0).
  absl::Status Error(SourcePos pos, absl::string_view path, absl::string_view message) const;
  absl::Status Error(const toml::node& node, absl::string_view path, absl::string_view message) const;
  // Turns a "<line>:<column>: <message>" status (positions already file-relative) into the
  // form above; other messages get the origin and path only.
  absl::Status Rebase(const absl::Status& status, absl::string_view path) const;

  // Fails on keys of `table` outside `allowed`, naming the allowed ones.
  absl::Status CheckKeys(const toml::table& table, absl::string_view path,
                         std::initializer_list<std::string_view> allowed) const;

  absl::StatusOr<const toml::node*> Require(const toml::table& table, absl::string_view path,
                                            std::string_view key) const;
  absl::StatusOr<std::string> GetString(const toml::table& table, absl::string_view path,
                                        std::string_view key) const;
  absl::StatusOr<int64_t> GetInt(const toml::table& table, absl::string_view path,
                                 std::string_view key) const;
  absl::StatusOr<bool> GetBool(const toml::table& table, absl::string_view path,
                               std::string_view key) const;
  // An integer or a float.
  absl::StatusOr<double> GetNumber(const toml::table& table, absl::string_view path,
                                   std::string_view key) const;
  absl::StatusOr<const toml::table*> GetTable(const toml::table& table, absl::string_view path,
                                              std::string_view key) const;
  absl::StatusOr<const toml::array*> GetArray(const toml::table& table, absl::string_view path,
                                              std::string_view key) const;
  // An element of an array that must be a table.
  absl::StatusOr<const toml::table*> ElementTable(const toml::node& node,
                                                  absl::string_view path) const;

  // An expression: a string (parsed with positions pointing into the file) or an integer.
  absl::StatusOr<Expr> ToExpr(const toml::node& node, absl::string_view path) const;
  // Where a string value's text starts in the file (after the opening quotes, and after the
  // newline that TOML trims right after opening triple quotes).
  SourcePos StringContentStart(const toml::node& node) const;

  static absl::string_view TypeName(const toml::node& node);
  static SourcePos PosOf(const toml::node& node);

 private:
  TomlReader(std::string text, std::string origin, toml::table root)
      : text_(std::move(text)),
        origin_(std::move(origin)),
        root_(std::make_shared<toml::table>(std::move(root))) {}

  std::string text_;
  std::string origin_;
  std::shared_ptr<const toml::table> root_;
};

}  // namespace kjudge
