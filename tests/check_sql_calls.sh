#!/bin/bash
# SQL reaches SQLite only through server/database.cc (issue 25). There, Prepare and Execute
# take SqlText/Sql, types a runtime string does not convert to, so SQL text comes only from the
# code; a direct sqlite3_prepare*/sqlite3_exec/sqlite3_get_table call anywhere else would
# bypass that. This check fails on any such call outside the allow-list below.
#
# Allowed besides database.cc: two integration tests that open the server's file the way an
# outside tool would (to count rows behind the dashboard's back, and to hold a lock on it);
# their SQL is fixed text in the test, and they handle no request data.
# Usage: check_sql_calls.sh [source root]
set -u
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root" || exit 2
allowed='^(server/database\.cc|tests/integration/dashboard_test\.cc|tests/integration/dashboard_security_test\.cc)$'
pattern='sqlite3_(prepare|exec|get_table)[a-z0-9_]*[[:space:]]*\('
status=0
checked=0
while IFS= read -r -d '' file; do
  file="${file#./}"
  checked=$((checked + 1))
  if grep -qE "$pattern" "$file" && ! [[ "$file" =~ $allowed ]]; then
    echo "FAIL: $file calls SQLite's statement API directly; use server::Database (Prepare/Execute with SqlText):"
    grep -nE "$pattern" "$file" | head -5
    status=1
  fi
done < <(find . \( -path './build*' -o -path './.git' -o -path '*/node_modules' -o -path '*/.venv' \) -prune -o \
              -type f \( -name '*.cc' -o -name '*.h' -o -name '*.cpp' -o -name '*.c' -o -name '*.hpp' \) -print0)
if [ "$checked" -lt 50 ]; then
  echo "FAIL: only $checked source files found under $root; wrong root?"
  exit 2
fi
[ "$status" -eq 0 ] && echo "OK: $checked source files; SQLite statements only in server/database.cc"
exit "$status"
