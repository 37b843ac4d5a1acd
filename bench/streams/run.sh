#!/usr/bin/env bash
# Streams benchmark: one kjudge-server (auth on, KEYS submitter keys, no worker) and
# kjudge-bench-streams, which opens STREAMS WatchJob streams spread over the keys and prints
# Submit latency p50/p99 with no stream open and with them open, and the server's threads.
# Usage: bench/streams/run.sh [BUILD_DIR] [STREAMS] [KEYS] [extra kjudge-server flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}; STREAMS=${2:-4000}; KEYS=${3:-20}; shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d /tmp/kjudge-streams.XXXXXX)
port=$((20000 + RANDOM % 20000)); addr=127.0.0.1:$port
server=""
cleanup() { [ -n "$server" ] && kill -TERM "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for k in $(seq "$KEYS"); do
  "$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --log-level warn keys create "bench-$k" --role submitter \
    2>/dev/null >>"$work/keys"
done
# Submit rate limits are per key: lifted so the benchmark measures the server, not the limiter.
# Each stream is a descriptor: the server raises its soft limit to the hard one at start.
"$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --listen "$addr" --problems problems --require-auth \
  --submit-rate 0 --log-level warn "$@" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q "listening" "$work/server.log" 2>/dev/null && break; sleep 0.1; done
"$BUILD/bin/kjudge-bench-streams" --server "$addr" --source problems/level1/19_ReLU/solution.cu \
  --keys-file "$work/keys" --streams "$STREAMS" --server-pid "$server"
echo "server memory: peak RSS $(( $(awk '/VmHWM/ {print $2}' /proc/$server/status) / 1024 )) MiB"
echo "machine: $(nproc) cores; descriptors: $(ulimit -n) soft, $(ulimit -Hn) hard for this shell"
