#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time,
# seeded with the catalog's plans and specs. Any crash, leak or property failure fails.
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJUDGE_FUZZ=ON \
  -DKJUDGE_SANITIZE=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_launch_plan fuzz_expression fuzz_problem_spec
corpus=$(mktemp -d /tmp/kjudge-fuzz.XXXXXX)
mkdir -p "$corpus/plan" "$corpus/expression" "$corpus/spec"
cp tests/fuzz/corpus/plan/* "$corpus/plan/"
cp tests/fuzz/corpus/expression/* "$corpus/expression/"
i=0
for spec in $(find problems -name problem.toml | sort); do
  cp "$spec" "$corpus/spec/$((i++)).toml"
  # The plan block of each example is a plan seed too.
  example="$(dirname "$spec")/solution.cu"
  [ -f "$example" ] && sed -n '/kjudge-plan/,/\*\//p' "$example" | sed '1d;$d' >"$corpus/plan/example$i.txt"
done
status=0
for pair in launch_plan:plan expression:expression problem_spec:spec; do
  target=${pair%%:*}
  dir=$corpus/${pair##*:}
  echo "== fuzz_$target for ${seconds}s"
  if ! build-fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$corpus/" "$dir" 2>"$corpus/$target.log"; then
    echo "fuzz_$target FAILED; last lines:"; tail -40 "$corpus/$target.log"; status=1
  else
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$corpus/$target.log" | tail -2
  fi
done
[ $status -eq 0 ] && rm -rf "$corpus"
exit $status
