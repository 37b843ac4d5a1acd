#!/usr/bin/env bash
# kjudge unusual-but-correct suite: legitimate kernels that use rarer features (CUB, WMMA,
# split-K scratch, >48 KB dynamic shared memory, device malloc, cooperative groups, a
# self-resetting __device__ counter, algebraic rewrites, device printf) and must be judged
# CORRECT. Run it from a bundle made by deploy/pack.sh, on a host with a GPU:
#
#   dist/kjudge/tests/gpu/unusual/run.sh OUT_DIR
#
# Checks manifest.tsv first (every case expects CORRECT), then runs
# ../run_suite.sh OUT_DIR tests/gpu/unusual/manifest.tsv without the gtest binaries.
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bad=0
cases=0
while IFS=$'\t' read -r file _problem expected _what _check; do
  [[ -z "$file" || "$file" == \#* || "$file" == file ]] && continue
  cases=$((cases + 1))
  [[ "$expected" == CORRECT ]] || { echo "manifest: $file expects $expected, not CORRECT" >&2; bad=1; }
  [[ -f "$HERE/../../../$file" ]] || { echo "manifest: $file not found" >&2; bad=1; }
done < <(tr -d '\r' <"$HERE/manifest.tsv")
if [[ $bad -ne 0 ]]; then
  echo "unusual manifest is invalid" >&2
  exit 2
fi
echo "unusual manifest: $cases cases"

KJUDGE_SUITE_GTESTS="${KJUDGE_SUITE_GTESTS:-0}" exec "$HERE/../run_suite.sh" "$1" \
  tests/gpu/unusual/manifest.tsv
