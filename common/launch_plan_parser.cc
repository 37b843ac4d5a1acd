// ParseLaunchPlan: a recursive-descent parser over the shared lexer (see launch_plan.h).
#include <array>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/expression_parser.h"
#include "common/launch_plan.h"
#include "common/lexer.h"
#include "common/status_macros.h"

namespace kjudge {
namespace {

// Single identifiers that are C++ types in template arguments; anything else that is one
// identifier is an integer expression over sizes. Multi-word ("unsigned int") and qualified
// ("cute::half_t") names are types too.
constexpr std::array<std::string_view, 37> kTypeNames = {
    "float",         "double",         "half",          "__half",        "__half2",
    "__nv_bfloat16", "__nv_bfloat162", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "bool",
    "char",          "short",          "int",           "long",          "unsigned",
    "signed",        "int8_t",         "uint8_t",       "int16_t",       "uint16_t",
    "int32_t",       "uint32_t",       "int64_t",       "uint64_t",      "size_t",
    "float2",        "float4",         "double2",       "int2",          "int4",
    "uint2",         "uint4",          "char4",         "uchar4",        "half2",
    "nv_bfloat16",   "nv_half",
};

bool IsTypeName(std::string_view name) {
  for (std::string_view t : kTypeNames) {
    if (t == name) return true;
  }
  return false;
}

class PlanParser {
 public:
  PlanParser(TokenCursor& cursor, LaunchPlan& plan) : cur_(cursor), plan_(plan) {}

  absl::Status ParsePlan() {
    while (!cur_.AtEnd()) {
      absl::Status st = IsScratch() ? ParseScratch() : ParseLaunch();
      if (!st.ok()) return st;
    }
    if (plan_.launches.empty()) {
      return MakePosError(cur_.ErrorPos(),
                          "the launch plan has no kernel launch; expected at least one "
                          "'kernel<<<grid, block>>>(args);' statement");
    }
    return absl::OkStatus();
  }

 private:
  bool IsScratch() const {
    return cur_.Peek().IsIdent("scratch") && cur_.Peek(1).kind == TokenKind::kIdent;
  }

  absl::Status ExpectIdent(absl::string_view what, Token& out) {
    if (cur_.Peek().kind != TokenKind::kIdent) return cur_.Expected(what);
    out = cur_.Next();
    return absl::OkStatus();
  }

  absl::Status ParseScratch() {
    ScratchDecl decl;
    decl.pos = cur_.Next().pos;  // 'scratch'
    Token name;
    Token dtype;
    KJ_RETURN_IF_ERROR(ExpectIdent("a scratch buffer name", name));
    decl.name = name.text;
    KJ_RETURN_IF_ERROR(CheckNewScratch(name));
    KJ_RETURN_IF_ERROR(cur_.Expect(":", "after the scratch buffer name"));
    KJ_RETURN_IF_ERROR(ExpectIdent("a dtype (f32, f16, bf16, ...)", dtype));
    absl::StatusOr<DType> parsed = ParseDType(dtype.text);
    if (!parsed.ok()) return MakePosError(dtype.pos, parsed.status().message());
    decl.dtype = *parsed;
    KJ_RETURN_IF_ERROR(cur_.Expect("[", "before the element count"));
    absl::StatusOr<Expr> count = ParseExpressionAt(cur_);
    if (!count.ok()) return count.status();
    decl.count = *std::move(count);
    KJ_RETURN_IF_ERROR(cur_.Expect("]", "after the element count"));
    KJ_RETURN_IF_ERROR(ExpectSemicolon("scratch declaration"));
    plan_.scratch.push_back(std::move(decl));
    return absl::OkStatus();
  }

  absl::Status CheckNewScratch(const Token& name) {
    const auto [it, inserted] = scratch_pos_.emplace(name.text, name.pos);
    if (inserted) return absl::OkStatus();
    return MakePosError(name.pos, absl::StrCat("scratch buffer '", name.text,
                                               "' is already declared at ", it->second.line, ":",
                                               it->second.column, "; expected a new name"));
  }

  absl::Status ExpectSemicolon(absl::string_view statement) {
    return cur_.Expect(";", absl::StrCat("to end the ", statement));
  }

  absl::Status ParseLaunch() {
    Launch launch;
    Token kernel;
    KJ_RETURN_IF_ERROR(ExpectIdent("a kernel name or 'scratch'", kernel));
    launch.kernel = kernel.text;
    launch.pos = kernel.pos;
    if (cur_.Accept("<")) {
      KJ_RETURN_IF_ERROR(ParseTemplateArgs(launch));
    }
    if (absl::Status st = cur_.Expect("<<<", "to open the launch configuration"); !st.ok()) {
      return st;
    }
    KJ_RETURN_IF_ERROR(ParseLaunchConfig(launch));
    KJ_RETURN_IF_ERROR(ParseArgs(launch));
    KJ_RETURN_IF_ERROR(ExpectSemicolon("kernel launch"));
    plan_.launches.push_back(std::move(launch));
    return absl::OkStatus();
  }

  absl::Status ParseTemplateArgs(Launch& launch) {
    do {
      TemplateArg arg;
      if (LooksLikeType()) {
        arg.is_type = true;
        arg.type_name = ParseTypeName();
      } else {
        absl::StatusOr<Expr> value = ParseExpressionAt(cur_);
        if (!value.ok()) return value.status();
        arg.value = *std::move(value);
      }
      launch.template_args.push_back(std::move(arg));
    } while (cur_.Accept(","));
    return cur_.Expect(">", "to close the template arguments");
  }

  // A type is a known type name, several identifiers ("unsigned int"), or a qualified name.
  bool LooksLikeType() const {
    const Token& first = cur_.Peek();
    if (first.Is("::")) return true;
    if (first.kind != TokenKind::kIdent) return false;
    const Token& second = cur_.Peek(1);
    return IsTypeName(first.text) || second.kind == TokenKind::kIdent || second.Is("::");
  }

  std::string ParseTypeName() {
    std::string name;
    while (cur_.Peek().kind == TokenKind::kIdent || cur_.Peek().Is("::") ||
           cur_.Peek().Is("*")) {
      const Token& token = cur_.Next();
      const bool glue = token.Is("::") || token.Is("*") || name.empty() || name.ends_with("::");
      if (!glue) name += ' ';
      name += token.text;
    }
    return name;
  }

  absl::Status ParseLaunchConfig(Launch& launch) {
    KJ_RETURN_IF_ERROR(ParseDim(launch.grid));
    KJ_RETURN_IF_ERROR(cur_.Expect(",", "between the grid and block sizes"));
    KJ_RETURN_IF_ERROR(ParseDim(launch.block));
    if (cur_.Accept(",")) {
      absl::StatusOr<Expr> shared = ParseExpressionAt(cur_);
      if (!shared.ok()) return shared.status();
      launch.shared_bytes = *std::move(shared);
    } else {
      launch.shared_bytes = Expr::IntLiteral(0, cur_.ErrorPos());
    }
    if (cur_.Peek().Is(",")) {
      return MakePosError(cur_.Peek().pos,
                          "CUDA streams are not supported; expected '>>>' after the dynamic "
                          "shared memory size");
    }
    return cur_.Expect(">>>", "to close the launch configuration");
  }

  absl::Status ParseDim(Dim3Expr& dim) {
    if (!(cur_.Peek().IsIdent("dim3") && cur_.Peek(1).Is("("))) {
      absl::StatusOr<Expr> x = ParseExpressionAt(cur_);
      if (!x.ok()) return x.status();
      dim.x = *std::move(x);
      dim.y = Expr::IntLiteral(1, dim.x.pos());
      dim.z = Expr::IntLiteral(1, dim.x.pos());
      return absl::OkStatus();
    }
    const SourcePos pos = cur_.Next().pos;
    cur_.Next();  // '('
    std::vector<Expr> parts;
    do {
      if (parts.size() == 3) return cur_.Expected("')' after at most 3 dim3 components");
      absl::StatusOr<Expr> part = ParseExpressionAt(cur_);
      if (!part.ok()) return part.status();
      parts.push_back(*std::move(part));
    } while (cur_.Accept(","));
    KJ_RETURN_IF_ERROR(cur_.Expect(")", "to close dim3(...)"));
    dim.x = parts[0];
    dim.y = parts.size() > 1 ? parts[1] : Expr::IntLiteral(1, pos);
    dim.z = parts.size() > 2 ? parts[2] : Expr::IntLiteral(1, pos);
    return absl::OkStatus();
  }

  absl::Status ParseArgs(Launch& launch) {
    KJ_RETURN_IF_ERROR(cur_.Expect("(", "to open the kernel arguments"));
    if (cur_.Accept(")")) return absl::OkStatus();
    do {
      absl::StatusOr<Expr> arg = ParseExpressionAt(cur_);
      if (!arg.ok()) return arg.status();
      launch.args.push_back(*std::move(arg));
    } while (cur_.Accept(","));
    return cur_.Expect(")", "to close the kernel arguments");
  }

  TokenCursor& cur_;
  LaunchPlan& plan_;
  std::map<std::string, SourcePos> scratch_pos_;
};

}  // namespace

absl::StatusOr<LaunchPlan> ParseLaunchPlan(std::string_view text, SourcePos start) {
  LaunchPlan plan;
  plan.text = std::string(text);
  plan.first_line = start.line;
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(text, start);
  if (!tokens.ok()) return tokens.status();
  TokenCursor cursor(*tokens);
  KJ_RETURN_IF_ERROR(PlanParser(cursor, plan).ParsePlan());
  return plan;
}

absl::StatusOr<LaunchPlan> ParseLaunchPlan(std::string_view text, int first_line) {
  return ParseLaunchPlan(text, SourcePos{first_line, 1});
}

}  // namespace kjudge
