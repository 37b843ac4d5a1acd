// SqlText and Sql: SQL text can only come from the code. The static_asserts are the test that
// matters (the file does not compile if a runtime string converts); the runtime tests check
// that joined statements read as written and run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>
#include <unistd.h>

#include "server/database.h"
#include "server/rpc_errors.h"

namespace kjudge::server {
namespace {

// Runtime strings do not convert, implicitly or explicitly.
static_assert(!std::is_constructible_v<SqlText, std::string>);
static_assert(!std::is_constructible_v<SqlText, const std::string&>);
static_assert(!std::is_constructible_v<SqlText, std::string_view>);
static_assert(!std::is_constructible_v<SqlText, const char*>);
static_assert(!std::is_constructible_v<SqlText, char*>);
static_assert(!std::is_convertible_v<std::string, SqlText>);
static_assert(!std::is_convertible_v<const char*, SqlText>);
static_assert(!std::is_constructible_v<Sql, std::string>);
static_assert(!std::is_constructible_v<Sql, std::string_view>);
static_assert(!std::is_constructible_v<Sql, const char*>);
static_assert(!std::is_convertible_v<std::string, Sql>);

// Nor can a Sql take a runtime string as a piece: Append takes SqlText only.
template <typename T>
concept Appendable = requires(Sql sql, T piece) { sql.Append(piece); };
static_assert(Appendable<SqlText>);
static_assert(!Appendable<std::string>);
static_assert(!Appendable<std::string_view>);
static_assert(!Appendable<const char*>);

// Database::Prepare and Execute take only SqlText or Sql.
template <typename T>
concept Preparable = requires(Database& db, T text) { db.Prepare(text); };
template <typename T>
concept Executable = requires(Database& db, T text) { db.Execute(text); };
static_assert(Preparable<SqlText> && Preparable<const Sql&>);
static_assert(!Preparable<std::string> && !Preparable<std::string_view> && !Preparable<const char*>);
static_assert(!Executable<std::string> && !Executable<std::string_view> && !Executable<const char*>);

// A literal and a constexpr array of static storage are accepted (checked at compile time).
constexpr char kColumns[] = "id, state";
constexpr SqlText kLiteral = "SELECT 1";
static_assert(kLiteral.view() == "SELECT 1");
static_assert(SqlText(kColumns).view() == "id, state");

TEST(SqlText, JoinsOnlyCodeChosenPieces) {
  Sql sql = Sql::Join({"SELECT ", kColumns, " FROM jobs WHERE id = "});
  sql.AppendParameter(3).Append(" AND n = ").AppendInteger(-42);
  EXPECT_EQ(sql.text(), "SELECT id, state FROM jobs WHERE id = ?3 AND n = -42");
}

TEST(SqlText, JoinedStatementsRun) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kjudge-sql-text-" + std::to_string(getpid()) + ".sqlite")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Execute("CREATE TABLE t(a INTEGER, b TEXT)").ok());
  Sql insert("INSERT INTO t(a, b) VALUES (");
  insert.AppendInteger(7).Append(", ").AppendParameter(1).Append(")");
  absl::StatusOr<Statement> stmt = (*db)->Prepare(insert);
  ASSERT_TRUE(stmt.ok()) << stmt.status();
  stmt->Bind(1, std::string_view("x'); DROP TABLE t; --"));
  ASSERT_TRUE(stmt->Run().ok());
  absl::StatusOr<Statement> read = (*db)->Prepare("SELECT a, b FROM t");
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(*read->Step());
  EXPECT_EQ(read->ColumnInt(0), 7);
  EXPECT_EQ(read->ColumnText(1), "x'); DROP TABLE t; --");
  db->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

TEST(SqlText, ErrorsCarryNoSqlText) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok()) << db.status();
  absl::StatusOr<Statement> stmt = (*db)->Prepare("SELECT secret_column_name FROM no_such_table_xyz");
  ASSERT_FALSE(stmt.ok());
  EXPECT_EQ(stmt.status().message().find("no_such_table_xyz"), std::string_view::npos) << stmt.status();
  EXPECT_EQ(stmt.status().message().find("SELECT"), std::string_view::npos) << stmt.status();
  absl::Status exec = (*db)->Execute("INSERT INTO no_such_table_xyz VALUES (1)");
  ASSERT_FALSE(exec.ok());
  EXPECT_EQ(exec.message().find("no_such_table_xyz"), std::string_view::npos) << exec;
}

// What a client sees of a failure: INTERNAL's text (which may name internals) is replaced by
// a sentence with an incident number; the sentences kjudge words for clients pass unchanged.
TEST(RpcErrors, InternalDetailNeverReachesTheClient) {
  const grpc::Status internal = ToClient(absl::InternalError("sqlite: no such table in: SELECT sha256 FROM api_keys"));
  EXPECT_EQ(internal.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(internal.error_message().find("SELECT"), std::string::npos) << internal.error_message();
  EXPECT_EQ(internal.error_message().find("sqlite"), std::string::npos) << internal.error_message();
  EXPECT_NE(internal.error_message().find("incident "), std::string::npos) << internal.error_message();
  EXPECT_EQ(ToClient(absl::DataLossError("job_stats.metrics is malformed")).error_message().find("job_stats"),
            std::string::npos);
  const grpc::Status invalid = ToClient(absl::InvalidArgumentError("tags: 5000 tags; the limit is 16"));
  EXPECT_EQ(invalid.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(invalid.error_message(), "tags: 5000 tags; the limit is 16");
  const grpc::Status slow = ToClient(absl::DeadlineExceededError("the query took longer than 5 s; narrow the filter"));
  EXPECT_EQ(slow.error_message(), "the query took longer than 5 s; narrow the filter");
}

}  // namespace
}  // namespace kjudge::server
