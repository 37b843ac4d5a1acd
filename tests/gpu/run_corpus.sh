#!/usr/bin/env bash
# Judges every kernel of the corpus (tests/corpus: kernels written the way people and LLMs write
# CUDA, issue 12) on this host's GPU and expects CORRECT for each. From a bundle made by
# deploy/pack.sh:
#
#   dist/kjudge/tests/gpu/run_corpus.sh OUT_DIR [PATH_PREFIX]
#
# Starts a server on a fresh database and one GPU worker (or, with KJUDGE_SERVER=host:port, uses
# a running server and its workers; KJUDGE_API_KEY is passed on by the CLI), submits every
# tests/corpus/<level>/<problem>/<style>.cu whose path under tests/corpus starts with
# PATH_PREFIX (e.g. level2/ or level1/23_Softmax), waits for all verdicts, and prints one line
# per file (problem, file, verdict, candidate median per bench shape, message when not CORRECT)
# and a summary. Exits 0 only if every file is CORRECT; 1 otherwise; 2 for bad usage.
# KJUDGE_TIME_BUDGET_MS (default 1000) bounds each timing of the worker it starts; KJUDGE_WAIT_S
# (default 900) bounds the wait for each verdict.
# Outputs in OUT_DIR: corpus_jobs.tsv, corpus_results.jsonl, corpus_table.txt, the server and
# worker logs.
set -uo pipefail
[[ $# -ge 1 && "$1" != "-h" && "$1" != "--help" ]] || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
PREFIX="${2:-}"
CORPUS="$BUNDLE/tests/corpus"
[[ -d "$CORPUS" ]] || { echo "run_corpus.sh: no $CORPUS (pack the bundle with deploy/pack.sh)" >&2; exit 2; }
ORIG_LD="${LD_LIBRARY_PATH:-}"
[[ -f "$BUNDLE/env.sh" ]] && source "$BUNDLE/env.sh"
host_py() { if [[ -n "$ORIG_LD" ]]; then LD_LIBRARY_PATH="$ORIG_LD" python3 "$@"; else env -u LD_LIBRARY_PATH python3 "$@"; fi; }

TMP="$(mktemp -d)"
SERVER_PID="" WORKER_PID=""
cleanup() {
  [[ -n "$WORKER_PID$SERVER_PID" ]] && kill -TERM $WORKER_PID $SERVER_PID 2>/dev/null
  wait 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
if [[ -n "${KJUDGE_SERVER:-}" ]]; then
  ADDR="$KJUDGE_SERVER"
  echo "using the running server at $ADDR"
else
  ADDR=127.0.0.1:$((20000 + RANDOM % 20000))
  "$BUNDLE/bin/kjudge-server" --db "$TMP/kjudge.sqlite" --listen "$ADDR" --problems "$BUNDLE/problems" \
    --submit-rate 0 >"$OUT/corpus_server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do grep -q "listening on" "$OUT/corpus_server.log" && break; sleep 0.1; done
  grep -q "listening on" "$OUT/corpus_server.log" || { echo "kjudge-server did not start:"; cat "$OUT/corpus_server.log"; exit 1; }
  "$BUNDLE/bin/kjudge-worker" --server "$ADDR" --cache-dir "$TMP/cubins" \
    --time-budget-ms "${KJUDGE_TIME_BUDGET_MS:-1000}" >"$OUT/corpus_worker.log" 2>&1 &
  WORKER_PID=$!
  # A worker without a GPU serves compile-only jobs only: the corpus would wait forever.
  for _ in $(seq 600); do grep -q "registered with" "$OUT/corpus_worker.log" && break; sleep 0.1; done
  # "runner ready on <GPU>" is the judging runner's (the compile-ahead runner says
  # "compile-ahead runner ready"): without it nothing is judged.
  if ! grep -q "runner ready on " "$OUT/corpus_worker.log"; then
    echo "run_corpus.sh: the worker found no GPU, so nothing can be judged CORRECT here:" >&2
    grep -m1 "compile-only mode" "$OUT/corpus_worker.log" >&2
    exit 1
  fi
fi
K=("$BUNDLE/bin/kjudge" --server "$ADDR")

: >"$OUT/corpus_jobs.tsv"
: >"$OUT/corpus_submit.err"
while IFS= read -r rel; do
  [[ "$rel" == "$PREFIX"* ]] || continue
  problem="$(dirname "$rel")"
  if id=$("${K[@]}" submit "$CORPUS/$rel" --problem "$problem" --tag suite=corpus 2>>"$OUT/corpus_submit.err"); then
    printf '%s\t%s\t%s\n' "$problem" "$rel" "$id" >>"$OUT/corpus_jobs.tsv"
  else
    printf '%s\t%s\t%s\n' "$problem" "$rel" "-" >>"$OUT/corpus_jobs.tsv"   # refused: counted as a failure
  fi
done < <(cd "$CORPUS" && find . -name '*.cu' | sed 's#^\./##' | sort)
echo "submitted $(wc -l <"$OUT/corpus_jobs.tsv") corpus kernels to $ADDR"

: >"$OUT/corpus_results.jsonl"
while IFS=$'\t' read -r problem rel id; do
  if [[ "$id" == "-" ]]; then
    printf '{"file": "%s", "problem": "%s", "state": "NOT_SUBMITTED"}\n' "$rel" "$problem" >>"$OUT/corpus_results.jsonl"
    continue
  fi
  job=$("${K[@]}" --json job "$id" --wait --timeout "${KJUDGE_WAIT_S:-900}" 2>>"$OUT/corpus_submit.err")
  if [[ -z "$job" ]]; then job="{\"state\": \"NO_ANSWER\", \"problem\": \"$problem\"}"; fi
  # One JSON line per file: the job plus the corpus path.
  host_py -c 'import json,sys; d=json.loads(sys.argv[1]); d["file"]=sys.argv[2]; print(json.dumps(d))' "$job" "$rel" \
    >>"$OUT/corpus_results.jsonl" 2>>"$OUT/corpus_submit.err" ||
    printf '{"file": "%s", "problem": "%s", "state": "BAD_JSON"}\n' "$rel" "$problem" >>"$OUT/corpus_results.jsonl"
done <"$OUT/corpus_jobs.tsv"

host_py - "$OUT/corpus_results.jsonl" >"$OUT/corpus_table.txt" <<'PY'
import json, sys
rows, bad = [], 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    job = json.loads(line)
    r = job.get("result", {})
    verdict = r.get("verdict", job.get("state", "?"))
    bad += verdict != "CORRECT"
    med = ";".join(f'{t["timing"]["median_us"]:.1f}' for t in r.get("timings", []))
    msg = "" if verdict == "CORRECT" else (r.get("message", "") or r.get("cuda_error", ""))[:160]
    if verdict == "WRONG_ANSWER":
        for t in r.get("tests", []):
            if not t.get("passed", False):  # proto JSON omits false
                msg += f' [{t.get("shape", "")}: max_abs {t.get("max_abs_error", 0):.3g}, rel_l2 {t.get("rel_l2_error", 0):.3g}]'
                break
    rows.append((job.get("problem", "?"), job["file"].split("/")[-1], verdict, med, msg))
wp = max([len(r[0]) for r in rows] + [7])
wf = max([len(r[1]) for r in rows] + [4])
print(f'{"problem":<{wp}}  {"file":<{wf}}  {"verdict":<16} {"median_us":>14}  message')
for p, f, v, m, msg in rows:
    print(f"{p:<{wp}}  {f:<{wf}}  {v:<16} {m:>14}  {msg}")
problems = len({r[0] for r in rows})
print(f"{len(rows) - bad}/{len(rows)} corpus kernels CORRECT ({problems} problems)")
sys.exit(1 if bad or not rows else 0)
PY
rc=$?
cat "$OUT/corpus_table.txt"
exit $rc
