#!/usr/bin/env bash
# Load benchmark: one kjudge-server, W compile-only workers, C concurrent clients submitting J
# jobs over loopback. Prints the latencies (p50/p99), whether every job was accounted for, and
# the server's peak memory.  Usage: bench/load/run.sh [BUILD_DIR] [CLIENTS] [JOBS] [WORKERS] [--same-source]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}; CLIENTS=${2:-64}; JOBS=${3:-2000}; WORKERS=${4:-4}; shift $(( $# < 4 ? $# : 4 ))
# Further arguments go to kjudge-bench-load (e.g. --same-source).
work=$(mktemp -d /tmp/kjudge-load.XXXXXX)
port=$((20000 + RANDOM % 20000)); addr=127.0.0.1:$port
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
# Rate limits are per key and auth is off here: lift them so the benchmark measures the server.
"$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --listen "$addr" --problems problems --submit-rate 0 \
  --max-active-jobs-per-key 0 --log-level warn >"$work/server.log" 2>&1 &
server=$!; pids+=("$server")
for _ in $(seq 200); do grep -q "listening" "$work/server.log" 2>/dev/null && break; sleep 0.1; done
grep -q "listening" "$work/server.log" || { sleep 2; }
for w in $(seq "$WORKERS"); do
  "$BUILD/bin/kjudge-worker" --server "$addr" --compile-only --cache-dir "$work/cubins-$w" --log-level warn \
    >"$work/worker-$w.log" 2>&1 &
  pids+=("$!")
done
rss_before=$(awk '/VmRSS/ {print $2}' /proc/$server/status)
"$BUILD/bin/kjudge-bench-load" --server "$addr" --source problems/level1/19_ReLU/solution.cu \
  --clients "$CLIENTS" --jobs "$JOBS" "$@"
echo "server memory: RSS $((rss_before / 1024)) MiB at start, peak $(( $(awk '/VmHWM/ {print $2}' /proc/$server/status) / 1024 )) MiB," \
  "now $(( $(awk '/VmRSS/ {print $2}' /proc/$server/status) / 1024 )) MiB"
echo "machine: $(nproc) cores; $WORKERS compile-only workers (real NVRTC) on the same machine"
