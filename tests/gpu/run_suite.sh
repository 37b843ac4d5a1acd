#!/usr/bin/env bash
# kjudge GPU test suite. Run it from a bundle made by deploy/pack.sh, on a host with a GPU:
#
#   dist/kjudge/tests/gpu/run_suite.sh OUT_DIR [MANIFEST]
#
# Starts kjudge-server (fresh SQLite DB in a temp dir) and one kjudge-worker, runs the
# bin/test_* gtest binaries (a test skipped on the GPU host fails unless tests/gpu/allowed_skips.tsv
# lists it), then submits every case of MANIFEST (default
# tests/gpu/cases/manifest.tsv; a relative path is taken from the bundle root, e.g.
# tests/gpu/adversarial/manifest.tsv) with `kjudge submit --wait --json` and compares the
# verdict with the manifest's expected_verdict, which may list alternatives separated by '|'
# (e.g. WRONG_ANSWER|SUSPICIOUS). Example solutions (problems/*/solution.cu) whose `what`
# says "submitted twice" are submitted twice: cold, then with a warm cubin cache.
# Writes OUT_DIR/{suite.log,server.log,worker.log,gtest_*.log,cases/*}, prints a table last,
# and exits non-zero if anything failed.
#
# Environment (optional): KJUDGE_SUITE_CASE_TIMEOUT (s, default 1800) bounds one submission;
# KJUDGE_SUITE_GTEST_TIMEOUT (s, default 900) bounds one gtest binary; KJUDGE_SUITE_GTESTS=0
# skips the gtest binaries.
set -uo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT_DIR [MANIFEST]" >&2
  exit 2
fi
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ ! -f "$BUNDLE/env.sh" || ! -x "$BUNDLE/bin/kjudge" ]]; then
  echo "run_suite.sh: $BUNDLE is not a kjudge bundle (no env.sh / bin/kjudge); make one with deploy/pack.sh" >&2
  exit 2
fi
MANIFEST="${2:-tests/gpu/cases/manifest.tsv}"
[[ "$MANIFEST" == /* ]] || MANIFEST="$BUNDLE/$MANIFEST"
if [[ ! -f "$MANIFEST" ]]; then
  echo "run_suite.sh: no manifest at $MANIFEST" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
OUT="$(cd "$1" && pwd)"
mkdir -p "$OUT/cases"
LOG="$OUT/suite.log"
: > "$LOG"
CASE_TIMEOUT="${KJUDGE_SUITE_CASE_TIMEOUT:-1800}"
GTEST_TIMEOUT="${KJUDGE_SUITE_GTEST_TIMEOUT:-900}"

ORIG_LD="${LD_LIBRARY_PATH:-}"
# shellcheck source=/dev/null
source "$BUNDLE/env.sh"
# python3 (and anything else of the host's) runs with the host's own libraries, not ours.
host_py() { if [[ -n "$ORIG_LD" ]]; then LD_LIBRARY_PATH="$ORIG_LD" python3 "$@"; else env -u LD_LIBRARY_PATH python3 "$@"; fi; }

log() { echo "$*" | tee -a "$LOG"; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/kjudge-suite.XXXXXX")"
SERVER_PID=""
WORKER_PID=""
stop_proc() {  # $1 = pid (a process-group leader when started with setsid)
  local pid="$1"
  [[ -n "$pid" ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
cleanup() {
  stop_proc "$WORKER_PID"
  stop_proc "$SERVER_PID"
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts "$@" in the background in its own process group; logs to $LOGFILE; sets BG_PID.
start_bg() {
  if command -v setsid >/dev/null; then setsid "$@" >"$LOGFILE" 2>&1 </dev/null &
  else "$@" >"$LOGFILE" 2>&1 </dev/null &
  fi
  BG_PID=$!
}

# ---- the verdict checker (reads one CLI answer, prints one tab-separated result line) ----
cat > "$TMP/judge.py" <<'PY'
import json, re, sys
out_path, err_path, expected, check, rc = sys.argv[1:6]
rc = int(rc)
text = open(out_path, errors="replace").read()
err = open(err_path, errors="replace").read()
job, dec, i = None, json.JSONDecoder(), 0
while i < len(text):  # take the last JSON object printed
    j = text.find("{", i)
    if j < 0: break
    try: obj, i = dec.raw_decode(text, j); job = obj if isinstance(obj, dict) else job
    except ValueError: i = j + 1
if isinstance((job or {}).get("job"), dict): job = job["job"]  # a SubmitResponse
res = (job or {}).get("result") or {}
got = res.get("verdict") or (job or {}).get("verdict") or ("NO_JSON" if job is None else "VERDICT_UNSPECIFIED")
allowed = expected.split("|")
notes, ok = [], got in allowed
if rc == 124: notes.append("CLI timed out")
elif job is not None and rc != (0 if got in ("CORRECT", "COMPILED") else 1):
    ok = False; notes.append(f"exit code {rc} does not match verdict {got}")
blob = json.dumps(res) + err
if ok and check == "mismatches":
    n = sum(len(t.get("first_mismatches") or []) for t in res.get("tests") or [])
    ok = ok and n > 0; notes.append(f"{n} first mismatches")
elif check.startswith("line="):
    L = check[5:]; hit = re.search(r"\(%s\)|:%s:|line %s\b" % (L, L, L), res.get("compile_log", "") + res.get("message", ""))
    ok = ok and bool(hit); notes.append(f"compile log {'names' if hit else 'does NOT name'} line {L}")
elif check.startswith("absent="):
    leak = check[7:]; hit = leak in text or leak in err
    ok = ok and not hit; notes.append(f"output {'CONTAINS' if hit else 'does not contain'} {leak!r}")
elif check.startswith("max_bytes="):
    cap = int(check[10:]); size = len(json.dumps(res))
    ok = ok and size <= cap; notes.append(f"result {size} bytes ({'within' if size <= cap else 'OVER'} {cap})")
elif check.startswith("at="):
    loc = check[3:]
    if job is None and rc == 2 and "REJECTED" in allowed and loc in err:
        got, ok = "REJECTED", True; notes.append("rejected by the CLI itself (exit 2)")
    ok = ok and loc in blob; notes.append(f"message {'names' if loc in blob else 'does NOT name'} {loc}")
elif check.startswith("untimed="):  # a regime checked, never timed (worker/judge/regime_deck.h)
    r = check[8:]; keys = res.get("input_keys") or []
    timed = [k for k in keys if " sample " in k.get("set", "")]
    rechecks = [k.get("regime") for k in keys if re.search(r"re-?check", k.get("set", ""))]
    in_r = [k["set"] for k in timed if k.get("regime") == r]
    good = bool(timed) and not in_r and bool(rechecks) and all(x == r for x in rechecks)
    ok = ok and good
    notes.append(f"{len(timed)} timed samples, {len(in_r)} in {r}; re-check in {rechecks}")
tim = [t.get("timing", {}).get("median_us") for t in res.get("timings") or []]
tim = [float(x) for x in tim if x is not None]
sp = [float(s.get("speedup", 0)) for s in res.get("speedups") or []]
if res.get("cubin_cache_hit"): notes.append("cubin cache hit")
for f in res.get("flags") or []: notes.append("flag " + f[:100])
if res.get("message") and got != expected: notes.append(res["message"][:160])
if job is None and err.strip(): notes.append(err.strip().splitlines()[-1][:160])
print("\t".join([got, "PASS" if ok else "FAIL", "%.1f" % tim[0] if tim else "-",
                 "%.3f" % max(sp) if sp else "-", "; ".join(notes).replace("\t", " ")]))
PY

# ---- gtest binaries that need the GPU (run before the worker takes the GPU) ----
ROWS=()   # case \t expected \t got \t PASS/FAIL \t wall \t median \t speedup
FAILS=0
shopt -s nullglob
# Every gtest binary the bundle carries: deploy/pack.sh puts only those that need a GPU in bin/
# (test_worker_gpu, test_worker_baselines, test_worker_timing_gpu, ...); the CPU ones run in CI.
GTESTS=("$BUNDLE"/bin/test_*)
[[ "${KJUDGE_SUITE_GTESTS:-1}" == 0 ]] && GTESTS=()
# KJUDGE_SUITE_GTEST_FILTER: a --gtest_filter for every binary (e.g. '*Oracle*').
FILTER=(); [[ -n "${KJUDGE_SUITE_GTEST_FILTER:-}" ]] && FILTER=(--gtest_filter="$KJUDGE_SUITE_GTEST_FILTER")
# The oracle tests start the host's python3 with torch (their build default is the build
# machine's /usr/bin/python3).
export KJUDGE_TORCH_PYTHON="${KJUDGE_TORCH_PYTHON:-$(command -v python3)}"
for t in "${GTESTS[@]}"; do
  [[ -x "$t" ]] || continue
  name="$(basename "$t")"
  log "== gtest $name"
  t0=$(date +%s.%N)
  timeout "$GTEST_TIMEOUT" "$t" "${FILTER[@]}" --gtest_output="xml:$OUT/gtest_$name.xml" >"$OUT/gtest_$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  wall=$(host_py -c "print('%.1f' % ($t1 - $t0))")
  res=PASS; [[ $rc -eq 0 ]] || { res=FAIL; FAILS=$((FAILS + 1)); }
  # On a GPU host a skipped test is a failure (a broken parser or an oracle that did not start
  # reads as a skip), unless tests/gpu/allowed_skips.tsv lists it with its reason.
  skipped=$(host_py - "$OUT/gtest_$name.xml" "$BUNDLE/tests/gpu/allowed_skips.tsv" <<'PY'
import sys, xml.etree.ElementTree as ET
allowed = set()
try:
    for line in open(sys.argv[2]):
        if line.strip() and not line.startswith("#"):
            allowed.add(line.split("\t")[0].strip())
except OSError:
    pass
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    sys.exit(0)
for case in root.iter("testcase"):
    name = f'{case.get("classname")}.{case.get("name")}'
    if (case.get("result") == "skipped" or case.find("skipped") is not None) and name not in allowed:
        print(name)
PY
)
  if [[ -n "$skipped" ]]; then
    log "   skipped on a GPU host (not in tests/gpu/allowed_skips.tsv): $(echo "$skipped" | tr '\n' ' ')"
    [[ $res == PASS ]] && FAILS=$((FAILS + 1))
    res=FAIL
  fi
  tail -n 5 "$OUT/gtest_$name.log" >>"$LOG"
  log "   rc=$rc $res (${wall}s)"
  ROWS+=("$name	gtest pass	rc=$rc	$res	$wall	-	-")
done
shopt -u nullglob

# ---- server and worker ----
PORT="$(host_py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ADDR="127.0.0.1:$PORT"
log "== starting kjudge-server on $ADDR (db $TMP/kjudge.sqlite)"
LOGFILE="$OUT/server.log" start_bg "$BUNDLE/bin/kjudge-server" --db "$TMP/kjudge.sqlite" \
  --listen "$ADDR" --problems "$BUNDLE/problems"
SERVER_PID=$BG_PID
up=0
for _ in $(seq 1 120); do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
  if "$BUNDLE/bin/kjudge" --server "$ADDR" problems >"$OUT/problems.txt" 2>&1 </dev/null; then up=1; break; fi
  sleep 0.5
done
if [[ $up -ne 1 ]]; then
  log "FATAL: kjudge-server did not come up; tail of server.log:"
  tail -n 30 "$OUT/server.log" | tee -a "$LOG"
  exit 1
fi
log "server up (pid $SERVER_PID); problems:"
cat "$OUT/problems.txt" >>"$LOG"

log "== starting kjudge-worker"
LOGFILE="$OUT/worker.log" start_bg "$BUNDLE/bin/kjudge-worker" --server "$ADDR" \
  --runner "$BUNDLE/bin/kjudge-runner" --cache-dir "$TMP/cubins"
WORKER_PID=$BG_PID
sleep 2
if ! kill -0 "$WORKER_PID" 2>/dev/null; then
  log "FATAL: kjudge-worker exited at start; tail of worker.log:"
  tail -n 30 "$OUT/worker.log" | tee -a "$LOG"
  exit 1
fi

# ---- the cases ----
declare -A SEEN_LABELS=()
run_case() {  # $1 label, $2 file, $3 problem, $4 expected, $5 check, $6 what
  local label="$1" file="$2" problem="$3" expected="$4" check="$5" what="$6"
  # A case listed more than once (e.g. an example solution after each runner kill) keeps its
  # own answer files: label, label.2, label.3, ...
  local n=$(( ${SEEN_LABELS[$label]:-0} + 1 ))
  SEEN_LABELS[$label]=$n
  [[ $n -gt 1 ]] && label="$label.$n"
  local json="$OUT/cases/$label.json" err="$OUT/cases/$label.stderr" t0 t1 rc wall line
  log "== $label: $file on $problem, expect $expected ($what)"
  t0=$(date +%s.%N)
  timeout "$CASE_TIMEOUT" "$BUNDLE/bin/kjudge" --server "$ADDR" --json submit "$BUNDLE/$file" \
    --problem "$problem" --wait >"$json" 2>"$err" </dev/null
  rc=$?
  t1=$(date +%s.%N)
  wall=$(host_py -c "print('%.2f' % ($t1 - $t0))")
  line="$(host_py "$TMP/judge.py" "$json" "$err" "$expected" "$check" "$rc" </dev/null)" ||
    line="CHECKER_ERROR	FAIL	-	-	judge.py failed"
  IFS=$'\t' read -r got verdict median speedup notes <<<"$line"
  [[ "$verdict" == PASS ]] || FAILS=$((FAILS + 1))
  {
    echo "   exit=$rc wall=${wall}s got=$got -> $verdict median_us=$median best_speedup=$speedup"
    [[ -n "$notes" ]] && echo "   notes: $notes"
    echo "   --- answer (stdout) ---"; head -c 20000 "$json"; echo
    echo "   --- stderr ---"; tail -n 20 "$err"
  } >>"$LOG"
  echo "   $got -> $verdict (${wall}s)"
  ROWS+=("$label	$expected	$got	$verdict	$wall	$median	$speedup")
}

log "== manifest $MANIFEST"
while IFS=$'\t' read -r file problem expected what check; do
  [[ -z "$file" || "$file" == \#* || "$file" == file ]] && continue
  check="${check:--}"
  if [[ "$file" == problems/*/solution.cu && "$what" == *"submitted twice"* ]]; then
    base="$(basename "$(dirname "$file")")_solution"
    run_case "$base.cold" "$file" "$problem" "$expected" "$check" "$what"
    run_case "$base.warm" "$file" "$problem" "$expected" "$check" "$what"
  elif [[ "$file" == problems/*/solution.cu ]]; then
    run_case "$(basename "$(dirname "$file")")_solution" "$file" "$problem" "$expected" "$check" "$what"
  else
    run_case "$(basename "$file" .cu)" "$file" "$problem" "$expected" "$check" "$what"
  fi
done < <(tr -d '\r' <"$MANIFEST")

# The server never goes down because of a submission; the worker survives its runner.
for p in server:$SERVER_PID worker:$WORKER_PID; do
  name="${p%%:*}"; pid="${p#*:}"
  if kill -0 "$pid" 2>/dev/null; then st=PASS; else st=FAIL; FAILS=$((FAILS + 1)); fi
  ROWS+=("$name still running	alive	$([[ $st == PASS ]] && echo alive || echo dead)	$st	-	-	-")
done

# ---- the table, last ----
{
  echo
  printf '%-40s %-40s %-16s %-5s %9s %12s %8s\n' case expected got result wall_s median_us speedup
  for r in "${ROWS[@]}"; do
    IFS=$'\t' read -r c e g v w m s <<<"$r"
    printf '%-40s %-40s %-16s %-5s %9s %12s %8s\n' "$c" "$e" "$g" "$v" "$w" "$m" "$s"
  done
  echo
  if [[ $FAILS -eq 0 ]]; then echo "ALL PASSED (${#ROWS[@]} checks); logs in $OUT"
  else echo "$FAILS FAILED of ${#ROWS[@]} checks; details in $LOG"; fi
} | tee -a "$LOG"
[[ $FAILS -eq 0 ]]
