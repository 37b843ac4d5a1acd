// Database: one SQLite connection in WAL mode, with RAII statements and transactions.
//
// Contract: Open() creates the file if needed and sets journal_mode=WAL, synchronous=FULL (a
// committed transaction survives kill -9 and power loss), foreign_keys=ON and a busy timeout,
// so SQLITE_BUSY from another process (the dashboard, a second reader) is waited out rather
// than surfaced. The class is not thread-safe; its owner serialises access. Every error is
// returned as a Status naming the SQL that failed.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kjudge::server {

class Statement;

class Database {
 public:
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path);
  // A read-only connection for readers in other processes (the dashboard): SQLITE_OPEN_READONLY
  // plus query_only, so it can never write or take the write lock; in WAL mode it reads a
  // committed snapshot while the server writes. The file must exist (made by the server).
  static absl::StatusOr<std::unique_ptr<Database>> OpenReadOnly(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that return no rows.
  absl::Status Execute(std::string_view sql);
  absl::StatusOr<Statement> Prepare(std::string_view sql);
  int64_t LastInsertRowId() const;
  int Changes() const;
  sqlite3* handle() const { return db_; }

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// A prepared statement. Bind indexes are 1-based as in SQLite.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view value);
  Statement& BindDouble(int index, double value);
  // Bytes as a BLOB (Bind(string_view) binds TEXT).
  Statement& BindBlob(int index, std::string_view bytes);
  Statement& BindNull(int index);
  // true while a row is available; an error ends iteration and is kept in status().
  absl::StatusOr<bool> Step();
  // Steps to completion (for statements that return no rows).
  absl::Status Run();

  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  // The column's bytes, BLOB or TEXT ("" for NULL).
  std::string ColumnBlob(int column) const;
  bool ColumnIsNull(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back on destruction unless committed.
class Transaction {
 public:
  static absl::StatusOr<Transaction> Begin(Database& db);
  Transaction(Transaction&& other) noexcept;
  Transaction(const Transaction&) = delete;
  ~Transaction();
  absl::Status Commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

}  // namespace kjudge::server
