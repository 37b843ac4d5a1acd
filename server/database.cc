#include "server/database.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace kjudge::server {

void sql_internal::SqlTextMustBeAStringLiteral() {}

Sql Sql::Join(std::initializer_list<SqlText> pieces) {
  Sql sql(SqlText(""));
  for (const SqlText& piece : pieces) sql.Append(piece);
  return sql;
}

Sql& Sql::Append(SqlText text) {
  text_.append(text.view());
  return *this;
}

Sql& Sql::AppendParameter(int index) {
  absl::StrAppend(&text_, "?", index);
  return *this;
}

Sql& Sql::AppendInteger(int64_t value) {
  absl::StrAppend(&text_, value);
  return *this;
}

namespace {

// Longest prefix of a statement the server log shows with its error.
constexpr size_t kLoggedSqlMax = 200;
// VM steps between two looks at the clock under a QueryLimits (a look costs tens of ns; a
// thousand steps take microseconds, so a deadline is met to well under a millisecond).
constexpr int kProgressSteps = 1000;

std::string Seconds(std::chrono::milliseconds budget) {
  return budget.count() % 1000 == 0 ? absl::StrCat(budget.count() / 1000, " s")
                                    : absl::StrCat(static_cast<double>(budget.count()) / 1000.0, " s");
}

}  // namespace

// A Status for SQLite result code `rc`, worded from the code alone (sqlite3_errstr: a fixed
// sentence per code), never from sqlite3_errmsg, which can quote the SQL. The statement and
// SQLite's own message go to the server log.
absl::Status Database::Error(int rc, std::string_view sql) const {
  const int primary = rc & 0xff;
  if (primary == SQLITE_INTERRUPT && limits_ != nullptr) {
    spdlog::warn("query stopped after its {} budget: {}", Seconds(limits_->budget_), sql.substr(0, kLoggedSqlMax));
    return absl::DeadlineExceededError(absl::StrCat("the query took longer than ", Seconds(limits_->budget_),
                                                    "; narrow the filter"));
  }
  spdlog::warn("sqlite error {} ({}) in: {}", rc, sqlite3_errmsg(db_), sql.substr(0, kLoggedSqlMax));
  const std::string what = absl::StrCat("the database failed: ", sqlite3_errstr(rc));
  switch (primary) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return absl::UnavailableError(absl::StrCat(what, " (another process holds it; try again)"));
    case SQLITE_FULL: return absl::ResourceExhaustedError(absl::StrCat(what, " (free disk space)"));
    case SQLITE_READONLY: return absl::FailedPreconditionError(what);
    case SQLITE_INTERRUPT: return absl::DeadlineExceededError("the query was interrupted");
    default: return absl::InternalError(what);
  }
}

int Database::OnProgress(void* self) {
  const Database* db = static_cast<const Database*>(self);
  return db->limits_ != nullptr && std::chrono::steady_clock::now() >= db->limits_->deadline_ ? 1 : 0;
}

QueryLimits::QueryLimits(Database& db, std::chrono::milliseconds budget, int64_t max_rows)
    : db_(db), outer_(db.limits_), budget_(budget), deadline_(std::chrono::steady_clock::now() + budget),
      max_rows_(max_rows) {
  if (outer_ != nullptr) {
    // Never past the outer deadline or cap; an error then names the budget that ran out.
    if (outer_->deadline_ < deadline_) {
      deadline_ = outer_->deadline_;
      budget_ = outer_->budget_;
    }
    max_rows_ = std::min(max_rows_, outer_->max_rows_);
  } else {
    sqlite3_progress_handler(db.db_, kProgressSteps, &Database::OnProgress, &db);
  }
  db.limits_ = this;
}

QueryLimits::~QueryLimits() {
  db_.limits_ = outer_;
  if (outer_ == nullptr) sqlite3_progress_handler(db_.db_, 0, nullptr, nullptr);
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &raw, flags, nullptr) != SQLITE_OK) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("cannot open database '", path, "': ", raw ? sqlite3_errmsg(raw) : "out of memory",
                     " (check that the directory exists and is writable)"));
    sqlite3_close(raw);
    return status;
  }
  std::unique_ptr<Database> db(new Database(raw));
  // SQLite opens a write-protected file read-only without a word; the server would then fail
  // at its first write with "attempt to write a readonly database". Say so here, by name.
  if (sqlite3_db_readonly(raw, "main") == 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the database file ", path, " is read-only: make it writable by the user kjudge-server runs as, "
        "or point --db at another file"));
  }
  // Wait up to 10 s for another connection's lock instead of failing with SQLITE_BUSY.
  sqlite3_busy_timeout(raw, 10000);
  // Taking the write lock once creates the -wal and -shm files next to the database: a
  // directory the server cannot write is found here, not at the first submission.
  absl::Status status = db->Execute(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; BEGIN IMMEDIATE; ROLLBACK;");
  if (!status.ok()) {
    if (absl::IsFailedPrecondition(status) || sqlite3_db_readonly(raw, "main") == 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the database file ", path, " is read-only (", status.message(),
          "): kjudge-server needs to write it and to create files next to it (", path,
          "-wal, -shm); make both writable, or point --db at another file"));
    }
    return absl::Status(status.code(), absl::StrCat("cannot use the database file ", path, ": ", status.message(),
                                                    " (check that it and its directory are writable)"));
  }
  return db;
}

absl::StatusOr<std::unique_ptr<Database>> Database::OpenReadOnly(const std::string& path) {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("cannot open database '", path, "' read-only: ", raw ? sqlite3_errmsg(raw) : "out of memory",
                     " (start kjudge-server on it first: it creates the file and its schema)"));
    sqlite3_close(raw);
    return status;
  }
  std::unique_ptr<Database> db(new Database(raw));
  // A reader waits out the moment a checkpoint holds the WAL index instead of failing.
  sqlite3_busy_timeout(raw, 5000);
  // Reads map the file (no read() per page) and keep 64 MiB of pages: a dashboard page that
  // walks 20,000 jobs then costs memory reads, not system calls.
  if (absl::Status status = db->Execute("PRAGMA query_only=ON; PRAGMA mmap_size=1073741824; PRAGMA cache_size=-65536;");
      !status.ok()) {
    return status;
  }
  return db;
}

Database::~Database() { sqlite3_close_v2(db_); }

absl::Status Database::Execute(SqlText sql) { return ExecuteText(sql.view()); }
absl::Status Database::Execute(const Sql& sql) { return ExecuteText(sql.text()); }
absl::StatusOr<Statement> Database::Prepare(SqlText sql) { return PrepareText(sql.view()); }
absl::StatusOr<Statement> Database::Prepare(const Sql& sql) { return PrepareText(sql.text()); }

absl::Status Database::ExecuteText(std::string_view sql) {
  const std::string text(sql);
  if (const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr); rc != SQLITE_OK) {
    return Error(rc, text);
  }
  return absl::OkStatus();
}

absl::StatusOr<Statement> Database::PrepareText(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
      rc != SQLITE_OK) {
    return Error(rc, sql);
  }
  return Statement(this, stmt);
}

int64_t Database::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
int Database::Changes() const { return sqlite3_changes(db_); }

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), rows_(other.rows_) {}

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view bytes) {
  // A zero-length blob still needs a non-null pointer, or SQLite stores NULL.
  static const char kEmpty = 0;
  sqlite3_bind_blob(stmt_, index, bytes.empty() ? &kEmpty : bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindDouble(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    const QueryLimits* limits = db_->limits_;
    if (limits != nullptr && ++rows_ > limits->max_rows_) {
      spdlog::warn("query stopped at its cap of {} rows: {}", limits->max_rows_,
                   std::string_view(sqlite3_sql(stmt_)).substr(0, kLoggedSqlMax));
      // Reset now: the statement's read transaction ends here, not when its owner lets go.
      sqlite3_reset(stmt_);
      return absl::ResourceExhaustedError(
          absl::StrCat("the query matched more than ", limits->max_rows_, " rows; narrow the filter"));
    }
    return true;
  }
  if (rc == SQLITE_DONE) return false;
  absl::Status status = db_->Error(rc, sqlite3_sql(stmt_));
  sqlite3_reset(stmt_);  // end the statement's read transaction now (an interrupted read must not pin the WAL)
  return status;
}

absl::Status Statement::Run() {
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string Statement::ColumnBlob(int column) const {
  const void* bytes = sqlite3_column_blob(stmt_, column);
  if (bytes == nullptr) return {};
  return std::string(static_cast<const char*>(bytes), static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

absl::StatusOr<Transaction> Transaction::Begin(Database& db) {
  // IMMEDIATE takes the write lock now, so a busy database is waited out here (busy timeout)
  // rather than failing half-way through the transaction.
  absl::Status status = db.Execute("BEGIN IMMEDIATE");
  if (!status.ok()) return status;
  return Transaction(&db);
}

Transaction::Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Execute("ROLLBACK");
}

absl::Status Transaction::Commit() {
  absl::Status status = db_->Execute("COMMIT");
  if (status.ok()) db_ = nullptr;
  return status;
}

}  // namespace kjudge::server
