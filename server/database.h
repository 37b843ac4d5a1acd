// Database: one SQLite connection in WAL mode, with RAII statements and transactions.
//
// Contract: Open() creates the file if needed and sets journal_mode=WAL, synchronous=FULL (a
// committed transaction survives kill -9 and power loss), foreign_keys=ON and a busy timeout,
// so SQLITE_BUSY from another process (the dashboard, a second reader) is waited out rather
// than surfaced. The class is not thread-safe; its owner serialises access.
//
// SQL text comes only from the code: Prepare and Execute take SqlText (a string literal,
// checked at compile time by a consteval constructor) or Sql (a statement joined from SqlText
// pieces, parameter numbers and integers), so a statement built from a runtime std::string
// does not compile. Request data reaches SQLite only as bound parameters.
//
// Errors: a Status never carries SQL text or SQLite's message (which can quote the SQL); it
// says what kind of failure it was (busy, full, read-only, interrupted, ...). The detail (the
// SQL and SQLite's message) is logged here, server-side, once.
//
// Bounded reads: a QueryLimits guard puts the statements run on a connection while it lives
// under a deadline (sqlite3_progress_handler checks a steady clock every few thousand VM
// steps) and a row cap per statement. An interrupted or capped statement returns
// DEADLINE_EXCEEDED / RESOURCE_EXHAUSTED with a sentence for the client; its read transaction
// ends when the Statement is destroyed, so a stopped read never pins the WAL.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kjudge::server {

class Statement;
class QueryLimits;

namespace sql_internal {
// Not constexpr on purpose: calling it while evaluating a SqlText constructor makes that
// constructor call ill-formed, i.e. a compile error naming this function.
void SqlTextMustBeAStringLiteral();
}  // namespace sql_internal

// A piece of SQL text the code chose: a string literal or a constexpr char array. The
// constructor is consteval and reads every character, so only a constant array is accepted;
// a std::string, a string_view or a const char* variable does not convert (see
// tests/unit/server/sql_text_test.cc).
class SqlText {
 public:
  template <size_t N>
  consteval SqlText(const char (&text)[N])  // NOLINT(google-explicit-constructor): literals convert
      : text_(text, N - 1) {
    if (text[N - 1] != '\0') sql_internal::SqlTextMustBeAStringLiteral();
    for (size_t i = 0; i + 1 < N; ++i) {
      if (text[i] == '\0') sql_internal::SqlTextMustBeAStringLiteral();
    }
  }
  constexpr std::string_view view() const { return text_; }

 private:
  std::string_view text_;
};

// A statement assembled at run time from pieces the code chose: SqlText fragments, parameter
// placeholders (?N) and integers. Nothing else can be appended, so its text is as safe as a
// literal; request data goes in bound parameters.
class Sql {
 public:
  Sql(SqlText text) : text_(text.view()) {}  // NOLINT(google-explicit-constructor)
  // Sql::Join({"SELECT ", kColumns, " FROM jobs"}): the pieces in order.
  static Sql Join(std::initializer_list<SqlText> pieces);
  Sql& Append(SqlText text);
  // Appends "?<index>", a numbered parameter.
  Sql& AppendParameter(int index);
  // Appends a decimal integer (a number the code computed, e.g. a version).
  Sql& AppendInteger(int64_t value);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

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
  absl::Status Execute(SqlText sql);
  absl::Status Execute(const Sql& sql);
  absl::StatusOr<Statement> Prepare(SqlText sql);
  absl::StatusOr<Statement> Prepare(const Sql& sql);
  int64_t LastInsertRowId() const;
  int Changes() const;

 private:
  friend class Statement;
  friend class QueryLimits;
  explicit Database(sqlite3* db) : db_(db) {}
  absl::Status ExecuteText(std::string_view sql);
  absl::StatusOr<Statement> PrepareText(std::string_view sql);
  // The Status for SQLite result code `rc` from `sql` (logged, never quoted in the Status).
  absl::Status Error(int rc, std::string_view sql) const;
  static int OnProgress(void* self);
  sqlite3* db_;
  QueryLimits* limits_ = nullptr;  // the innermost live guard, if any
};

// How long one server read (an RPC's query) may run: far above any real query (a stats run
// of 100,000 jobs reads in well under a second), low enough that no request holds the
// connection's mutex, or a WAL snapshot, for long.
inline constexpr std::chrono::milliseconds kServerReadBudget{5000};

// Deadline and row cap for every statement run on `db` while the guard lives (RAII; nest
// freely: an inner guard never extends an outer deadline, and the outer one is back when the
// inner ends). Meant for reads: a write interrupted half-way rolls back, so writers (and
// migrations) run without one. Not thread-safe, like Database: the connection's owner holds it.
class QueryLimits {
 public:
  // Rows one statement may return under a guard unless told otherwise: far above any page
  // or stats run (a run of 100,000 jobs), far below what would exhaust memory.
  static constexpr int64_t kDefaultMaxRows = 1'000'000;
  QueryLimits(Database& db, std::chrono::milliseconds budget, int64_t max_rows = kDefaultMaxRows);
  ~QueryLimits();
  QueryLimits(const QueryLimits&) = delete;
  QueryLimits& operator=(const QueryLimits&) = delete;

 private:
  friend class Database;
  friend class Statement;
  Database& db_;
  QueryLimits* outer_;
  std::chrono::milliseconds budget_;
  std::chrono::steady_clock::time_point deadline_;
  int64_t max_rows_;
};

// A prepared statement. Bind indexes are 1-based as in SQLite.
class Statement {
 public:
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
  friend class Database;
  Statement(const Database* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  const Database* db_;
  sqlite3_stmt* stmt_;
  int64_t rows_ = 0;  // rows stepped so far (checked against the live QueryLimits' cap)
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
