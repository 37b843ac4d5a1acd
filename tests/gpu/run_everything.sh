#!/usr/bin/env bash
# Every GPU test of the repository from one command (issue 30 pt5), on a GPU host, from a bundle
# made by deploy/pack.sh:
#
#   dist/kjudge/tests/gpu/run_everything.sh OUT_DIR [CATALOG_PREFIX]
#
# Runs, one after the other, each in OUT_DIR/<part>/ with its own log:
#   suite            run_suite.sh: every bin/test_* gtest (skips fail unless allowed_skips.tsv
#                    lists them) and the cases of tests/gpu/cases/manifest.tsv
#   adversarial      adversarial/run.sh: hostile kernels, never CORRECT
#   unusual          unusual/run.sh: unusual but correct kernels, always CORRECT
#   corpus           run_corpus.sh: the kernel corpus, every file CORRECT
#   faults           faults.sh: kills and faults during real GPU jobs
#   kernel_resources kernel_resources_check.sh: compile feedback against the driver
#   reproduce        reproduce_check.sh: `kjudge reproduce` against the judge's own samples
#   catalog          run_catalog.sh OUT CATALOG_PREFIX (default level1/1): the catalog's examples
# Prints one row per part (exit code, seconds) and exits non-zero if any part failed. A part
# that is missing from the bundle fails too: nothing is skipped quietly.
set -uo pipefail
[[ $# -ge 1 && "$1" != "-h" && "$1" != "--help" ]] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1" || exit 2
OUT="$(cd "$1" && pwd)"
PREFIX="${2:-level1/1}"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run_everything.sh: no GPU here (nvidia-smi -L failed); run it on a GPU host" >&2
  exit 2
fi

parts=(suite adversarial unusual corpus faults kernel_resources reproduce catalog)
declare -A command=(
  [suite]="$HERE/run_suite.sh"
  [adversarial]="$HERE/adversarial/run.sh"
  [unusual]="$HERE/unusual/run.sh"
  [corpus]="$HERE/run_corpus.sh"
  [faults]="$HERE/faults.sh"
  [kernel_resources]="$HERE/kernel_resources_check.sh"
  [reproduce]="$HERE/reproduce_check.sh"
  [catalog]="$HERE/run_catalog.sh"
)
declare -A rc seconds
failed=0
for part in "${parts[@]}"; do
  script=${command[$part]}
  args=("$OUT/$part")
  [[ $part == catalog ]] && args+=("$PREFIX")
  echo "== $part: $script ${args[*]}"
  start=$(date +%s)
  if [[ -x "$script" ]]; then
    "$script" "${args[@]}" >"$OUT/$part.log" 2>&1
    rc[$part]=$?
  else
    echo "missing from the bundle: $script" >"$OUT/$part.log"
    rc[$part]=127
  fi
  seconds[$part]=$(($(date +%s) - start))
  ((rc[$part] == 0)) || failed=1
  tail -n 3 "$OUT/$part.log"
done

printf '\n%-18s %-6s %8s\n' part result seconds | tee "$OUT/summary.txt"
for part in "${parts[@]}"; do
  result=PASS
  ((rc[$part] == 0)) || result="FAIL($((rc[$part])))"
  printf '%-18s %-6s %8s\n' "$part" "$result" "${seconds[$part]}" | tee -a "$OUT/summary.txt"
done
exit $failed
