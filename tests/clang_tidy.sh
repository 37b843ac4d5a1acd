#!/usr/bin/env bash
# clang-tidy over kjudge's own C++ sources (not generated code), with the checks in
# .clang-tidy; any finding fails. Usage: tests/clang_tidy.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-ci}
files=$(git ls-files 'common/*.cc' 'server/*.cc' 'worker/*.cc' 'client/*.cc' 'dashboard/*.cc' | grep -v -E '^worker/(judge|gpu)/')
# The judge's and the shared GPU files need CUDA headers; they are checked too when the build
# has them.
if [ -f "$build/compile_commands.json" ] && grep -q -E 'worker/(judge|gpu)/' "$build/compile_commands.json"; then
  files="$files $(git ls-files 'worker/judge/*.cc' 'worker/gpu/*.cc')"
fi
log=$(mktemp /tmp/kjudge-tidy.XXXXXX)
status=0
# xargs exits non-zero when any clang-tidy run reported an error (findings are errors here).
echo "$files" | tr ' ' '\n' | grep . | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet >"$log" 2>&1 || status=1
grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated|^Suppressed|^Use -header-filter|^Use -system-headers' \
  "$log" || true
if [ $status -ne 0 ] || grep -q -E 'warning:|error:' "$log"; then
  echo "clang-tidy: findings above"
  exit 1
fi
echo "clang-tidy: clean ($(echo "$files" | wc -w) files)"
