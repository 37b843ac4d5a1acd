#!/usr/bin/env bash
# Installs what building and testing kjudge needs on Debian 12 (bookworm). Idempotent.
# The CUDA toolkit (nvcc, NVRTC, cudart, cuBLAS) is expected under /usr/local/cuda; a GPU is not.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev libssl-dev
  libsqlite3-dev sqlite3 libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev
  libcpp-httplib-dev prometheus-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  clang clang-tidy libclang-rt-14-dev python3 openssl libseccomp-dev
  nodejs  # tests/deploy/k8s/validate.mjs (Kubernetes manifest schemas; its npm packages are installed below)
  systemd shellcheck  # systemd-analyze verify/security and shellcheck in tests/deploy/check_deploy.sh (no systemd PID 1 needed)
  slurm-wlm munge  # the one-node Slurm cluster of tests/deploy/slurm_cluster.sh (daemons started by the test)
  iproute2  # network namespaces and veth for tests/deploy/multi_host_tls.sh (util-linux gives unshare, nsenter)
  chromium  # headless, for the dashboard test (tests/integration/dashboard_test.cc)
  python3-venv python3-grpcio python3-protobuf python3-grpc-tools python3-pytest mypy
  python3-torch  # the PyTorch oracle (worker/oracle), its tests (tests/oracle) and tests/catalog/check_module_refs.py, CPU-only here
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDAToolkit_ROOT:-}" ]; then
  echo "error: the CUDA toolkit was not found at /usr/local/cuda (NVRTC, cudart and cuBLAS are needed to"
  echo "       build kjudge-runner). Install CUDA 13, or set CUDAToolkit_ROOT to where it is." >&2
  exit 1
fi
# The Kubernetes schema validator's npm packages, pinned by tests/deploy/k8s/package-lock.json.
k8s_check="$(cd "$(dirname "$0")/.." && pwd)/tests/deploy/k8s"
if [ ! -d "$k8s_check/node_modules/kubernetes-models" ]; then
  command -v npm >/dev/null || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq --no-install-recommends npm >/dev/null || sudo apt-get install -y -qq --no-install-recommends npm >/dev/null; }
  npm ci --prefix "$k8s_check" --no-audit --no-fund --ignore-scripts >/dev/null
fi
echo "dependencies ok"
