#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time,
# seeded with the catalog's plans and specs. Any crash, leak or property failure fails.
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJUDGE_FUZZ=ON \
  -DKJUDGE_SANITIZE=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_launch_plan fuzz_expression fuzz_problem_spec fuzz_untrusted_messages \
  fuzz_ptxas_report
corpus=$(mktemp -d /tmp/kjudge-fuzz.XXXXXX)
mkdir -p "$corpus/plan" "$corpus/expression" "$corpus/spec" "$corpus/messages" "$corpus/ptxas"
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
i=0
for spec in $(find problems -name problem.toml | sort); do
  cp "$spec" "$corpus/spec/$((i++)).toml"
  # The plan block of each example is a plan seed too.
  example="$(dirname "$spec")/solution.cu"
  [ -f "$example" ] && sed -n '/kjudge-plan/,/\*\//p' "$example" | sed '1d;$d' >"$corpus/plan/example$i.txt"
done
status=0
for pair in launch_plan:plan expression:expression problem_spec:spec untrusted_messages:messages ptxas_report:ptxas; do
  target=${pair%%:*}
  dir=$corpus/${pair##*:}
  echo "== fuzz_$target for ${seconds}s"
  if ! build-fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$corpus/" "$dir" 2>"$corpus/$target.log"; then
    echo "fuzz_$target FAILED; last lines:"; tail -40 "$corpus/$target.log"; status=1
  else
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$corpus/$target.log" | tail -2
  fi
done
[ $status -eq 0 ] && rm -rf "$corpus"
exit $status
