#!/usr/bin/env bash
# The main job, locally: build kjudge, start a server on a fresh SQLite file and one worker,
# submit the example ReLU kernel, print its verdict, and stop everything cleanly.
# With a GPU the kernel is compiled, checked and timed; without one the worker runs in
# compile-only mode and the job is a compile-only job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJUDGE_BUILD_TESTS=OFF -DKJUDGE_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target kjudge-server kjudge-worker kjudge-runner kjudge-compiler kjudge

work=$(mktemp -d /tmp/kjudge-demo.XXXXXX)
port=${KJUDGE_PORT:-50051}
addr=127.0.0.1:$port
cleanup() {
  [ -n "${worker_pid:-}" ] && kill -TERM "$worker_pid" 2>/dev/null && wait "$worker_pid" 2>/dev/null || true
  [ -n "${server_pid:-}" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
}
trap cleanup EXIT

"$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --listen "$addr" --problems problems >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do "$BUILD/bin/kjudge" --server "$addr" problems >/dev/null 2>&1 && break; sleep 0.1; done
"$BUILD/bin/kjudge-worker" --server "$addr" --cache-dir "$work/cubins" >"$work/worker.log" 2>&1 &
worker_pid=$!

mode=()
for _ in $(seq 100); do grep -q "registered with" "$work/worker.log" && break; sleep 0.1; done
if grep -q "compile-only mode" "$work/worker.log"; then
  echo "note: no GPU here, so the worker only compiles; the example is submitted as a compile-only job"
  mode=(--compile-only)
fi
"$BUILD/bin/kjudge" --server "$addr" problems
set +e
"$BUILD/bin/kjudge" --server "$addr" submit problems/level1/19_ReLU/solution.cu --problem level1/19_ReLU --wait "${mode[@]}"
code=$?
set -e
echo "logs and database: $work"
exit $code
