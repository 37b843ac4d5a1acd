// Expression parser over a token stream (internal to kjudge_common), so the launch-plan parser
// can parse expressions embedded in statements. ParseExpression (expression.h) is the public
// entry point for a whole string.
#pragma once

#include "absl/status/statusor.h"
#include "common/expression.h"
#include "common/lexer.h"

namespace kjudge {

// Parses one expression starting at the cursor and stops before the first token that cannot
// continue it (',', ')', '>', ';', ...). The caller checks what follows.
absl::StatusOr<Expr> ParseExpressionAt(TokenCursor& cursor);

}  // namespace kjudge
