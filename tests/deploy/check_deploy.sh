#!/usr/bin/env bash
# Cheap CI check of the deployment files in deploy/ (systemd units, Kubernetes manifests, Slurm
# script). No GPU, cluster, systemd instance or network needed; about 20 s with binaries.
#
#   tests/deploy/check_deploy.sh [KJUDGE_SERVER KJUDGE_WORKER [KJUDGE_RUNNER]]
#
# Binaries default to build/bin/ when they exist there (ctest passes the built ones). Each step
# whose tool is missing prints SKIP and does not fail:
#   - bash -n, and shellcheck if installed, on deploy/ and tests/deploy/ shell scripts;
#   - systemd-analyze verify on the units (any warning about them fails);
#   - kubectl kustomize deploy/kubernetes (offline render) if kubectl is installed;
#   - check_deploy.py: YAML parsing, flags against the binaries' --help, drain-time consistency,
#     and smoke runs of the units' ExecStart, the manifests' command lines and the Slurm script
#     with the real binaries on loopback (see its docstring).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
abs() { [[ -z "$1" ]] || realpath -- "$1"; }  # before the cd below
server="$(abs "${1:-}")"
worker="$(abs "${2:-}")"
runner="$(abs "${3:-}")"
cd "$ROOT" || exit 2
if [[ -z "$server" && -x build/bin/kjudge-server && -x build/bin/kjudge-worker ]]; then
  server=build/bin/kjudge-server
  worker=build/bin/kjudge-worker
fi

status=0
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; status=1; }
skip() { echo "SKIP  $*"; }

# ---- shell scripts ----
scripts=(deploy/*.sh deploy/slurm/*.sbatch tests/deploy/*.sh)
for f in "${scripts[@]}"; do
  if out=$(bash -n "$f" 2>&1); then ok "bash -n $f"; else bad "bash -n $f: $out"; fi
done
if command -v shellcheck >/dev/null; then
  # New deployment scripts must be clean; the older deploy/*.sh only at severity warning.
  new=(deploy/slurm/*.sbatch tests/deploy/*.sh)
  if out=$(shellcheck -s bash "${new[@]}" 2>&1); then ok "shellcheck ${new[*]}"; else bad "shellcheck:"$'\n'"$out"; fi
  if out=$(shellcheck -s bash -S warning deploy/*.sh 2>&1); then ok "shellcheck -S warning deploy/*.sh"; else bad "shellcheck:"$'\n'"$out"; fi
else
  skip "shellcheck: not installed"
fi

# ---- systemd units ----
if command -v systemd-analyze >/dev/null; then
  tmp=$(mktemp -d)
  cp deploy/systemd/kjudge-server.service deploy/systemd/kjudge-worker@.service "$tmp/"
  for unit in kjudge-server.service kjudge-worker@0.service; do
    out=$(systemd-analyze verify "$tmp/$unit" 2>&1)
    rc=$?
    # Only lines about our units count (a container without systemd running adds unrelated noise).
    ours=$(grep -E "kjudge-(server|worker@)" <<<"$out" || true)
    if ((rc == 0)) && [[ -z "$ours" ]]; then ok "systemd-analyze verify $unit"; else bad "systemd-analyze verify $unit (rc $rc):"$'\n'"$out"; fi
  done
  rm -rf "$tmp"
else
  skip "systemd-analyze verify: systemd-analyze not installed"
fi

# ---- Kubernetes ----
if command -v kubectl >/dev/null; then
  if out=$(kubectl kustomize deploy/kubernetes 2>&1); then
    ok "kubectl kustomize deploy/kubernetes renders ($(grep -c '^kind:' <<<"$out") objects)"
  else
    bad "kubectl kustomize deploy/kubernetes:"$'\n'"$out"
  fi
else
  skip "kubectl kustomize: kubectl not installed"
fi

# ---- YAML, flags, consistency, smoke runs ----
if command -v python3 >/dev/null; then
  args=()
  if [[ -n "$server" && -n "$worker" ]]; then
    args+=(--server "$server" --worker "$worker")
    [[ -n "$runner" ]] && args+=(--runner "$runner")
  fi
  python3 tests/deploy/check_deploy.py "${args[@]}" || status=1
else
  skip "check_deploy.py: python3 not installed"
fi

if ((status == 0)); then echo "check_deploy: all checks passed (SKIP lines were not run)"; else echo "check_deploy: FAILED"; fi
exit "$status"
