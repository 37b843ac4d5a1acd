#!/usr/bin/env bash
# GPU host only (not in ctest): the deploy files' worker paths on a real GPU, with TLS (issue 32).
#
#   sudo bash tests/deploy/gpu_deploy_check.sh BIN_DIR [GPU_INDEX]
#
# BIN_DIR holds kjudge-server, kjudge-worker, kjudge-runner and kjudge (build/bin or a bundle's
# bin/). Needs root (a mount namespace) and openssl. Checks:
#   A. deploy/slurm/kjudge-worker.sbatch outside Slurm (SLURM_* set by hand, CUDA_VISIBLE_DEVICES
#      = GPU_INDEX) with TLS on by default: its worker finds the GPU (not compile-only) and judges
#      the ReLU solution CORRECT; SIGTERM to the script while a job runs lets that job finish
#      CORRECT, and the script exits 0.
#   B. a worker under what the systemd unit's hardening does that can be reproduced without
#      systemd (NoNewPrivileges, LimitNOFILE, UMask 0027, / read-only but its cache directory, as
#      tests/deploy/check_deploy.py does on CPU) still drives the GPU: CORRECT.
# Prints ok/FAIL lines; exit 0 when all pass.
set -uo pipefail
BIN="$(cd "${1:?usage: $0 BIN_DIR [GPU_INDEX]}" && pwd)"
GPU="${2:-0}"
# A bundle's binaries find their libraries through its env.sh (LD_LIBRARY_PATH); a build tree's
# need nothing.
if [[ -f "$BIN/../env.sh" ]]; then
  # shellcheck disable=SC1091
  source "$BIN/../env.sh"
fi
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$(mktemp -d /tmp/kjudge-gpu-deploy.XXXXXX)"
fail=0
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; fail=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local pids
  mapfile -t pids < <(jobs -p)
  ((${#pids[@]} == 0)) || kill -9 "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
  echo "files in $WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$WORK" || exit 1
PORT=50613

bash "$ROOT/deploy/tls/make-certs.sh" tls 127.0.0.1 > certs.out 2>&1 || { bad "make-certs.sh: $(tail -2 certs.out)"; exit 1; }
key() { "$BIN/kjudge-server" --db kjudge.sqlite keys create "$1" --role "$2" 2>/dev/null | grep -oE '^kj_[0-9a-f]{8}_[0-9a-f]+$' | head -1; }
SUBMITTER=$(key agent submitter)
(umask 077 && key gpu-worker worker > worker.key)
"$BIN/kjudge-server" --db kjudge.sqlite --listen "127.0.0.1:$PORT" --problems "$ROOT/problems" \
  --tls-cert tls/server.pem --tls-key tls/server.key --require-auth > server.log 2>&1 &
for _ in $(seq 1 100); do grep -qs "listening on" server.log && break; sleep 0.1; done
grep -q "listening on" server.log || { bad "server did not start: $(tail -3 server.log)"; exit 1; }
cli() { "$BIN/kjudge" --server "127.0.0.1:$PORT" --tls-ca tls/ca.pem --api-key "$SUBMITTER" "$@"; }
judge() {  # label: submit the ReLU solution, wait, expect CORRECT
  local out="judge-${1//[^A-Za-z0-9]/_}.out"  # the label may hold "/" and spaces
  if timeout 300 "$BIN/kjudge" --server "127.0.0.1:$PORT" --tls-ca tls/ca.pem --api-key "$SUBMITTER" \
      submit "$ROOT/problems/level1/19_ReLU/solution.cu" --problem level1/19_ReLU --wait > "$out" 2>&1; then
    ok "$1: CORRECT"
  else
    bad "$1: $(tail -3 "$out")"
  fi
}

# ---- A: the Slurm script on the GPU, TLS by default ----
mkdir -p bundle/bin
for b in kjudge-worker kjudge-runner; do ln -s "$BIN/$b" "bundle/bin/$b"; done
echo "export PATH=\"\$KJUDGE_HOME/bin:\$PATH\"" > bundle/env.sh
KJUDGE_HOME="$WORK/bundle" KJUDGE_SERVER="127.0.0.1:$PORT" KJUDGE_API_KEY_FILE="$WORK/worker.key" \
  KJUDGE_TLS_CA="$WORK/tls/ca.pem" KJUDGE_LOG_DIR="$WORK/slurm-logs" KJUDGE_CACHE_DIR="$WORK/slurm-cache" \
  SLURM_JOB_ID=gpucheck CUDA_VISIBLE_DEVICES="$GPU" setsid bash "$ROOT/deploy/slurm/kjudge-worker.sbatch" > sbatch.out 2>&1 &
SBATCH_PID=$!
for _ in $(seq 1 300); do grep -qs "registered with" slurm-logs/gpu0.log && break; sleep 0.1; done
if grep -qs "compile-only mode" slurm-logs/gpu0.log; then bad "sbatch worker: compile-only mode on GPU $GPU"; fi
judge "sbatch worker over TLS"
cli submit "$ROOT/problems/level1/19_ReLU/solution.cu" --problem level1/19_ReLU --json > drain-job.json 2>&1
for _ in $(seq 1 200); do grep -qs "job .* leased to" <(tail -n 3 server.log) && break; sleep 0.05; done
kill -TERM "$SBATCH_PID"
wait "$SBATCH_PID"
rc=$?
drain_id=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("id", d.get("job_id")))' drain-job.json 2>/dev/null)
verdict=$(cli --json job "$drain_id" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("result", {}).get("verdict"))' 2>/dev/null)
if ((rc == 0)) && [[ "$verdict" == CORRECT ]]; then
  ok "SIGTERM to the sbatch script mid-job: the job finished CORRECT, script exit 0"
else
  bad "drain: script exit $rc, job $drain_id verdict $verdict (QUEUED is also a fail: the worker took no job); $(tail -3 sbatch.out)"
fi

# ---- B: the systemd unit's reproducible hardening on the GPU ----
mkdir cache
# ProtectSystem=strict (/ read-only but the cache) needs a mount namespace; a container that
# refuses one gets the rest of the hardening, and the line says so.
ro=1
# shellcheck disable=SC2016  # $1 belongs to the inner bash
unshare --mount --propagation private -- bash -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro /' _ "$WORK/cache" \
  2>/dev/null || { ro=0; echo "note  no mount namespace here: / stays writable (ProtectSystem=strict not reproduced)"; }
namespace=(unshare --mount --propagation private --)
((ro)) || namespace=()
# shellcheck disable=SC2016  # $1, $@ belong to the inner bash
"${namespace[@]}" bash -c '
  set -e
  if (($2)); then mount --bind "$1" "$1"; mount -o remount,bind,ro /; fi
  umask 0027
  shift 2
  exec setpriv --no-new-privs prlimit --nofile=65536:65536 -- "$@"' _ "$WORK/cache" "$ro" \
  "$BIN/kjudge-worker" --server "127.0.0.1:$PORT" --tls-ca "$WORK/tls/ca.pem" --api-key-file "$WORK/worker.key" \
  --device "$GPU" --cache-dir "$WORK/cache" --name hardened > hardened.log 2>&1 &
HARDENED=$!
for _ in $(seq 1 300); do grep -qs "registered with" hardened.log && break; kill -0 "$HARDENED" 2>/dev/null || break; sleep 0.1; done
kill -0 "$HARDENED" 2>/dev/null || bad "hardened worker exited at start: $(tail -5 hardened.log)"
if grep -qs "compile-only mode" hardened.log; then bad "hardened worker: compile-only mode (the hardening hides the GPU?)"; fi
judge "hardened worker (NoNewPrivileges, read-only /, UMask, LimitNOFILE)"
kill -TERM "$HARDENED"
wait "$HARDENED" || bad "hardened worker exited $? on SIGTERM"
((fail == 0)) && echo "gpu_deploy_check: all checks passed" || echo "gpu_deploy_check: FAILED"
exit $fail
