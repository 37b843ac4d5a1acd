#!/usr/bin/env bash
# clang-tidy over kjudge's own C++ sources (not generated code), with the checks in
# .clang-tidy; any finding fails. Usage: tests/clang_tidy.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-ci}
files=$(git ls-files 'common/*.cc' 'server/*.cc' 'worker/*.cc' 'client/*.cc' | grep -v '^worker/runner/')
# The runner's files need CUDA headers; they are checked too when the build has them.
if [ -f "$build/compile_commands.json" ] && grep -q 'worker/runner/' "$build/compile_commands.json"; then
  files="$files $(git ls-files 'worker/runner/*.cc')"
fi
echo "$files" | tr ' ' '\n' | grep . | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>&1 \
  | grep -v -E '^[0-9]+ warnings? generated|^Suppressed|^Use -header-filter|^Use -system-headers' | tee /tmp/kjudge-tidy.log
if grep -q -E 'warning:|error:' /tmp/kjudge-tidy.log; then
  echo "clang-tidy: findings above"; exit 1
fi
echo "clang-tidy: clean"
