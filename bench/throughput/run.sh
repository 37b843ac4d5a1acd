#!/usr/bin/env bash
# kjudge throughput: N distinct submissions over the ReLU, Softmax and GEMM examples, judged by
# one worker per GPU. Run it from a bundle made by deploy/pack.sh, on a GPU host:
#
#   dist/kjudge/bench/throughput/run.sh OUT_DIR [N]        (N defaults to 60)
#
# 1. Starts kjudge-server (fresh SQLite in a temp dir) and one kjudge-worker per GPU.
# 2. Cold submit-to-verdict: each example submitted once with `kjudge submit --wait`, timed
#    from the CLI's start to its exit (new cubin, baselines measured: what a new problem costs).
# 3. Throughput: N distinct sources (the examples with a `// variant k` line appended, so each
#    is a new cubin: nothing is cached but the baselines) submitted all at once; wall time from
#    the first submit to the last verdict. GPU utilisation is sampled with nvidia-smi every
#    100 ms over that window.
# Prints verdicts per hour per GPU, mean GPU utilisation and the cold times; writes
# OUT_DIR/{throughput.json,server.log,worker*.log,util.csv}.
# KJUDGE_BIN_DIR=DIR takes the binaries from DIR instead (e.g. an older bundle's bin/, to measure
# before and after on the same GPU), and KJUDGE_PROBLEMS_DIR=DIR the catalog that goes with them.
# KJUDGE_WORKER_ARGS="..." adds arguments to every kjudge-worker (e.g. "--compile-ahead off").
# KJUDGE_GPUS=N uses only devices 0..N-1 (e.g. 1 on a multi-GPU host whose other GPUs are busy,
# to compare with a one-GPU host).
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR [N]" >&2; exit 2; }
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${2:-60}"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
ORIG_LD="${LD_LIBRARY_PATH:-}"
# shellcheck source=/dev/null
source "$BUNDLE/env.sh"
BIN="${KJUDGE_BIN_DIR:-$BUNDLE/bin}"
PROBLEMS="${KJUDGE_PROBLEMS_DIR:-$BUNDLE/problems}"
host_py() { if [[ -n "$ORIG_LD" ]]; then LD_LIBRARY_PATH="$ORIG_LD" python3 "$@"; else env -u LD_LIBRARY_PATH python3 "$@"; fi; }
TMP="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done; sleep 1; rm -rf "$TMP"; }
trap cleanup EXIT

PORT=$((20000 + RANDOM % 20000))
ADDR="127.0.0.1:$PORT"
setsid "$BIN/kjudge-server" --db "$TMP/kjudge.sqlite" --listen "$ADDR" \
  --problems "$PROBLEMS" --submit-rate 100000 --submit-burst 100000 \
  >"$OUT/server.log" 2>&1 </dev/null & PIDS+=($!)
for _ in $(seq 1 100); do "$BIN/kjudge" --server "$ADDR" problems >/dev/null 2>&1 && break; sleep 0.1; done
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 0)
((GPUS > 0)) || { echo "no GPU" >&2; exit 1; }
if [[ -n "${KJUDGE_GPUS:-}" ]]; then
  [[ "$KJUDGE_GPUS" =~ ^[1-9][0-9]*$ && $KJUDGE_GPUS -le $GPUS ]] ||
    { echo "KJUDGE_GPUS=$KJUDGE_GPUS: give a count from 1 to the host's $GPUS GPUs" >&2; exit 2; }
  GPUS=$KJUDGE_GPUS
fi
for g in $(seq 0 $((GPUS - 1))); do
  setsid "$BIN/kjudge-worker" --server "$ADDR" --device "$g" \
    --runner "$BIN/kjudge-runner" --cache-dir "$TMP/cubins" ${KJUDGE_WORKER_ARGS:-} \
    >"$OUT/worker$g.log" 2>&1 </dev/null & PIDS+=($!)
done
for _ in $(seq 1 600); do
  [[ $(grep -c "registered with" "$OUT"/worker*.log 2>/dev/null | awk -F: '{s+=$2} END {print s+0}') -ge $GPUS ]] && break
  sleep 0.1
done

EXAMPLES=(level1/19_ReLU level1/23_Softmax level1/1_Square_matrix_multiplication_)
declare -A COLD
for p in "${EXAMPLES[@]}"; do
  t0=$(date +%s.%N)
  "$BIN/kjudge" --server "$ADDR" --json submit "$PROBLEMS/$p/solution.cu" \
    --problem "$p" --wait >"$TMP/cold.json" 2>&1
  t1=$(date +%s.%N)
  COLD[$p]=$(awk "BEGIN {printf \"%.2f\", $t1 - $t0}")
  echo "cold $p: ${COLD[$p]} s ($(grep -o '"verdict": *"[A-Z_]*"' "$TMP/cold.json" | head -1))"
done

for k in $(seq 1 "$N"); do
  p="${EXAMPLES[$(( (k - 1) % 3 ))]}"
  { cat "$PROBLEMS/$p/solution.cu"; echo "// variant $k $RANDOM"; } >"$TMP/v$k.cu"
done
nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 100 \
  >"$OUT/util.csv" 2>/dev/null & UTIL_PID=$!
start=$(date +%s.%N)
: >"$TMP/ids"
SUBMITS=()
for k in $(seq 1 "$N"); do
  p="${EXAMPLES[$(( (k - 1) % 3 ))]}"
  "$BIN/kjudge" --server "$ADDR" --json submit "$TMP/v$k.cu" --problem "$p" \
    >"$TMP/s$k.json" 2>&1 & SUBMITS+=($!)
done
wait "${SUBMITS[@]}"
for k in $(seq 1 "$N"); do
  host_py -c 'import json,sys; d=json.load(open(sys.argv[1])); j=d.get("job",d); print(j.get("id",""))' "$TMP/s$k.json" >>"$TMP/ids" 2>/dev/null
done
while true; do
  pending=0
  : >"$TMP/verdicts"
  while read -r id; do
    [[ -n "$id" ]] || continue
    "$BIN/kjudge" --server "$ADDR" --json job "$id" >"$TMP/j.json" 2>/dev/null
    rc=$?
    if ((rc == 4)); then pending=$((pending + 1)); else
      host_py -c 'import json,sys; d=json.load(open(sys.argv[1])); j=d.get("job",d); print(j.get("result",{}).get("verdict","?"), j.get("finished_unix_ms", j.get("finishedUnixMs","0")))' "$TMP/j.json" >>"$TMP/verdicts"
    fi
  done <"$TMP/ids"
  ((pending == 0)) && break
  sleep 0.2
done
kill "$UTIL_PID" 2>/dev/null
host_py - "$start" "$N" "$GPUS" "$TMP/verdicts" "$OUT/util.csv" "$OUT/throughput.json" \
  "${COLD[level1/19_ReLU]}" "${COLD[level1/23_Softmax]}" "${COLD[level1/1_Square_matrix_multiplication_]}" <<'PY'
import json, sys, collections
start, n, gpus = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rows = [l.split() for l in open(sys.argv[4]) if l.strip()]
last = max(int(r[1]) for r in rows) / 1000.0
wall = last - start
verdicts = collections.Counter(r[0] for r in rows)
util = [float(l.split(",")[1]) for l in open(sys.argv[5])  # the GPUs the workers drive
        if "," in l and int(l.split(",")[0]) < gpus]
mean_util = sum(util) / len(util) if util else float("nan")
per_hour = len(rows) / wall * 3600.0 / gpus
out = {"submissions": n, "gpus": gpus, "wall_s": round(wall, 2),
       "verdicts_per_hour_per_gpu": round(per_hour), "mean_gpu_utilisation_percent": round(mean_util, 1),
       "verdicts": dict(verdicts),
       "cold_submit_to_verdict_s": {"ReLU": float(sys.argv[7]), "Softmax": float(sys.argv[8]), "GEMM": float(sys.argv[9])}}
json.dump(out, open(sys.argv[6], "w"), indent=1)
print(f"throughput: {len(rows)} verdicts in {wall:.2f} s on {gpus} GPU(s): {per_hour:.0f} verdicts/hour/GPU, "
      f"mean GPU utilisation {mean_util:.1f}% ({len(util)} samples); verdicts {dict(verdicts)}")
print("cold submit-to-verdict (s): ReLU %s, Softmax %s, GEMM %s" % tuple(sys.argv[7:10]))
PY
