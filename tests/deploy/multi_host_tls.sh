#!/usr/bin/env bash
# Workers on other hosts over TLS (issue 32), with network namespaces standing in for hosts:
#
#   tests/deploy/multi_host_tls.sh BIN_DIR [RUNNER]
#
# BIN_DIR holds kjudge-server, kjudge-worker and kjudge; RUNNER is the kjudge-runner the workers
# start (default BIN_DIR/kjudge-runner; a sanitizer build passes the plain build's).
# Makes four network namespaces joined by a bridge (a "switch" holding the bridge, "server"
# 10.77.0.1, "hostb" 10.77.0.2, "hostc" 10.77.0.3); nothing listens on loopback or in this
# machine's own namespace. Makes a CA and a server certificate for 10.77.0.1 with openssl, starts
# kjudge-server in "server" with TLS and --require-auth, and two compile-only workers in "hostb",
# each with its own worker key, trusting only the CA. Submits compile-only jobs from "hostc"
# through the CLI over TLS, kills everything in "hostb" with SIGKILL while jobs are leased, starts
# a worker in "hostc", and checks that every job finished exactly once as COMPILED, that some were
# requeued (attempts > 1) and finished by the worker in "hostc", and that a client trusting no CA
# or another CA is refused. Exit 0: all passed; 1: a check failed; 77: this machine cannot make
# network namespaces (not root / no CAP_SYS_ADMIN), said on the SKIP line.
set -uo pipefail
BIN="$(cd "${1:?usage: $0 BIN_DIR [RUNNER]}" && pwd)"
RUNNER="${2:-$BIN/kjudge-runner}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
for tool in ip openssl nsenter unshare; do
  command -v "$tool" >/dev/null || { echo "multi_host_tls: $tool is missing (deploy/install-deps.sh installs it)"; exit 1; }
done
if ! unshare --net true 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here (needs root or CAP_SYS_ADMIN + CAP_NET_ADMIN)"
  exit 77
fi
WORK="$(mktemp -d /tmp/kjudge-multihost.XXXXXX)"
PIDS=()
declare -A NS
fail=0
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; fail=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  for name in "${!NS[@]}"; do kill -9 "${NS[$name]}" 2>/dev/null; done
  wait 2>/dev/null
  if ((fail)); then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
in_ns() { local ns=$1; shift; nsenter -t "${NS[$ns]}" -n -- "$@"; }

# ---- the network: a bridge in "switch", one veth per host ----
for name in switch server hostb hostc; do
  unshare --net --fork --kill-child sleep 100000 > /dev/null 2>&1 &
  NS[$name]=$!
done
sleep 0.2
if ! { in_ns switch ip link add br0 type bridge && in_ns switch ip link set br0 up; }; then bad "bridge"; exit 1; fi
declare -A ADDR=([server]=10.77.0.1 [hostb]=10.77.0.2 [hostc]=10.77.0.3)
for name in server hostb hostc; do
  # Made inside "switch", one end moved to the host: nothing is added to this machine's namespace.
  in_ns switch ip link add "v$name" type veth peer name eth0 netns "${NS[$name]}" || { bad "veth $name"; exit 1; }
  in_ns switch ip link set "v$name" master br0 up
  in_ns "$name" ip addr add "${ADDR[$name]}/24" dev eth0
  in_ns "$name" ip link set eth0 up
  in_ns "$name" ip link set lo up
done

# ---- certificates: a CA, the server's for 10.77.0.1, and another CA nobody uses ----
cd "$WORK" || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=kjudge test CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=kjudge-server" 2>/dev/null
printf 'subjectAltName=IP:10.77.0.1\n' > san.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 2 -subj "/CN=another CA" 2>/dev/null
if [[ -s server.pem && -s ca.pem ]]; then ok "certificates made with openssl (server: IP 10.77.0.1)"; else bad "openssl"; exit 1; fi

# ---- keys (per worker) and the server, in "server" only ----
key() { "$BIN/kjudge-server" --db "$WORK/kjudge.sqlite" keys create "$1" --role "$2" 2>/dev/null | grep -oE '^kj_[0-9a-f]{8}_[0-9a-f]+$' | head -1; }
SUBMITTER=$(key agent submitter)
for w in b1 b2 c1; do key "worker-$w" worker > "$WORK/$w.key"; chmod 600 "$WORK/$w.key"; done
[[ -n "$SUBMITTER" && -s "$WORK/b1.key" ]] || { bad "keys create"; exit 1; }
# nsenter execs the program (no fork for a network namespace): $! is the server itself.
nsenter -t "${NS[server]}" -n -- "$BIN/kjudge-server" --db "$WORK/kjudge.sqlite" --listen 10.77.0.1:50443 --problems "$ROOT/problems" \
  --tls-cert server.pem --tls-key server.key --require-auth --lease-seconds 4 --submit-rate 0 > server.log 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do grep -q "listening on" server.log && break; sleep 0.1; done
if grep -q "listening on" server.log; then
  ok "kjudge-server listens on 10.77.0.1:50443 with TLS"
else
  bad "server did not start"; cat server.log; exit 1
fi
cli() { local ns=$1; shift; in_ns "$ns" "$BIN/kjudge" --server 10.77.0.1:50443 --api-key "$SUBMITTER" "$@"; }
declare -A WORKER_PID
worker() {  # namespace, key file, log
  nsenter -t "${NS[$1]}" -n -- "$BIN/kjudge-worker" --server 10.77.0.1:50443 --tls-ca ca.pem --api-key-file "$WORK/$2.key" \
    --runner "$RUNNER" --cache-dir "$WORK/cubins-$2" --compile-only > "$3" 2>&1 &
  PIDS+=($!)
  WORKER_PID[$2]=$!
}

# ---- clients that do not trust the server's CA are refused ----
if cli hostc problems > /dev/null 2>&1; then bad "a plaintext client reached the TLS server"; else ok "a client without --tls-ca is refused"; fi
if cli hostc --tls-ca other.pem problems > /dev/null 2>&1; then bad "a client trusting another CA reached the server"; else ok "a client trusting another CA is refused"; fi
if cli hostc --tls-ca ca.pem problems > problems.txt 2>&1 && grep -q "level1/19_ReLU" problems.txt; then
  ok "the CLI in hostc lists problems over TLS"
else
  bad "CLI over TLS: $(tail -2 problems.txt)"
fi

# ---- jobs from hostc, workers in hostb, hostb dies mid-run ----
N=40
for i in $(seq 1 $N); do
  # Distinct sources: each is compiled (the worker holds its lease for the compile's length).
  sed "s|^// level1/19_ReLU|// job $i: level1/19_ReLU|" "$ROOT/problems/level1/19_ReLU/solution.cu" > "src$i.cu"
  printf '\n__device__ float unused_%d(float x) { return x * %d.0f; }\n' "$i" "$i" >> "src$i.cu"
done
for i in $(seq 1 $N); do
  cli hostc --tls-ca ca.pem --json submit "src$i.cu" --problem level1/19_ReLU --compile-only
done > submitted.jsonl 2> submit.err
mapfile -t IDS < <(python3 -c 'import json,sys; [print(json.loads(l)["id"] if "id" in json.loads(l) else json.loads(l)["job_id"]) for l in sys.stdin if l.strip()]' < submitted.jsonl)
if ((${#IDS[@]} == N)); then ok "$N jobs submitted from hostc"; else bad "submitted ${#IDS[@]} of $N: $(tail -3 submit.err)"; exit 1; fi
worker hostb b1 workerb1.log
worker hostb b2 workerb2.log
# hostb dies as soon as its workers have shown they work: SIGKILL while they hold leases (their
# runners and compilers die with them: die_with_parent).
for _ in $(seq 1 400); do
  grep -q "job .* done by" server.log && break
  sleep 0.02
done
if grep -q "job .* done by" server.log; then
  ok "hostb's workers registered over TLS and finished a job"
else
  bad "no job finished by hostb: $(tail -3 workerb1.log)"
fi
# A worker between jobs holds no lease, so kill only once the server shows one: freeze both workers
# (SIGSTOP: nothing more can complete), let the server's log settle, and count the jobs leased but
# not done; if none, thaw them and look again.
held=0
for _ in $(seq 1 200); do
  kill -STOP "${WORKER_PID[b1]}" "${WORKER_PID[b2]}"
  sleep 0.1
  held=$(python3 - server.log <<'PY'
import re, sys
leased, done = set(), set()
for line in open(sys.argv[1], errors="replace"):
    if m := re.search(r"job (\d+) leased to", line): leased.add(m[1])
    if m := re.search(r"job (\d+) done by", line): done.add(m[1])
print(len(leased - done))
PY
)
  ((held > 0)) && break
  kill -CONT "${WORKER_PID[b1]}" "${WORKER_PID[b2]}"
  sleep 0.03
done
kill -9 "${WORKER_PID[b1]}" "${WORKER_PID[b2]}"
kill -CONT "${WORKER_PID[b1]}" "${WORKER_PID[b2]}" 2>/dev/null
wait "${WORKER_PID[b1]}" "${WORKER_PID[b2]}" 2>/dev/null
before=$(grep -c "job .* done by" server.log)
if ((held > 0)); then ok "hostb's workers killed (SIGKILL) after $before of $N jobs, holding $held lease(s)"; else bad "hostb's workers never held a lease when frozen"; fi
worker hostc c1 workerc1.log
all_done=0
for _ in $(seq 1 600); do
  if cli hostc --tls-ca ca.pem --json job "${IDS[-1]}" 2>/dev/null | grep -q '"DONE"'; then
    left=0
    for id in "${IDS[@]}"; do cli hostc --tls-ca ca.pem --json job "$id" 2>/dev/null | grep -q '"DONE"' || { left=1; break; }; done
    ((left == 0)) && { all_done=1; break; }
  fi
  sleep 0.2
done
if ((all_done)); then ok "every job finished after hostb died"; else bad "jobs unfinished 120 s after hostb died"; fi
for id in "${IDS[@]}"; do cli hostc --tls-ca ca.pem --json job "$id"; echo; done > final.jsonl 2>/dev/null
python3 - "$N" final.jsonl <<'PY' || fail=1
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
jobs = [json.loads(l) for l in open(path) if l.strip()]
verdicts = [j.get("result", {}).get("verdict") for j in jobs]
attempts = [int(j.get("attempts", 0)) for j in jobs]
ok = len(jobs) == n and all(v == "COMPILED" for v in verdicts)
print(("ok    " if ok else "FAIL  ") + f"{len(jobs)} jobs, verdicts {sorted(set(map(str, verdicts)))}")
requeued = sum(a > 1 for a in attempts)
print(("ok    " if requeued else "FAIL  ") + f"{requeued} job(s) leased again after hostb died (attempts > 1)")
sys.exit(0 if ok and requeued else 1)
PY
c_done=$(grep -c "job .* done by" server.log)
if ((c_done - before > 0)); then ok "the worker in hostc finished the rest ($((c_done - before)) jobs)"; else bad "hostc finished nothing"; fi
# Nothing listened outside the namespaces: this machine's own namespace has no 50443 socket.
if ss -ltn 2>/dev/null | grep -q ':50443 '; then bad "port 50443 open in this machine's namespace"; else ok "nothing listens in this machine's own namespace"; fi
((fail == 0)) && echo "multi_host_tls: all checks passed" || echo "multi_host_tls: FAILED"
exit $fail
