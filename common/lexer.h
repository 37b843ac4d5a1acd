// Lexer (internal to kjudge_common): splits expression and launch-plan text into tokens.
//
// Tokens are identifiers, integer literals (decimal or 0x hex, must fit in int64), float
// literals ('.' or exponent, optional 'f' suffix) and punctuation. Multi-character punctuation
// is matched longest first: "<<<", ">>>", "<<", ">>", "::". `//` and `/* */` comments and
// whitespace are skipped. The token list always ends with one kEnd token.
//
// Errors are InvalidArgumentError "<line>:<column>: ..." (see MakePosError).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/expression.h"

namespace kjudge {

enum class TokenKind { kIdent, kInt, kFloat, kPunct, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // spelling as written
  SourcePos pos;     // first character
  SourcePos end;     // just past the last character
  int64_t int_value = 0;
  double float_value = 0.0;

  bool Is(std::string_view punct) const { return kind == TokenKind::kPunct && text == punct; }
  bool IsIdent(std::string_view name) const { return kind == TokenKind::kIdent && text == name; }
};

// "<line>:<column>: <message>" as an InvalidArgumentError.
absl::Status MakePosError(SourcePos pos, absl::string_view message);

// Human description of a token for "found ..." messages: "'>>'", "identifier 'foo'",
// "number 12", "end of input".
std::string DescribeToken(const Token& token);

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text, SourcePos start);

// A read position in a token list. The list must end with kEnd; Next() never moves past it.
class TokenCursor {
 public:
  explicit TokenCursor(const std::vector<Token>& tokens) : tokens_(tokens) {}

  const Token& Peek(size_t ahead = 0) const;
  const Token& Next();
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }
  // Consumes the punctuation if it is next.
  bool Accept(std::string_view punct);
  // "expected <what>, found <next token>", pointing at the next token, or just past the
  // previous token when the input has ended.
  absl::Status Expected(absl::string_view what) const;
  // Consumes `punct` or fails with Expected("'<punct>' <context>").
  absl::Status Expect(std::string_view punct, absl::string_view context = "");
  // Where an error about the next token should point.
  SourcePos ErrorPos() const;

 private:
  const std::vector<Token>& tokens_;
  size_t index_ = 0;
};

}  // namespace kjudge
