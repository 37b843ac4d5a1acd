// Untrusted text at the edges (issue 25, the small items): what a person or a tenant typed
// reaches JSON output only through a JSON library, never carries invisible bidi or line
// separator characters into stored fields, and server messages reach the terminal capped.
// Real binaries over loopback: kjudge-server (and its `keys` commands) and the `kjudge` CLI.
#include <regex>
#include <sstream>

#include "client/cli_context.h"
#include "proto/request_checks.h"
#include "proto/result_caps.h"
#include "tests/integration/api_client.h"
#include "tests/support/binary_path.h"

namespace kjudge::testing {
namespace {

std::string ServerBinary() { return ResolveBinary("kjudge-server", "KJUDGE_SERVER_BIN", KJUDGE_SERVER_BIN); }

bool AsciiPrintableLine(const std::string& line) {
  for (char c : line) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) return false;
  }
  return true;
}

// A key name with everything hand-built JSON gets wrong: quote, backslash, newline, U+2028,
// U+202E, a C0 control, an ANSI escape and DEL.
const std::string kHostileName = "a\"b\\c\nd\xe2\x80\xa8" "e\xe2\x80\xae" "f\x01g\x1b[31mh\x7f";

TEST(UntrustedText, KeysJsonOutputIsMadeByAJsonLibrary) {
  Cluster cluster("KeysJsonOutputIsMadeByAJsonLibrary");
  const std::string db = cluster.dir() + "/kjudge.sqlite";
  CommandResult created = testing::Run({ServerBinary(), "--db", db, "--json", "keys", "create", kHostileName, "--role",
                               "submitter"},
                              std::chrono::seconds(30));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_FALSE(created.out.empty());
  ASSERT_EQ(created.out.back(), '\n');
  const std::string created_line = created.out.substr(0, created.out.size() - 1);
  EXPECT_EQ(created_line.find('\n'), std::string::npos) << "one object, one line: " << created.out;
  EXPECT_TRUE(AsciiPrintableLine(created_line)) << "raw control or separator characters in: " << created.out;
  nlohmann::json parsed = nlohmann::json::parse(created_line, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(parsed.is_object()) << created.out;
  EXPECT_EQ(parsed.value("name", std::string()), kHostileName) << "the name must round-trip";
  EXPECT_EQ(parsed.value("role", std::string()), "submitter");
  const std::string id = parsed.value("id", std::string());
  EXPECT_FALSE(id.empty());
  EXPECT_FALSE(parsed.value("key", std::string()).empty());

  CommandResult listed = testing::Run({ServerBinary(), "--db", db, "--json", "keys", "list"}, std::chrono::seconds(30));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::istringstream lines(listed.out);
  int found = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(AsciiPrintableLine(line)) << line;
    nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(row.is_object()) << "every line parses as JSON: " << line;
    if (row.value("id", std::string()) != id) continue;
    ++found;
    EXPECT_EQ(row.value("name", std::string()), kHostileName);
    EXPECT_EQ(row.value("role", std::string()), "submitter");
    EXPECT_FALSE(row.contains("key")) << "list never shows a secret";
  }
  EXPECT_EQ(found, 1) << listed.out;
}

// Over gRPC the server applies proto/request_checks' rule: a tag value with U+202E or U+2028, or
// a filename with U+202E, is INVALID_ARGUMENT with the field and offset, and nothing is stored;
// the CLI refuses the same before sending.
TEST(UntrustedText, StoredTextRefusesBidiAndLineSeparators) {
  Cluster cluster("StoredTextRefusesBidiAndLineSeparators");
  cluster.StartServer();
  ApiClient api(cluster, "");
  v1::SubmitRequest request = ReluRequest();
  (*request.mutable_tags())["note"] = "safe\xe2\x80\xae" "txt.exe";
  v1::SubmitResponse response;
  grpc::Status status = api.Submit(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "tags[note]: bidi control (embedding/override) U+202E at byte offset 4; line/paragraph separators, bidi "
            "controls and invisible format characters are not allowed");
  request = ReluRequest();
  (*request.mutable_tags())["note"] = "line\xe2\x80\xa8two";
  status = api.Submit(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(
      status.error_message().starts_with("tags[note]: Unicode line/paragraph separator U+2028 at byte offset 4;"))
      << status.error_message();
  request = ReluRequest();
  request.set_filename("relu\xe2\x80\xae" "uc.cu");
  status = api.Submit(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(status.error_message().starts_with("filename: bidi control")) << status.error_message();
  v1::ListJobsResponse listed;
  ASSERT_TRUE(api.ListJobs(v1::ListJobsRequest(), &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 0) << "nothing refused is stored";
  // Allowed text next to it still goes through.
  request = ReluRequest();
  (*request.mutable_tags())["note"] = "caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97";
  ASSERT_TRUE(api.Submit(request, &response).ok());

  CliResult cli = cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "-p", "level1/19_ReLU",
                               "--compile-only", "--tag", std::string("note=a\xe2\x81\xa6") + "b"});
  EXPECT_EQ(cli.exit_code, 2) << cli.err;
  EXPECT_NE(cli.err.find("tags[note]: bidi control (isolate) U+2066 at byte offset 1;"), std::string::npos) << cli.err;
}

// `shown` is the head of `text`, at most about kMaxServerMessageBytes in all, then
// " ... [N bytes cut]" with N the exact number of bytes dropped; still valid UTF-8.
void ExpectCapped(const std::string& shown, const std::string& text) {
  static const std::regex kNote(R"( \.\.\. \[([0-9]+) bytes cut\]$)");
  std::smatch note;
  ASSERT_TRUE(std::regex_search(shown, note, kNote)) << shown;
  const auto kept = static_cast<size_t>(note.position(0));
  EXPECT_EQ(std::stoul(note[1].str()), text.size() - kept);
  EXPECT_EQ(shown.substr(0, kept), text.substr(0, kept));
  EXPECT_LE(shown.size(), client::kMaxServerMessageBytes + kCapNoteBytes);
  EXPECT_GE(kept + kCapNoteBytes + 4, client::kMaxServerMessageBytes) << "keeps about all it may";
  EXPECT_EQ(FirstInvalidUtf8(shown), std::nullopt);
}

// The CLI prints a server's status message capped and without control characters.
TEST(UntrustedText, CliCapsServerMessages) {
  EXPECT_EQ(client::ServerText("short message"), "short message");
  EXPECT_EQ(client::ServerText("a\x1b[31mred\x07\x7f\tok\nnext"), "a?[31mred??\tok\nnext");
  ExpectCapped(client::ServerText(std::string(5000, 'x')), std::string(5000, 'x'));
  // Cut back to a character boundary wherever the cut falls.
  for (size_t at = 1990; at < 2050; ++at) {
    std::string accents(at, 'a');
    for (int i = 0; i < 40; ++i) accents += "\xc3\xa9";
    ExpectCapped(client::ServerText(accents), accents);
  }

  // A real server message of 5,000+ bytes (an unknown problem's name is echoed) reaches the
  // terminal capped. Should the server cap it first, the CLI must print it whole.
  Cluster cluster("CliCapsServerMessages");
  cluster.StartServer();
  ApiClient api(cluster, "");
  const std::string name(5000, 'q');
  v1::GetProblemRequest request;
  request.set_name(name);
  v1::Problem problem;
  grpc::Status status = api.stub().GetProblem(api.Context().get(), request, &problem);
  ASSERT_FALSE(status.ok());
  const std::string& full = status.error_message();
  CliResult cli = cluster.Cli({"problem", name});
  EXPECT_EQ(cli.exit_code, 2) << cli.err;
  if (full.size() > client::kMaxServerMessageBytes) {
    ASSERT_TRUE(cli.err.starts_with("kjudge: ") && cli.err.ends_with("\n")) << cli.err;
    ExpectCapped(cli.err.substr(8, cli.err.size() - 9), full);
  } else {
    EXPECT_EQ(cli.err, "kjudge: " + full + "\n");
  }

  // An API key gRPC cannot send (a newline left from a file) is refused before any call, without
  // quoting it; gRPC itself logged the whole key and aborted.
  const std::string secret = "kj_0badc0de_0123456789abcdef0123456789abcdef01234567";
  CommandResult bad = testing::Run({ResolveBinary("kjudge", "KJUDGE_CLI_BIN", KJUDGE_CLI_BIN), "--server",
                                    cluster.address(), "--api-key", secret + "\n", "problems"},
                                   std::chrono::seconds(30));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("the API key has a space, control or non-ASCII character at offset 52"), std::string::npos)
      << bad.err;
  EXPECT_EQ((bad.out + bad.err).find("0123456789abcdef"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace kjudge::testing
