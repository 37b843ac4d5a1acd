#!/usr/bin/env bash
# The main job, locally: build kjudge, start a server on a fresh SQLite file, one worker and the
# dashboard (its URL is printed), submit the example ReLU kernel, print its verdict, and stop
# everything cleanly. KJUDGE_DEMO_KEEP=1 (or an interactive terminal) keeps the server and the
# dashboard up after the verdict until Enter is pressed, to look around in the browser.
# With a GPU the kernel is compiled, checked and timed; without one the worker runs in
# compile-only mode and the job is a compile-only job.
# `deploy/demo.sh --print-targets` prints the CMake targets it builds and exits (CI checks them).
set -euo pipefail
cd "$(dirname "$0")/.."
# Every binary the worker and the runner exec (deploy/exec-binaries.txt), plus the ones started here.
mapfile -t exec_binaries < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' deploy/exec-binaries.txt)
targets=(kjudge-server kjudge-worker "${exec_binaries[@]}" kjudge kjudge-dashboard)
if [ "${1:-}" = --print-targets ]; then printf '%s\n' "${targets[@]}"; exit 0; fi
bash deploy/install-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJUDGE_BUILD_TESTS=OFF -DKJUDGE_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]}"

work=$(mktemp -d /tmp/kjudge-demo.XXXXXX)
port=${KJUDGE_PORT:-50051}
addr=127.0.0.1:$port
dashboard_addr=127.0.0.1:${KJUDGE_DASHBOARD_PORT:-8080}
cleanup() {
  [ -n "${dashboard_pid:-}" ] && kill -TERM "$dashboard_pid" 2>/dev/null && wait "$dashboard_pid" 2>/dev/null || true
  [ -n "${worker_pid:-}" ] && kill -TERM "$worker_pid" 2>/dev/null && wait "$worker_pid" 2>/dev/null || true
  [ -n "${server_pid:-}" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
}
trap cleanup EXIT

"$BUILD/bin/kjudge-server" --db "$work/kjudge.sqlite" --listen "$addr" --problems problems >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do "$BUILD/bin/kjudge" --server "$addr" problems >/dev/null 2>&1 && break; sleep 0.1; done
# The dashboard reads the same file (read-only); the server has created it by now.
"$BUILD/bin/kjudge-dashboard" --db "$work/kjudge.sqlite" --problems problems --listen "$dashboard_addr" \
  >"$work/dashboard.log" 2>&1 &
dashboard_pid=$!
for _ in $(seq 50); do grep -q "kjudge-dashboard: http" "$work/dashboard.log" && break; sleep 0.1; done
if grep -q "kjudge-dashboard: http" "$work/dashboard.log"; then
  echo "dashboard: http://$dashboard_addr/ (queue, workers, every job and leaderboard)"
else
  echo "note: the dashboard did not start (see $work/dashboard.log); set KJUDGE_DASHBOARD_PORT if $dashboard_addr is taken"
fi
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
if grep -q "kjudge-dashboard: http" "$work/dashboard.log" && { [ "${KJUDGE_DEMO_KEEP:-}" = 1 ] || [ -t 0 ]; }; then
  echo "the job's page: http://$dashboard_addr/jobs/1 ; press Enter to stop the server, worker and dashboard"
  read -r _ || true
fi
exit $code
