#!/usr/bin/env bash
# kjudge adversarial suite: hostile or broken kernels that must never be judged CORRECT.
# Run it from a bundle made by deploy/pack.sh, on a host with a GPU:
#
#   dist/kjudge/tests/gpu/adversarial/run.sh OUT_DIR
#
# Checks manifest.tsv first (every case but the problems' example solutions and the
# tests/gpu/unusual/ kernels run after a hostile case expects a verdict other than CORRECT), then runs ../run_suite.sh OUT_DIR tests/gpu/adversarial/manifest.tsv:
# fresh server + one worker, each case submitted in order, its verdict compared with the
# manifest (alternatives separated by '|'), a table printed last, non-zero exit on any failure.
# The gtest binaries are skipped (KJUDGE_SUITE_GTESTS=1 runs them too); the other
# KJUDGE_SUITE_* variables of run_suite.sh apply.
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MANIFEST="$HERE/manifest.tsv"

bad=0
cases=0
while IFS=$'\t' read -r file _problem expected _what _check; do
  [[ -z "$file" || "$file" == \#* || "$file" == file ]] && continue
  if [[ "$file" == problems/*/solution.cu || "$file" == tests/gpu/unusual/*.cu ]]; then
    # an example solution or an unusual-but-correct kernel, run after a hostile case to show
    # that the next job is served cleanly
    [[ "$expected" == CORRECT ]] || { echo "manifest: $file is a correct kernel but expects $expected" >&2; bad=1; }
    [[ -f "$HERE/../../../$file" ]] || { echo "manifest: $file not found" >&2; bad=1; }
    continue
  fi
  cases=$((cases + 1))
  IFS='|' read -r -a allowed <<<"$expected"
  for v in "${allowed[@]}"; do
    if [[ "$v" == CORRECT || -z "$v" ]]; then
      echo "manifest: $file may be judged '$v': an adversarial case must never pass" >&2
      bad=1
    fi
  done
  [[ -f "$HERE/../../../$file" ]] || { echo "manifest: $file not found" >&2; bad=1; }
done < <(tr -d '\r' <"$MANIFEST")
if [[ $bad -ne 0 ]]; then
  echo "adversarial manifest is invalid" >&2
  exit 2
fi
echo "adversarial manifest: $cases hostile cases"

KJUDGE_SUITE_GTESTS="${KJUDGE_SUITE_GTESTS:-0}" exec "$HERE/../run_suite.sh" "$1" \
  tests/gpu/adversarial/manifest.tsv
