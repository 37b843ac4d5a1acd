#!/usr/bin/env bash
# Judges every problem's example solution on this host's GPU, from a bundle made by
# deploy/pack.sh:   dist/kjudge/tests/gpu/run_catalog.sh OUT_DIR [PROBLEM_PREFIX]
# Starts a server on a fresh database and one worker, submits problems/*/solution.cu (the
# `example` of each spec) for every problem under PROBLEM_PREFIX, waits for all verdicts, and
# prints one row per problem: verdict, candidate median, speedup per baseline (the default one,
# the strongest baseline measured, marked *), then `kjudge stats`: per problem the denominator
# the default used, and KernelBench's number (vs torch_eager) where eager times exist. Exits non-zero
# unless every example is CORRECT. KJUDGE_TIME_BUDGET_MS (default 1000) bounds each timing;
# KJUDGE_WORKER_FLAGS="..." adds kjudge-worker flags, e.g. --oracle-cross-check (every problem
# with both reference.cu and reference.py: the PyTorch oracle checked against reference.cu on
# each test shape; a disagreement makes that job INTERNAL_ERROR). KJUDGE_PROBLEM_LIST="a b ..."
# judges only those problems (under the prefix). KJUDGE_PASSES=N (default 1) submits the examples
# N times, KJUDGE_PASS_PAUSE_S (default 0) seconds apart, on the same server: later passes find
# the baselines the first measured, and torch_compile ones once their background compiles are
# done. KJUDGE_BASELINES_ONLY=1: problems without an example get a baselines-only job (`kjudge
# baselines measure`) in each pass instead of being left out. The compile oracle keeps 8 modules
# unless KJUDGE_WORKER_FLAGS has --compile-oracle-keys N (pass at most that many problems); with
# --torch-compile-cache DIR and --compile-children N compiles are quick. The table is the last
# pass's; catalog_results_all.jsonl holds every pass.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR [PROBLEM_PREFIX]" >&2; exit 2; }
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
PREFIX="${2:-}"
ORIG_LD="${LD_LIBRARY_PATH:-}"
source "$BUNDLE/env.sh"
host_py() { if [[ -n "$ORIG_LD" ]]; then LD_LIBRARY_PATH="$ORIG_LD" python3 "$@"; else env -u LD_LIBRARY_PATH python3 "$@"; fi; }
TMP="$(mktemp -d)"
PORT=$((20000 + RANDOM % 20000))
ADDR=127.0.0.1:$PORT
# KJUDGE_KEEP_DB=DIR: the run's database is copied there at the end (e.g. for dashboard
# screenshots: bench/dashboard/screenshots.sh).
cleanup() {
  kill -TERM $WORKER_PID $SERVER_PID 2>/dev/null; wait 2>/dev/null
  [[ -n "${KJUDGE_KEEP_DB:-}" ]] && mkdir -p "$KJUDGE_KEEP_DB" && cp "$TMP"/kjudge.sqlite* "$KJUDGE_KEEP_DB"/
  rm -rf "$TMP"
}
trap cleanup EXIT
"$BUNDLE/bin/kjudge-server" --db "$TMP/kjudge.sqlite" --listen "$ADDR" --problems "$BUNDLE/problems" >"$OUT/catalog_server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 200); do grep -q "listening on" "$OUT/catalog_server.log" && break; sleep 0.1; done
"$BUNDLE/bin/kjudge-worker" --server "$ADDR" --cache-dir "$TMP/cubins" --time-budget-ms "${KJUDGE_TIME_BUDGET_MS:-1000}" \
  ${KJUDGE_WORKER_FLAGS:-} >"$OUT/catalog_worker.log" 2>&1 &
WORKER_PID=$!
K=("$BUNDLE/bin/kjudge" --server "$ADDR")

: >"$OUT/catalog_results_all.jsonl"
for pass in $(seq "${KJUDGE_PASSES:-1}"); do
  [[ $pass -gt 1 ]] && sleep "${KJUDGE_PASS_PAUSE_S:-0}"
  : >"$OUT/catalog_jobs.tsv"
  for spec in $(cd "$BUNDLE/problems" && find . -name problem.toml | sort); do
    dir=$(dirname "${spec#./}")
    [[ "$dir" == "$PREFIX"* ]] || continue
    [[ -z "${KJUDGE_PROBLEM_LIST:-}" || " $KJUDGE_PROBLEM_LIST " == *" $dir "* ]] || continue
    if [[ ! -f "$BUNDLE/problems/$dir/solution.cu" ]]; then
      # No example: with KJUDGE_BASELINES_ONLY=1 a baselines-only job measures its baselines.
      [[ "${KJUDGE_BASELINES_ONLY:-0}" == 1 ]] || continue
      id=$("${K[@]}" baselines measure "$dir" 2>>"$OUT/catalog_submit.err" | cut -f1)
      echo -e "$dir\t$id" >>"$OUT/catalog_jobs.tsv"
      continue
    fi
    id=$("${K[@]}" submit "$BUNDLE/problems/$dir/solution.cu" --problem "$dir" 2>>"$OUT/catalog_submit.err")
    echo -e "$dir\t$id" >>"$OUT/catalog_jobs.tsv"
  done
  echo "pass $pass: submitted $(wc -l <"$OUT/catalog_jobs.tsv") examples"
  : >"$OUT/catalog_results.jsonl"
  while IFS=$'\t' read -r dir id; do
    "${K[@]}" --json job "$id" --wait --timeout 600 >>"$OUT/catalog_results.jsonl" 2>>"$OUT/catalog_submit.err"
  done <"$OUT/catalog_jobs.tsv"
  cat "$OUT/catalog_results.jsonl" >>"$OUT/catalog_results_all.jsonl"
done
host_py - "$OUT/catalog_results.jsonl" >"$OUT/catalog_table.txt" <<'PY'
import json, sys
rows, bad = [], 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    job = json.loads(line)
    r = job.get("result", {})
    verdict = r.get("verdict", job.get("state"))
    if verdict == "BASELINES_MEASURED":  # a problem without an example (KJUDGE_BASELINES_ONLY)
        measured = r.get("baselines", [])
        rows.append((job["problem"], verdict, "", "", ";".join(
            f'{b["name"]}={b["timing"]["median_us"]:.1f}us' for b in measured), ""))
        continue
    bad += verdict != "CORRECT"
    med = ";".join(f'{t["timing"]["median_us"]:.1f}' for t in r.get("timings", []))
    sol = ";".join(f'{t["timing"].get("sol_percent", 0):.0f}%' for t in r.get("timings", []))
    default = r.get("default_denominator", {}).get("baseline", "")
    sp = ";".join(f'{"*" if s["baseline"] == default else ""}{s["baseline"]}={s["speedup"]:.2f}x'
                  for s in r.get("speedups", []))
    msg = "" if verdict == "CORRECT" else r.get("message", "")[:140]
    rows.append((job["problem"], verdict, med, sol, sp, msg))
w = max(len(r[0]) for r in rows) if rows else 10
print(f'{"problem":<{w}}  {"verdict":<16} {"median_us":>12} {"SOL":>6}  speedups (*: default) / message')
for p, v, m, sol, s, msg in rows:
    print(f"{p:<{w}}  {v:<16} {m:>12} {sol:>6}  {s} {msg}")
examples = sum(r[1] != "BASELINES_MEASURED" for r in rows)
print(f"{examples - bad}/{examples} examples CORRECT")
if examples < len(rows):
    print(f"{len(rows) - examples} baselines-only jobs (problems without an example)")
sys.exit(1 if bad else 0)
PY
rc=$?
"${K[@]}" baselines >"$OUT/catalog_baselines.txt" 2>&1
echo "== baselines measured on this GPU (median, SOL%) =="
cat "$OUT/catalog_baselines.txt"
echo "== examples =="
cat "$OUT/catalog_table.txt"
# Per problem, the denominator the default speedup used (issue 12's check on the GPU host).
"${K[@]}" stats >"$OUT/catalog_stats.txt" 2>&1
"${K[@]}" --json stats >"$OUT/catalog_stats.json" 2>>"$OUT/catalog_submit.err"
echo "== kjudge stats (default: each problem's strongest baseline) =="
cat "$OUT/catalog_stats.txt"
exit $rc
