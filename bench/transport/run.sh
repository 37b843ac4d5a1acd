#!/usr/bin/env bash
# Transport benchmark (issue 25), loopback only, about 2.5 minutes with the defaults:
#   1. kjudge-server held to 1,024 descriptors (prlimit): 1,500 silent connections, then health
#      calls on fresh connections (target: a call succeeds within 2 s);
#   2. the same server: an attacker re-opens 1,000 silent sockets every PERIOD s for DURATION s
#      while a client calls every 2 s (target: >= 95% succeed; the issue: 1 of 49);
#   3. kjudge-server with --require-auth: 100 concurrent unauthenticated 15 MiB Submits (RSS
#      before/peak/after; the issue: 42 -> 335 MiB), then 200 invalid-UTF-8 Submits and the
#      number of log lines they wrote (the issue: 200).
# Usage: bench/transport/run.sh [BUILD_DIR] [PERIOD_S] [DURATION_S] [extra kjudge-server flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}; PERIOD=${2:-29}; DURATION=${3:-100}; shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d /tmp/kjudge-transport.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill -TERM "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
start() {  # start LOG ARGS...: the server in the background; waits until it listens
  local log=$1; shift
  port=$((20000 + RANDOM % 20000)); addr=127.0.0.1:$port
  "$@" --listen "$addr" --problems problems >"$log" 2>&1 &
  server=$!
  for _ in $(seq 200); do grep -q "listening on" "$log" 2>/dev/null && break; sleep 0.1; done
}
stop() { kill -TERM "$server"; wait "$server" 2>/dev/null || true; server=""; }

start "$work/limited.log" prlimit --nofile=1024:1024 "$BUILD/bin/kjudge-server" --db "$work/a.sqlite" "$@"
"$BUILD/bin/kjudge-bench-transport" silent --server "$addr" --connections 1500 --addresses 30
"$BUILD/bin/kjudge-bench-transport" silent --server "$addr" --connections 1500 --addresses 1
"$BUILD/bin/kjudge-bench-transport" rotate --server "$addr" --connections 1000 --addresses 20 \
  --period-s "$PERIOD" --duration-s "$DURATION" --call-every-ms 2000
echo "server (1,024 descriptors) log: $(grep -c . "$work/limited.log") lines; warnings: $(grep -c warn "$work/limited.log" || true)"
stop

start "$work/auth.log" "$BUILD/bin/kjudge-server" --db "$work/b.sqlite" --require-auth "$@"
sleep 1
"$BUILD/bin/kjudge-bench-transport" memory --server "$addr" --server-pid "$server" --requests 100 --mib 15
before=$(grep -c . "$work/auth.log")
"$BUILD/bin/kjudge-bench-transport" utf8 --server "$addr" --requests 200
sleep 0.5
echo "utf8: the server wrote $(( $(grep -c . "$work/auth.log") - before )) log lines for them" \
     "($(grep -c 'protobuf' "$work/auth.log" || true) from protobuf)"
stop
echo "machine: $(nproc) cores"
