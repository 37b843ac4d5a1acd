#!/usr/bin/env bash
# The catalog run of run_catalog.sh spread over the GPUs of one host, from a bundle:
#
#   dist/kjudge/tests/gpu/run_catalog_shards.sh OUT_DIR N [PROBLEM_PREFIX]
#
# Splits the problems under PROBLEM_PREFIX (sorted as run_catalog.sh sorts them) round robin into
# N shards and runs one run_catalog.sh per shard at once, shard i with its own server, database
# and worker on CUDA device i (`--device i` added to KJUDGE_WORKER_FLAGS; every other KJUDGE_*
# variable of run_catalog.sh applies to each shard). One server per shard, not one server with N
# workers: a problem's torch.compile is compiled and timed in the compile oracle of one worker,
# so each problem must come back to the worker that compiled it in the next pass.
#
# OUT_DIR/shard<i>/ holds each shard's own outputs (its table, baselines, `kjudge stats` over its
# problems, logs); OUT_DIR/catalog_results.jsonl and catalog_results_all.jsonl are the shards'
# concatenated, the input of tests/gpu/catalog_table.py. Prints each shard's summary lines and
# exits non-zero unless every shard's run_catalog.sh did (every example CORRECT).
set -uo pipefail
[[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || {
  echo "usage: $0 OUT_DIR N [PROBLEM_PREFIX]   (N: shards, one per CUDA device 0..N-1)" >&2
  exit 2
}
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
SHARDS=$2
PREFIX="${3:-}"

problems=()
for spec in $(cd "$BUNDLE/problems" && find . -name problem.toml | sort); do
  dir=$(dirname "${spec#./}")
  [[ "$dir" == "$PREFIX"* ]] || continue
  [[ -z "${KJUDGE_PROBLEM_LIST:-}" || " $KJUDGE_PROBLEM_LIST " == *" $dir "* ]] || continue
  problems+=("$dir")
done
((${#problems[@]} > 0)) || { echo "$0: no problem under '$PREFIX' in $BUNDLE/problems" >&2; exit 2; }
echo "${#problems[@]} problems over $SHARDS shards"

pids=()
for ((i = 0; i < SHARDS; i++)); do
  list=()
  for ((k = i; k < ${#problems[@]}; k += SHARDS)); do list+=("${problems[$k]}"); done
  mkdir -p "$OUT/shard$i"
  KJUDGE_PROBLEM_LIST="${list[*]}" KJUDGE_WORKER_FLAGS="${KJUDGE_WORKER_FLAGS:-} --device $i" \
    "$BUNDLE/tests/gpu/run_catalog.sh" "$OUT/shard$i" "$PREFIX" >"$OUT/shard$i/run_catalog.out" 2>&1 &
  pids+=($!)
done
rc=0
for ((i = 0; i < SHARDS; i++)); do
  wait "${pids[$i]}" || rc=1
done

: >"$OUT/catalog_results.jsonl"
: >"$OUT/catalog_results_all.jsonl"
for ((i = 0; i < SHARDS; i++)); do
  cat "$OUT/shard$i/catalog_results.jsonl" >>"$OUT/catalog_results.jsonl" 2>/dev/null
  cat "$OUT/shard$i/catalog_results_all.jsonl" >>"$OUT/catalog_results_all.jsonl" 2>/dev/null
  echo "== shard $i (device $i) =="
  grep -E "examples CORRECT|baselines-only jobs|^fast_|fast_[0-9]" "$OUT/shard$i/run_catalog.out" |
    head -20 || echo "(no summary: see $OUT/shard$i/run_catalog.out)"
done
exit $rc
