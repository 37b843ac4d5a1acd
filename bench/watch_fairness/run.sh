#!/usr/bin/env bash
# Watch fairness benchmark (issue 25): one kjudge-server (auth on), tenant A's 5,000 queued GPU
# jobs all watched on 5 WatchJobs streams, tenant B's compile-only jobs completed one at a time
# by a stub worker; prints B's DONE latency p50/p99/max and the server's CPU, without and with
# A's streams open.
# Usage: bench/watch_fairness/run.sh [BUILD_DIR] [WATCHED] [ROUNDS] [extra kjudge-server flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}; WATCHED=${2:-5000}; ROUNDS=${3:-100}; shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d /tmp/kjudge-watch-fairness.XXXXXX)
port=$((20000 + RANDOM % 20000)); addr=127.0.0.1:$port
server=""
cleanup() { [ -n "$server" ] && kill -TERM "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for role in submitter submitter worker; do
  "$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --log-level warn keys create "bench-$role" --role "$role" \
    2>/dev/null >>"$work/keys"
done
# Submit rate limits are per key: lifted so that A's jobs go in quickly. The active-job cap
# (5,000 by default) must hold A's jobs.
"$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --listen "$addr" --problems problems --require-auth \
  --submit-rate 0 --max-active-jobs-per-key "$(( WATCHED > 5000 ? WATCHED : 5000 ))" --log-level warn "$@" \
  >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q "listening" "$work/server.log" 2>/dev/null && break; sleep 0.1; done
"$BUILD/bin/kjudge-bench-watch-fairness" --server "$addr" --source problems/level1/19_ReLU/solution.cu \
  --keys-file "$work/keys" --watched "$WATCHED" --rounds "$ROUNDS" --server-pid "$server"
echo "machine: $(nproc) cores"
