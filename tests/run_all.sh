#!/usr/bin/env bash
# The whole test suite, as CI runs it (no GPU needed; GPU tests skip with a message):
#   1. build with -Werror and run every test (unit + end-to-end over loopback);
#   2. build the server, worker, CLI and their tests with ASan + UBSan and run them again;
#   3. libFuzzer (clang, ASan + UBSan) on the launch-plan, expression and problem-spec parsers and
#      on untrusted messages (a client's SubmitRequest, a worker's JobResult), 40 s each, one per core;
#   4. clang-tidy over kjudge's own sources (started after step 1's build, at idle priority).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
jobs=$(nproc)

echo "== build (Release, -Werror) =="
# -O2 without -g: the code of the default RelWithDebInfo (-O2 -g), a third less compile time
# (a gRPC-heavy test file: 8.9 s against 12.5 s here); CI reads no debug info (the sanitizer
# tree below has it, for its reports). Not CMake's Release flags: -O3 makes GCC 12 warn
# -Wrestrict falsely inside libstdc++ (char_traits.h), an error under -Werror.
cmake -S . -B build-ci -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DKJUDGE_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
# clang-tidy needs only build-ci's compile commands and generated headers, so it starts now and runs
# at idle priority (SCHED_IDLE: only on cycles nothing else wants) through the test stages, which
# wait on sockets and child processes much of the time; its findings are printed at the end.
tidy_log=$(mktemp /tmp/kjudge-tidy-stage.XXXXXX)
idle=(nice -n 19)
chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0 nice -n 19)
# setsid gives it a session, so a process group to kill, and with it a scheduler autogroup of its
# own (CONFIG_SCHED_AUTOGROUP, on in Debian's kernels): autogroups split the CPU evenly whatever
# the nice or policy inside them, so at SCHED_IDLE alone clang-tidy still took half of the 2
# cores from the builds (seen with top: 50% each). The autogroup gets nice 19 too.
# shellcheck disable=SC2016  # $@ belongs to the inner bash
setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null; exec "$@"' _ "${idle[@]}" \
  bash tests/clang_tidy.sh build-ci >"$tidy_log" 2>&1 &
tidy_pid=$!
# A failing stage ends the run: clang-tidy (its own process group) goes with it.
trap 'kill -- -"$tidy_pid" 2>/dev/null || true' EXIT
echo "== tests =="
(cd build-ci && ctest --output-on-failure -j"$jobs" --timeout 600)

echo "== sanitizers (ASan + UBSan: server, worker, CLI, common) =="
# The runner links CUDA, which does not run under ASan; the end-to-end tests use the one from
# the build above.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKJUDGE_SANITIZE=ON -DKJUDGE_BUILD_RUNNER=OFF \
  -DKJUDGE_BUILD_BENCH=OFF -DKJUDGE_EXTERNAL_RUNNER="$PWD/build-ci/bin/kjudge-runner" >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j"$jobs" --timeout 900)

echo "== fuzzing (bounded) =="
bash tests/fuzz/run_fuzzers.sh 40

echo "== clang-tidy (started after the first build) =="
tidy_status=0
wait "$tidy_pid" || tidy_status=$?
cat "$tidy_log"
exit "$tidy_status"
