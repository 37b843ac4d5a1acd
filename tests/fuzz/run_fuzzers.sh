#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time,
# seeded with the catalog's plans and specs. Any crash, leak or property failure fails.
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJUDGE_FUZZ=ON \
  -DKJUDGE_SANITIZE=ON >/dev/null
# Each target and the corpus folder it starts from (seeds are copied there below).
TARGETS=(launch_plan:plan expression:expression problem_spec:spec untrusted_messages:messages ptxas_report:ptxas
         compile_protocol:compile_protocol message_channel:message_channel dashboard_query:dashboard_query)
names=("${TARGETS[@]%%:*}")
cmake --build build-fuzz -j"$(nproc)" --target "${names[@]/#/fuzz_}"
corpus=$(mktemp -d /tmp/kjudge-fuzz.XXXXXX)
for pair in "${TARGETS[@]}"; do mkdir -p "$corpus/${pair##*:}"; done
# Seeds for the untrusted messages: a first byte 0 (SubmitRequest) or 1 (JobResult), then the
# serialized message, made with the Python client's committed stubs (Debian's python3 has grpcio
# and protobuf; without them the target starts from nothing).
/usr/bin/python3 - "$corpus/messages" <<'PY' || echo "(no seeds for fuzz_untrusted_messages: /usr/bin/python3 lacks grpcio)"
import sys
sys.path.insert(0, "clients/python")
from kjudge.v1 import kjudge_pb2 as pb
out = sys.argv[1]
submit = pb.SubmitRequest(problem="level1/19_ReLU", source="__global__ void k(){}", filename="solution.cu",
                          tags={"run": "r1", "model": "m\u00e9"}, idempotency_key="abc")
result = pb.JobResult(verdict=pb.WRONG_ANSWER, message="out[3] differs", compile_log="warning: x" * 50,
                      flags=["throttled: 1", "speedup_over_10x: x"], candidate_output="hello\n",
                      tests=[pb.TestOutcome(shape="M=3", detail="max error 1e-2",
                                            first_mismatches=[pb.Mismatch(tensor="y")])])
open(f"{out}/submit", "wb").write(b"\x00" + submit.SerializeToString())
open(f"{out}/result", "wb").write(b"\x01" + result.SerializeToString())
PY
cp tests/fuzz/corpus/plan/* "$corpus/plan/"
cp tests/fuzz/corpus/expression/* "$corpus/expression/"
cp tests/fuzz/corpus/ptxas/* "$corpus/ptxas/"
cp tests/fuzz/corpus/compile_protocol/* "$corpus/compile_protocol/"
cp tests/fuzz/corpus/message_channel/* "$corpus/message_channel/"
cp tests/fuzz/corpus/dashboard_query/* "$corpus/dashboard_query/"
i=0
for spec in $(find problems -name problem.toml | sort); do
  cp "$spec" "$corpus/spec/$((i++)).toml"
  # The plan block of each example is a plan seed too.
  example="$(dirname "$spec")/solution.cu"
  [ -f "$example" ] && sed -n '/kjudge-plan/,/\*\//p' "$example" | sed '1d;$d' >"$corpus/plan/example$i.txt"
done
# Targets run side by side, one per core (each libFuzzer process is single-threaded), so the stage
# costs ceil(targets / cores) * SECONDS instead of targets * SECONDS.
run_target() {  # target corpus-subdir; leaves $corpus/<target>.failed when the target fails
  local target=$1 dir=$corpus/$2
  if build-fuzz/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$corpus/$target-" "$dir" 2>"$corpus/$target.log"; then
    echo "== fuzz_$target for ${seconds}s: ok ($(grep -oE 'Done [0-9]+ runs' "$corpus/$target.log" | tail -1))"
  else
    touch "$corpus/$target.failed"
    echo "== fuzz_$target for ${seconds}s: FAILED; last lines:"; tail -40 "$corpus/$target.log"
  fi
}
for pair in "${TARGETS[@]}"; do
  while (( $(jobs -rp | wc -l) >= $(nproc) )); do wait -n || true; done
  run_target "${pair%%:*}" "${pair##*:}" &
done
wait
if compgen -G "$corpus/*.failed" > /dev/null; then
  echo "fuzzing failed; inputs that crashed are kept in $corpus"
  exit 1
fi
rm -rf "$corpus"
