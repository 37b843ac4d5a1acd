#!/usr/bin/env bash
# The server's own ceiling (issue 32, docs/scale.md): a real kjudge-server (auth on, real
# SQLite WAL file, loopback gRPC) with JOBS finished jobs already stored, driven by CLIENTS
# submitting threads and WORKERS fake GPU workers (kjudge-bench-server-scale drive) for SECONDS
# per phase: submit only, work only (lease + 4 progress reports + complete), both at once.
#   bash bench/server_scale/run.sh [BUILD] [JOBS] [CLIENTS] [WORKERS] [SECONDS]
# Steps: a template (a real server judges TEMPLATE_S seconds of submissions with the fake
# workers until its queue is empty), grown to JOBS stored jobs (kjudge-bench-server-scale grow),
# then a fresh server process on that file is measured. Exit 1 when an RPC failed.
# Env: TEMPLATE_S (default 2), SCALE_TMPDIR (where the database lives; default /tmp).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}; JOBS=${2:-100000}; CLIENTS=${3:-16}; WORKERS=${4:-16}; SECONDS_PER_PHASE=${5:-20}
TEMPLATE_S=${TEMPLATE_S:-2}
bench="$BUILD/bin/kjudge-bench-server-scale"; server_bin="$BUILD/bin/kjudge-server"
work=$(mktemp -d "${SCALE_TMPDIR:-/tmp}/kjudge-scale.XXXXXX")  # SCALE_TMPDIR=/dev/shm: no fsync cost
server=""
stop_server() {
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  server=""
}
trap 'stop_server; rm -rf "$work"' EXIT
key() {  # role -> key file
  "$server_bin" --db "$work/kjudge.sqlite" --json keys create "bench-$1" --role "$1" 2>/dev/null |
    sed -n 's/.*"key": *"\([^"]*\)".*/\1/p' >"$work/$1.key"
  [ -s "$work/$1.key" ] || { echo "run.sh: could not create a $1 key" >&2; exit 1; }
}
start_server() {  # log name
  local port=$((20000 + RANDOM % 20000))
  addr=127.0.0.1:$port
  # Rate limit and active-job cap lifted: the benchmark measures the server, not its quotas.
  "$server_bin" --db "$work/kjudge.sqlite" --listen "$addr" --problems problems --require-auth --submit-rate 0 \
    --max-active-jobs-per-key 0 --log-level warn >"$work/$1" 2>&1 &
  server=$!
  for _ in $(seq 200); do  # --log-level warn prints no "listening": wait for the port
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.05
  done
  echo "run.sh: kjudge-server did not start:" >&2; cat "$work/$1" >&2; exit 1
}
drive() {
  "$bench" drive --server "$addr" --source problems/level1/19_ReLU/solution.cu --submit-key-file "$work/submitter.key" \
    --worker-key-file "$work/worker.key" --clients "$CLIENTS" --workers "$WORKERS" --server-pid "$server" "$@"
}
key submitter; key worker
start_server template.log
echo "template: $TEMPLATE_S s of submissions, judged by $WORKERS fake workers"
drive --seconds "$TEMPLATE_S" --drain
stop_server
t0=$(date +%s%N)
"$bench" grow --db "$work/kjudge.sqlite" --jobs "$JOBS" 2>"$work/grow.log" || { cat "$work/grow.log" >&2; exit 1; }
echo "grown to $JOBS stored jobs in $(( ($(date +%s%N) - t0) / 1000000 )) ms; file $(du -m "$work/kjudge.sqlite" | cut -f1) MiB"
start_server server.log
echo "measured: $CLIENTS clients, $WORKERS fake GPU workers, $SECONDS_PER_PHASE s per phase, $JOBS jobs stored at start"
drive --seconds "$SECONDS_PER_PHASE"
echo "server peak RSS $(( $(awk '/VmHWM/ {print $2}' /proc/$server/status) / 1024 )) MiB; machine: $(nproc) cores" \
  "(the clients, workers and server share them), load average $(cut -d' ' -f1-3 /proc/loadavg)"
