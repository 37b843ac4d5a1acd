// Migrations: brings a database's schema up to date at server start-up.
//
// Contract: migrations are the numbered files schema/NNNN_name.sql, compiled into the server
// (BuiltinMigrations) so a deployed server needs no schema directory. The applied version is
// SQLite's PRAGMA user_version. Each migration and its version bump are one transaction, so a
// crash mid-migration leaves the previous version intact. A database newer than this server
// is refused with a clear error rather than touched.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "server/database.h"

namespace kjudge::server {

struct Migration {
  int version;
  std::string_view name;
  SqlText sql;  // a literal: schema/embed.cmake writes each file as a raw string literal
};

const std::vector<Migration>& BuiltinMigrations();  // generated from schema/ at build time

absl::Status ApplyMigrations(Database& db, const std::vector<Migration>& migrations);

}  // namespace kjudge::server
