#!/usr/bin/env bash
# Cheap CI check of the deployment files in deploy/ (systemd units, Kubernetes manifests, Slurm
# script). No GPU, cluster, systemd instance or network needed; about 20 s with binaries.
#
#   tests/deploy/check_deploy.sh [KJUDGE_SERVER KJUDGE_WORKER [KJUDGE_RUNNER]]
#
# Binaries default to build/bin/ when they exist there (ctest passes the built ones). A missing
# `shellcheck` or systemd-analyze FAILS (deploy/install-deps.sh installs them); kubectl is optional:
#   - bash -n and shellcheck on deploy/, tests/deploy/ and tests/gpu/ shell scripts;
#   - systemd-analyze verify on every unit in deploy/systemd (any warning about them fails), and
#     systemd-analyze security --offline: exposure at most 2.0 (server) and 4.0 (worker);
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
scripts=(deploy/*.sh deploy/tls/*.sh deploy/slurm/*.sbatch tests/deploy/*.sh tests/gpu/*.sh tests/gpu/*/*.sh)
for f in "${scripts[@]}"; do
  if out=$(bash -n "$f" 2>&1); then ok "bash -n $f"; else bad "bash -n $f: $out"; fi
done
if command -v shellcheck >/dev/null; then
  # New deployment scripts must be clean; the older deploy/*.sh only at severity warning.
  new=(deploy/slurm/*.sbatch deploy/tls/*.sh tests/deploy/*.sh)
  if out=$(shellcheck -s bash "${new[@]}" 2>&1); then ok "shellcheck ${new[*]}"; else bad "shellcheck:"$'\n'"$out"; fi
  if out=$(shellcheck -s bash -S warning deploy/*.sh 2>&1); then ok "shellcheck -S warning deploy/*.sh"; else bad "shellcheck:"$'\n'"$out"; fi
  # The GPU scripts run only on a GPU host: CI is where their typos are found.
  if out=$(shellcheck -s bash -S warning tests/gpu/*.sh tests/gpu/*/*.sh 2>&1); then
    ok "shellcheck -S warning tests/gpu/"
  else
    bad "shellcheck:"$'\n'"$out"
  fi
else
  bad "shellcheck is not installed (Debian: shellcheck; bash deploy/install-deps.sh)"
fi

# ---- systemd units ----
# Exposure ceilings (systemd-analyze security, x10): the worker keeps the GPU reachable, so less.
declare -A max_exposure=([kjudge-server.service]=20 [kjudge-worker@.service]=40)
if command -v systemd-analyze >/dev/null; then
  tmp=$(mktemp -d)
  cp deploy/systemd/*.service "$tmp/"
  for path in deploy/systemd/*.service; do
    name=$(basename "$path")
    unit=${name/@./@0.}  # a template is verified as its instance 0
    [[ "$unit" == "$name" ]] || cp "$path" "$tmp/$unit"
    out=$(systemd-analyze verify "$tmp/$unit" 2>&1)
    rc=$?
    # Only lines about our units count (a container without systemd running adds unrelated noise).
    ours=$(grep -F "${unit%%@*}" <<<"$out" || true)
    if ((rc == 0)) && [[ -z "$ours" ]]; then ok "systemd-analyze verify $unit"; else bad "systemd-analyze verify $unit (rc $rc):"$'\n'"$out"; fi
    ceiling=${max_exposure[$name]:-}
    if [[ -z "$ceiling" ]]; then bad "$path: no exposure ceiling in check_deploy.sh (add one to max_exposure)"; continue; fi
    level=$(systemd-analyze security --offline=yes --no-pager "$tmp/$unit" 2>&1 | grep -oE 'Overall exposure level for [^:]+: [0-9.]+' | grep -oE '[0-9.]+$')
    if systemd-analyze security --offline=yes --threshold="$ceiling" --no-pager "$tmp/$unit" >/dev/null 2>&1 && [[ -n "$level" ]]; then
      ok "systemd-analyze security --offline $unit: exposure $level (at most $((ceiling / 10)).$((ceiling % 10)))"
    else
      bad "systemd-analyze security --offline $unit: exposure ${level:-unknown} above $((ceiling / 10)).$((ceiling % 10))"
    fi
  done
  rm -rf "$tmp"
else
  bad "systemd-analyze is not installed (Debian: systemd; bash deploy/install-deps.sh)"
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
