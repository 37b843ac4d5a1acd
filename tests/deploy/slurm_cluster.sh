#!/usr/bin/env bash
# deploy/slurm/kjudge-worker.sbatch under a real Slurm (issue 32): a one-node cluster made here.
#
#   tests/deploy/slurm_cluster.sh BIN_DIR [RUNNER]
#
# BIN_DIR holds kjudge-server, kjudge-worker and kjudge; RUNNER is the kjudge-runner the workers
# start (default BIN_DIR/kjudge-runner). Debian 12's slurm-wlm and munge (deploy/install-deps.sh).
# Everything runs in new network, PID and mount namespaces made by this script: the cluster
# listens on a veth address of its own (10.78.0.1), nothing on this machine's network, and every
# process it started dies with it (the PID namespace's init is this script). Steps:
#   - munged with a fresh key, slurmctld and slurmd in the foreground (-D, not systemd), slurm.conf
#     and gres.conf in a temp dir: one node "kjnode", 16 CPUs, 4 GPUs faked as character devices
#     (so that Slurm's gres/gpu sets CUDA_VISIBLE_DEVICES as on a GPU node);
#   - a kjudge-server with TLS (certificates from deploy/tls/make-certs.sh) and --require-auth;
#     compile-only jobs submitted with the CLI;
#   - the sbatch as a job array of 3 tasks (KJUDGE_COMPILE_ONLY=1, the script's own #SBATCH
#     defaults: one GPU per task): each task's worker registers over TLS with the key file, runs
#     with --device 0 --compile-only and its own CUDA_VISIBLE_DEVICES, and serves jobs;
#   - `scancel --batch --signal=TERM` on the array mid-run: each worker finishes the job in hand
#     and exits 0 (no lease left open); a second sbatch (--gpus-per-task=1 --ntasks=2: two
#     workers, --device 0 and 1) finishes the queue; plain `scancel` ends it;
#   - `sbatch --gpus-per-node=0` with KJUDGE_WORKERS=2: two compile-only workers without a GPU
#     register and drain;
#   - every job DONE as COMPILED with attempts 1 (no lease lost), nothing left running.
# Exit 0: all passed; 1: a check failed (a missing tool or a cluster that cannot start fails too).
# shellcheck disable=SC2317  # the small predicates below are called through wait_for
set -uo pipefail
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; fail=1; }
fail=0

if [[ -z "${KJ_SLURM_INSIDE:-}" ]]; then
  BIN="$(cd "${1:?usage: $0 BIN_DIR [RUNNER]}" && pwd)"
  RUNNER="$(realpath -- "${2:-$BIN/kjudge-runner}")"
  for tool in munged munge slurmctld slurmd sbatch squeue scancel sinfo unshare ip mknod openssl; do
    command -v "$tool" >/dev/null || { echo "FAIL  slurm_cluster: $tool is missing (bash deploy/install-deps.sh installs slurm-wlm, munge, iproute2)"; exit 1; }
  done
  # New namespaces: net (own addresses and ports), pid (all started processes die with us), mount (/proc).
  KJ_SLURM_INSIDE=1 exec unshare --net --pid --fork --mount-proc --kill-child -- bash "$0" "$BIN" "$RUNNER" ||
    { echo "FAIL  slurm_cluster: unshare --net --pid --mount failed (needs root or CAP_SYS_ADMIN)"; exit 1; }
fi

BIN=$1
RUNNER=$2
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SBATCH_SCRIPT="$ROOT/deploy/slurm/kjudge-worker.sbatch"
WORK="$(mktemp -d /tmp/kjudge-slurm.XXXXXX)"
chmod 755 "$WORK"
ADDR=10.78.0.1
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local pids
  mapfile -t pids < <(jobs -p)
  ((${#pids[@]} == 0)) || kill -9 "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
  if ((fail)); then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
cd "$WORK" || exit 1
wait_for() {  # tries(0.1 s) command...
  local n=$1
  shift
  for ((t = 0; t < n; t++)); do "$@" && return 0; sleep 0.1; done
  return 1
}

# ---- network: loopback alone does not do (getaddrinfo's AI_ADDRCONFIG ignores it) ----
if ! { ip link set lo up && ip link add kj0 type veth peer name kj1 && ip addr add "$ADDR/24" dev kj0 &&
       ip link set kj0 up && ip link set kj1 up; }; then
  bad "cannot make the cluster's veth address $ADDR in the new network namespace"; exit 1
fi

# ---- munge and slurm ----
mkdir -m 700 munge
dd if=/dev/urandom of=munge/munge.key bs=1024 count=1 status=none && chmod 400 munge/munge.key
munged -F --force --socket="$WORK/munge/munge.sock" --key-file="$WORK/munge/munge.key" --log-file="$WORK/munge/munged.log" \
  --pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/munged.seed" > munged.out 2>&1 &
if wait_for 50 test -S munge/munge.sock && munge -S "$WORK/munge/munge.sock" -n | unmunge -S "$WORK/munge/munge.sock" > /dev/null 2>&1; then
  ok "munged runs with a fresh key"
else
  bad "munged did not start: $(tail -3 munged.out)"; exit 1
fi
mkdir state spool dev logs
for i in 0 1 2 3; do
  # Character devices (the numbers of /dev/null): gres/gpu accepts only devices.
  mknod "dev/fakegpu$i" c 1 3 || { bad "mknod: cannot make the fake GPU device nodes"; exit 1; }
done
cat > slurm.conf <<CONF
ClusterName=kjtest
SlurmctldHost=$(hostname -s)($ADDR)
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$WORK/munge/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
KillWait=5
NodeName=kjnode NodeAddr=$ADDR CPUs=16 RealMemory=16000 Gres=gpu:4 State=UNKNOWN
PartitionName=gpu Nodes=kjnode Default=YES MaxTime=INFINITE State=UP
CONF
echo "Name=gpu File=$WORK/dev/fakegpu[0-3]" > gres.conf
export SLURM_CONF="$WORK/slurm.conf"
slurmctld -D -i > slurmctld.out 2>&1 &
slurmd -D -N kjnode > slurmd.out 2>&1 &
node_idle() { [[ "$(sinfo -h -n kjnode -o '%T' 2>/dev/null)" == idle ]]; }
if wait_for 150 node_idle; then
  ok "slurmctld and slurmd up on $ADDR: node kjnode idle, $(sinfo -h -o '%G %c CPUs')"
else
  bad "the Slurm node did not come up: $(sinfo 2>&1 | tail -2); slurmctld: $(tail -3 slurmctld.log slurmctld.out 2>&1); slurmd: $(tail -3 slurmd.log slurmd.out 2>&1)"
  exit 1
fi

# ---- kjudge: a bundle, certificates, keys, the server with TLS, jobs ----
mkdir -p bundle/bin
for b in kjudge-worker kjudge; do ln -s "$BIN/$b" "bundle/bin/$b"; done
echo "export PATH=\"\$KJUDGE_HOME/bin:\$PATH\"" > bundle/env.sh
if "$ROOT/deploy/tls/make-certs.sh" "$WORK/tls" "$ADDR" > make-certs.out 2>&1 &&
   [[ "$(stat -c %a tls/server.key tls/ca.key)" == $'600\n600' ]]; then
  ok "deploy/tls/make-certs.sh: a CA and a server certificate for $ADDR, keys mode 600"
else
  bad "make-certs.sh: $(tail -3 make-certs.out)"; exit 1
fi
key() { "$BIN/kjudge-server" --db "$WORK/kjudge.sqlite" keys create "$1" --role "$2" 2>/dev/null | grep -oE '^kj_[0-9a-f]{8}_[0-9a-f]+$' | head -1; }
SUBMITTER=$(key agent submitter)
(umask 077 && key slurm-workers worker > worker.key)
[[ -n "$SUBMITTER" && -s worker.key ]] || { bad "keys create"; exit 1; }
"$BIN/kjudge-server" --db "$WORK/kjudge.sqlite" --listen "$ADDR:50051" --problems "$ROOT/problems" \
  --tls-cert tls/server.pem --tls-key tls/server.key --require-auth --submit-rate 0 > server.log 2>&1 &
if wait_for 100 grep -qs "listening on" server.log; then ok "kjudge-server with TLS on $ADDR:50051"; else bad "server did not start: $(tail -3 server.log)"; exit 1; fi
cli() { "$BIN/kjudge" --server "$ADDR:50051" --tls-ca tls/ca.pem --api-key "$SUBMITTER" "$@"; }
N=16
for i in $(seq 1 $N); do
  # Distinct sources, so that each one is compiled (no cache hit).
  { cat "$ROOT/problems/level1/19_ReLU/solution.cu"; printf '\n__device__ float unused_%d(float x) { return x * %d.0f; }\n' "$i" "$i"; } > "src$i.cu"
  cli --json submit "src$i.cu" --problem level1/19_ReLU --compile-only
done > submitted.jsonl 2> submit.err
mapfile -t IDS < <(python3 -c 'import json,sys; [print(json.loads(l).get("id", json.loads(l).get("job_id"))) for l in sys.stdin if l.strip()]' < submitted.jsonl)
if ((${#IDS[@]} == N)); then ok "$N compile-only jobs submitted over TLS"; else bad "submitted ${#IDS[@]} of $N: $(tail -3 submit.err)"; exit 1; fi

# ---- the sbatch as a job array ----
export KJUDGE_HOME="$WORK/bundle" KJUDGE_SERVER="$ADDR:50051" KJUDGE_API_KEY_FILE="$WORK/worker.key" \
  KJUDGE_TLS_CA="$WORK/tls/ca.pem" KJUDGE_COMPILE_ONLY=1 KJUDGE_CACHE_DIR="$WORK/cubins" \
  KJUDGE_WORKER_ARGS="--runner $RUNNER"
ARRAY=$(sbatch --parsable --array=0-2 --chdir="$WORK" --output="$WORK/array-%A_%a.out" "$SBATCH_SCRIPT" 2> sbatch.err)
if [[ "$ARRAY" =~ ^[0-9]+$ ]]; then ok "sbatch --array=0-2 kjudge-worker.sbatch: job $ARRAY"; else bad "sbatch: $(cat sbatch.err)"; exit 1; fi
registered() { (($(grep -cE "registered by key .*:slurm[0-9]+:gpu" server.log) >= $1)); }
if wait_for 300 registered 3; then
  ok "the 3 array tasks' workers registered over TLS with the key file"
else
  bad "$(grep -cE "registered by key .*:slurm[0-9]+:gpu" server.log) of 3 workers registered: $(squeue 2>&1 | tail -3); $(tail -3 "$WORK"/array-*.out 2>/dev/null)"
fi
# What each task runs: --device 0 --compile-only, CUDA_VISIBLE_DEVICES one fake GPU, distinct per task.
python3 - <<'PY' || fail=1
import os
rows = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        env = dict(e.split(b"=", 1) for e in open(f"/proc/{pid}/environ", "rb").read().split(b"\0") if b"=" in e)
    except OSError:
        continue
    if argv and os.path.basename(argv[0]) == b"kjudge-worker":
        a = [x.decode() for x in argv if x]
        rows.append((a[a.index("--device") + 1], "--compile-only" in a, a[a.index("--tls-ca") + 1] if "--tls-ca" in a else None,
                     env.get(b"CUDA_VISIBLE_DEVICES", b"").decode(), b"KJUDGE_API_KEY" in env, b"KJUDGE_API_KEY_FILE" in env))
good = (len(rows) == 3 and all(r[0] == "0" and r[1] and r[2] and not r[4] and not r[5] for r in rows)
        and sorted(r[3] for r in rows) == sorted(set(r[3] for r in rows)) and all(r[3].isdigit() for r in rows))
print(("ok    " if good else "FAIL  ") + "array workers: " + "; ".join(
    f"--device {r[0]}{' --compile-only' if r[1] else ''} --tls-ca, CUDA_VISIBLE_DEVICES={r[3]}" for r in sorted(rows, key=lambda r: r[3]))
    + ("" if good else f" (expected 3 workers, --device 0, distinct single GPUs, no key in the environment: {rows})"))
raise SystemExit(0 if good else 1)
PY
done_count() { grep -c "job .* done by" server.log; }
some_done() { (($(done_count) >= 3)); }
wait_for 600 some_done || bad "the array's workers finished fewer than 3 jobs in 60 s"
held_leases() {  # jobs leased and not (yet) done, from the server's log
  python3 - server.log <<'PY'
import re, sys
leased, done = set(), set()
for line in open(sys.argv[1], errors="replace"):
    if m := re.search(r"job (\d+) leased to", line): leased.add(m[1])
    if m := re.search(r"job (\d+) done by", line): done.add(m[1])
print(len(leased - done))
PY
}
# Cancel while the workers hold leases: the drain must finish those jobs, not drop them.
for _ in $(seq 1 100); do
  held=$(held_leases)
  ((held > 0)) && break
  sleep 0.05
done
before_cancel=$(done_count)
scancel --batch --signal=TERM "$ARRAY"
if ((held > 0)); then ok "scancel --batch --signal=TERM while the workers held $held lease(s)"; else bad "the array's workers never held a lease to drain"; fi
array_gone() { [[ -z "$(squeue -h -j "$ARRAY" 2>/dev/null)" ]]; }
if wait_for 600 array_gone; then ok "the array ended (after $before_cancel jobs done)"; else bad "the array still runs 60 s after scancel --batch"; fi
drained=0
for f in "$WORK"/array-"$ARRAY"_*.out; do
  grep -q "draining" "$f" && grep -q "gpu0: kjudge-worker exited with status 0" "$f" && drained=$((drained + 1))
done
if ((drained == 3)); then ok "each array task drained: its worker exited 0"; else bad "$drained of 3 tasks drained: $(tail -n 3 "$WORK"/array-*.out)"; fi
leased_not_done=$(held_leases)
if ((leased_not_done == 0)); then ok "no lease left open after the drain ($(done_count) of $N done)"; else bad "$leased_not_done job(s) leased and not finished after the drain"; fi

# ---- a second job, two GPUs per node through --gpus-per-task, finishes the queue; scancel ends it ----
SECOND=$(sbatch --parsable --ntasks=2 --gpus-per-task=1 --gpus-per-node=0 --cpus-per-gpu=2 --chdir="$WORK" \
  --output="$WORK/second-%j.out" "$SBATCH_SCRIPT" 2> sbatch2.err)
[[ "$SECOND" =~ ^[0-9]+$ ]] || { bad "second sbatch: $(cat sbatch2.err)"; exit 1; }
wait_for 300 registered 5 || bad "the second job's 2 workers did not register in 30 s: $(tail -n 3 "$WORK"/second-*.out)"
all_done() { (($(done_count) >= N)); }
if wait_for 900 all_done; then ok "job $SECOND (--ntasks=2 --gpus-per-task=1) finished the queue"; else bad "$(done_count) of $N jobs done 90 s after the second job started: $(tail -n 3 "$WORK"/second-*.out)"; fi
out2="$WORK/second-$SECOND.out"
if grep -q "2 worker(s)" "$out2" && grep -q "gpu1: kjudge-worker pid" "$out2"; then
  ok "--gpus-per-task=1 --ntasks=2: the script started 2 workers (--device 0 and 1): $(grep -o 'CUDA_VISIBLE_DEVICES=[^;]*' "$out2")"
else
  bad "second job did not start 2 workers: $(head -3 "$out2")"
fi
scancel "$SECOND"
second_gone() { [[ -z "$(squeue -h -j "$SECOND" 2>/dev/null)" ]]; }
if wait_for 300 second_gone; then ok "scancel $SECOND ended it"; else bad "job $SECOND still runs 30 s after scancel"; fi

# ---- no GPU at all: --gpus-per-node=0 and KJUDGE_WORKERS=2 compile-only workers ----
THIRD=$(KJUDGE_WORKERS=2 sbatch --parsable --gpus-per-node=0 --ntasks=2 --chdir="$WORK" \
  --output="$WORK/third-%j.out" "$SBATCH_SCRIPT" 2> sbatch3.err)
[[ "$THIRD" =~ ^[0-9]+$ ]] || { bad "third sbatch: $(cat sbatch3.err)"; exit 1; }
if wait_for 300 registered 7; then
  out3="$WORK/third-$THIRD.out"
  if grep -q "2 worker(s) for .*, compile-only; CUDA_VISIBLE_DEVICES=unset" "$out3"; then
    ok "--gpus-per-node=0 with KJUDGE_COMPILE_ONLY=1 KJUDGE_WORKERS=2: 2 compile-only workers, no GPU, registered"
  else
    bad "the GPU-less job: $(head -3 "$out3")"
  fi
else
  bad "the GPU-less job's 2 workers did not register in 30 s: $(tail -n 3 "$WORK"/third-*.out)"
fi
scancel --batch --signal=TERM "$THIRD"
third_gone() { [[ -z "$(squeue -h -j "$THIRD" 2>/dev/null)" ]]; }
if wait_for 300 third_gone && (($(grep -c "kjudge-worker exited with status 0" "$WORK/third-$THIRD.out") == 2)); then
  ok "scancel --batch --signal=TERM $THIRD: both workers exited 0"
else
  bad "the GPU-less job did not drain: $(tail -n 3 "$WORK"/third-*.out)"
fi

# ---- every job DONE once, COMPILED, attempts 1 ----
for id in "${IDS[@]}"; do cli --json job "$id"; echo; done > final.jsonl 2>/dev/null
python3 - "$N" final.jsonl <<'PY' || fail=1
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
jobs = [json.loads(l) for l in open(path) if l.strip()]
states = sorted({str(j.get("state")) for j in jobs})
verdicts = sorted({str(j.get("result", {}).get("verdict")) for j in jobs})
attempts = sorted({int(j.get("attempts", 0)) for j in jobs})
good = len(jobs) == n and states == ["DONE"] and verdicts == ["COMPILED"] and attempts == [1]
print(("ok    " if good else "FAIL  ") + f"{len(jobs)} of {n} jobs: states {states}, verdicts {verdicts}, attempts {attempts} (no lease lost)")
sys.exit(0 if good else 1)
PY
leftovers() { for name in kjudge-worker kjudge-runner kjudge-compiler slurmstepd; do pgrep -a -x "$name"; done; }
nothing_left() { [[ -z "$(leftovers)" ]]; }
wait_for 100 nothing_left  # slurmstepd may still be tidying up for a moment after squeue forgets the job
if nothing_left; then ok "no worker, runner, compiler or slurmstepd left running"; else bad "process(es) left: $(leftovers)"; fi

((fail == 0)) && echo "slurm_cluster: all checks passed" || echo "slurm_cluster: FAILED"
exit $fail
