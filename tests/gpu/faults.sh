#!/usr/bin/env bash
# GPU fault checks, from a bundle:  dist/kjudge/tests/gpu/faults.sh OUT_DIR
#  1. the runner is killed (SIGKILL) while it is timing a job: the worker hands the job back,
#     starts a fresh runner, and the job is judged again (expect CORRECT, attempts 2);
#  2. a kernel that faults (illegal address) on every run: RUNTIME_ERROR after one attempt, no
#     retries, and the next job is served;
#  3. that job's source comes back from `kjudge job N --source` byte for byte.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
ORIG_LD="${LD_LIBRARY_PATH:-}"
source "$BUNDLE/env.sh"
host_py() { if [[ -n "$ORIG_LD" ]]; then LD_LIBRARY_PATH="$ORIG_LD" python3 "$@"; else env -u LD_LIBRARY_PATH python3 "$@"; fi; }
TMP="$(mktemp -d)"
ADDR=127.0.0.1:$((20000 + RANDOM % 20000))
cleanup() { kill -TERM $WORKER_PID $SERVER_PID 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
"$BUNDLE/bin/kjudge-server" --db "$TMP/db.sqlite" --listen "$ADDR" --problems "$BUNDLE/problems" --lease-seconds 5 \
  >"$OUT/faults_server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 200); do grep -q "listening on" "$OUT/faults_server.log" && break; sleep 0.1; done
"$BUNDLE/bin/kjudge-worker" --server "$ADDR" --cache-dir "$TMP/cubins" --time-budget-ms 4000 >"$OUT/faults_worker.log" 2>&1 &
WORKER_PID=$!
K=("$BUNDLE/bin/kjudge" --server "$ADDR" --json)
field() { host_py -c "import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }
fail=0

echo "== 1. runner killed mid-timing"
id=$("${K[@]}" submit "$BUNDLE/problems/level1/19_ReLU/solution.cu" --problem level1/19_ReLU | field 'j["id"]')
stage=""
for _ in $(seq 600); do
  stage=$("${K[@]}" job "$id" | field 'j["stage"]')
  [[ "$stage" == STAGE_TIMING ]] && break
  sleep 0.05
done
# The judge runner, not the compile-only one the worker also starts (its command line says
# --compile-only): killing that one would leave the job running untouched.
runner=""
for pid in $(pgrep -f "kjudge-runner.*$TMP/cubins"); do
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--compile-only" || { runner=$pid; break; }
done
[[ -n "$runner" ]] || { echo "FAIL: no judge runner found"; exit 1; }
echo "job $id reached $stage; killing runner pid $runner"
kill -9 "$runner"
"${K[@]}" job "$id" --wait --timeout 300 >"$OUT/faults_job1.json"
summary=$(field '"%s attempts=%s: %s" % (j["result"]["verdict"], j["attempts"], j["result"]["message"][:100])' <"$OUT/faults_job1.json")
echo "job $id: $summary"
[[ "$summary" == "CORRECT attempts=2"* ]] || { echo "FAIL: expected CORRECT after a second attempt"; fail=1; }
grep -E "handed back|runner ready" "$OUT/faults_worker.log" | tail -3

echo "== 2. a kernel that faults on every run"
id=$("${K[@]}" submit "$BUNDLE/tests/gpu/cases/relu_oob_write.cu" --problem level1/19_ReLU | field 'j["id"]')
"${K[@]}" job "$id" --wait --timeout 300 >"$OUT/faults_job2.json"
summary=$(field '"%s attempts=%s: %s" % (j["result"]["verdict"], j["attempts"], j["result"]["cuda_error"][:80])' <"$OUT/faults_job2.json")
echo "job $id: $summary"
[[ "$summary" == "RUNTIME_ERROR attempts=1"* ]] || { echo "FAIL: expected RUNTIME_ERROR on the first attempt"; fail=1; }
id=$("${K[@]}" submit "$BUNDLE/problems/level1/23_Softmax/solution.cu" --problem level1/23_Softmax | field 'j["id"]')
verdict=$("${K[@]}" job "$id" --wait --timeout 300 | field 'j["result"]["verdict"]')
echo "next job $id: $verdict"
[[ "$verdict" == CORRECT ]] || { echo "FAIL: the next job was not served correctly"; fail=1; }

echo "== 3. a judged job's source comes back byte for byte (kjudge job N --source)"
"$BUNDLE/bin/kjudge" --server "$ADDR" job "$id" --source >"$TMP/back.cu"
if cmp "$TMP/back.cu" "$BUNDLE/problems/level1/23_Softmax/solution.cu"; then
  echo "job $id --source: identical ($(wc -c <"$TMP/back.cu") bytes)"
else
  echo "FAIL: job $id --source differs from the submitted file"; fail=1
fi
[[ $fail == 0 ]] && echo "faults: ALL PASSED" || echo "faults: FAILED"
exit $fail
