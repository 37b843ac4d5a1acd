#include "common/lexer.h"

#include <array>
#include <charconv>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/absl_compat.h"
#include "common/status_macros.h"

namespace kjudge {
namespace {

constexpr std::array<std::string_view, 5> kLongPunct = {"<<<", ">>>", "<<", ">>", "::"};
constexpr std::string_view kShortPunct = "+-*/%(),<>[]:;";

bool IsIdentStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// Walks the text keeping line and column (UTF-8 continuation bytes take no column).
class Scanner {
 public:
  Scanner(std::string_view text, SourcePos start) : text_(text), pos_(start) {}

  bool Done() const { return offset_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return offset_ + ahead < text_.size() ? text_[offset_ + ahead] : '\0';
  }
  bool StartsWith(std::string_view s) const { return text_.substr(offset_).starts_with(s); }
  SourcePos pos() const { return pos_; }
  size_t offset() const { return offset_; }
  std::string_view Since(size_t start) const { return text_.substr(start, offset_ - start); }

  void Advance(size_t n = 1) {
    for (size_t i = 0; i < n && !Done(); ++i) {
      const char c = text_[offset_++];
      if (c == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++pos_.column;
      }
    }
  }

 private:
  std::string_view text_;
  SourcePos pos_;
  size_t offset_ = 0;
};

// Skips whitespace and comments; fails on an unterminated block comment.
absl::Status SkipTrivia(Scanner& s) {
  while (!s.Done()) {
    if (absl::ascii_isspace(s.Peek())) {
      s.Advance();
    } else if (s.StartsWith("//")) {
      while (!s.Done() && s.Peek() != '\n') s.Advance();
    } else if (s.StartsWith("/*")) {
      const SourcePos start = s.pos();
      s.Advance(2);
      while (!s.Done() && !s.StartsWith("*/")) s.Advance();
      if (s.Done()) return MakePosError(start, "unterminated '/*' comment; expected '*/'");
      s.Advance(2);
    } else {
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status LexNumber(Scanner& s, Token& token) {
  const size_t start = s.offset();
  const bool hex = s.Peek() == '0' && (s.Peek(1) == 'x' || s.Peek(1) == 'X');
  bool is_float = false;
  if (hex) {
    s.Advance(2);
    while (absl::ascii_isxdigit(s.Peek())) s.Advance();
  } else {
    while (absl::ascii_isdigit(s.Peek())) s.Advance();
    if (s.Peek() == '.') {
      is_float = true;
      s.Advance();
      while (absl::ascii_isdigit(s.Peek())) s.Advance();
    }
    if ((s.Peek() == 'e' || s.Peek() == 'E') &&
        (absl::ascii_isdigit(s.Peek(1)) ||
         ((s.Peek(1) == '+' || s.Peek(1) == '-') && absl::ascii_isdigit(s.Peek(2))))) {
      is_float = true;
      s.Advance(2);
      while (absl::ascii_isdigit(s.Peek())) s.Advance();
    }
  }
  const std::string_view digits = s.Since(start);
  if (is_float && (s.Peek() == 'f' || s.Peek() == 'F')) s.Advance();
  token.text = std::string(s.Since(start));
  if (IsIdentChar(s.Peek())) {
    return MakePosError(s.pos(), absl::StrCat("unexpected '", std::string(1, s.Peek()),
                                              "' after the number ", token.text,
                                              "; expected an operator or separator"));
  }
  if (hex && digits.size() == 2) {
    return MakePosError(token.pos, "expected hex digits after '0x'");
  }
  if (is_float) {
    token.kind = TokenKind::kFloat;
    // from_chars, unlike strtod, ignores the C locale's decimal separator.
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), token.float_value);
    if (ec != std::errc() || end != digits.data() + digits.size() ||
        !std::isfinite(token.float_value)) {
      return MakePosError(token.pos, absl::StrCat("float literal ", token.text, " is out of range"));
    }
    return absl::OkStatus();
  }
  token.kind = TokenKind::kInt;
  const std::string_view body = hex ? digits.substr(2) : digits;
  const auto [end, ec] =
      std::from_chars(body.data(), body.data() + body.size(), token.int_value, hex ? 16 : 10);
  if (ec != std::errc() || end != body.data() + body.size()) {
    return MakePosError(token.pos, absl::StrCat("integer literal ", token.text,
                                                " does not fit in a signed 64-bit integer"));
  }
  return absl::OkStatus();
}

absl::Status LexPunct(Scanner& s, Token& token) {
  token.kind = TokenKind::kPunct;
  for (std::string_view p : kLongPunct) {
    if (s.StartsWith(p)) {
      token.text = std::string(p);
      s.Advance(p.size());
      return absl::OkStatus();
    }
  }
  if (kShortPunct.find(s.Peek()) != std::string_view::npos) {
    token.text = std::string(1, s.Peek());
    s.Advance();
    return absl::OkStatus();
  }
  const unsigned char c = static_cast<unsigned char>(s.Peek());
  const std::string shown =
      absl::ascii_isprint(c) ? absl::StrCat("'", std::string(1, s.Peek()), "'")
                             : absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
  return MakePosError(s.pos(), absl::StrCat("unexpected character ", shown,
                                            "; expected a name, a number or an operator"));
}

}  // namespace

absl::Status MakePosError(SourcePos pos, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(pos.line, ":", pos.column, ": ", message));
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kIdent:
      return absl::StrCat("identifier '", token.text, "'");
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return absl::StrCat("number ", token.text);
    case TokenKind::kPunct:
      return absl::StrCat("'", token.text, "'");
    case TokenKind::kEnd:
      break;
  }
  return "end of input";
}

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text, SourcePos start) {
  Scanner s(text, start);
  std::vector<Token> tokens;
  SourcePos last_end = start;
  while (true) {
    KJ_RETURN_IF_ERROR(SkipTrivia(s));
    Token token;
    token.pos = s.pos();
    if (s.Done()) {
      token.end = last_end;  // where "found end of input" errors point
      tokens.push_back(std::move(token));
      return tokens;
    }
    const char c = s.Peek();
    absl::Status st;
    if (IsIdentStart(c)) {
      const size_t begin = s.offset();
      while (IsIdentChar(s.Peek())) s.Advance();
      token.kind = TokenKind::kIdent;
      token.text = std::string(s.Since(begin));
    } else if (absl::ascii_isdigit(c) || (c == '.' && absl::ascii_isdigit(s.Peek(1)))) {
      st = LexNumber(s, token);
    } else {
      st = LexPunct(s, token);
    }
    if (!st.ok()) return st;
    token.end = s.pos();
    last_end = token.end;
    tokens.push_back(std::move(token));
  }
}

const Token& TokenCursor::Peek(size_t ahead) const {
  const size_t i = index_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& TokenCursor::Next() {
  const Token& token = Peek();
  if (index_ + 1 < tokens_.size()) ++index_;
  return token;
}

bool TokenCursor::Accept(std::string_view punct) {
  if (!Peek().Is(punct)) return false;
  Next();
  return true;
}

SourcePos TokenCursor::ErrorPos() const {
  const Token& token = Peek();
  return token.kind == TokenKind::kEnd ? token.end : token.pos;
}

absl::Status TokenCursor::Expected(absl::string_view what) const {
  return MakePosError(ErrorPos(), absl::StrCat("expected ", what, ", found ", DescribeToken(Peek())));
}

absl::Status TokenCursor::Expect(std::string_view punct, absl::string_view context) {
  if (Accept(punct)) return absl::OkStatus();
  return Expected(absl::StrCat("'", ToAbsl(punct), "'", context.empty() ? "" : " ", context));
}

}  // namespace kjudge
