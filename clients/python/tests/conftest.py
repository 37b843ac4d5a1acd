"""Fixtures: real kjudge deployments on loopback for the client's tests.

Each deployment is a real kjudge-server on a temporary SQLite file (and, where a test needs
verdicts, a real compile-only kjudge-worker with its kjudge-runner and NVRTC); no GPU is needed:
verdicts are COMPILED or COMPILE_ERROR. The binaries come from $KJUDGE_SERVER_BIN,
$KJUDGE_WORKER_BIN, $KJUDGE_RUNNER_BIN, else $KJUDGE_BIN_DIR, else the repository's build/bin.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]
RELU_SOLUTION = REPO / "problems/level1/19_ReLU/solution.cu"


def _binary(name: str, env: str) -> str:
    explicit = os.environ.get(env)
    if explicit:
        return explicit
    path = Path(os.environ.get("KJUDGE_BIN_DIR", REPO / "build/bin")) / name
    if not path.is_file():
        pytest.fail(f"{path} not found: build it (cmake --build build --target {name}) or set {env}")
    return str(path)


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGTERM when the test process dies, so a killed test run
    (CTest's timeout) leaves no server or worker behind."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Deployment:
    """One kjudge-server (and optionally a compile-only worker) in its own temporary folder."""

    def __init__(self, name: str, server_args: List[str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"kjudge-py-{name}-"))
        self.db = self.dir / "kjudge.sqlite"
        self.address = f"127.0.0.1:{_free_port()}"
        self.server_bin = _binary("kjudge-server", "KJUDGE_SERVER_BIN")
        self.server_args = server_args
        self.processes: List[subprocess.Popen] = []
        self.keys: Dict[str, str] = {}

    def _spawn(self, argv: List[str], log: str) -> subprocess.Popen:
        with open(self.dir / log, "ab") as out:
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       preexec_fn=_die_with_parent)
        self.processes.append(process)
        return process

    def start_server(self) -> None:
        self.server_starts = getattr(self, "server_starts", 0) + 1
        log = f"server-{self.server_starts}.log"
        server = self._spawn([self.server_bin, "--db", str(self.db), "--listen", self.address, "--problems",
                              str(REPO / "problems"), *self.server_args], log)
        self.server = server
        for _ in range(400):  # it says "listening on" once the port is bound
            if "listening on" in self.log(log):
                return
            if server.poll() is not None:
                break
            time.sleep(0.05)
        pytest.fail(f"kjudge-server did not start:\n{self.log(log)}")

    def kill_server(self) -> None:
        """kill -9 of the server; start_server() brings it back on the same port and database."""
        self.server.kill()
        self.server.wait()

    def create_key(self, role: str) -> str:
        run = subprocess.run([self.server_bin, "--db", str(self.db), "--json", "keys", "create", f"py-{role}-{len(self.keys)}",
                              "--role", role], capture_output=True, text=True, timeout=30, check=False)
        assert run.returncode == 0, run.stderr
        key = json.loads(run.stdout)["key"]
        self.keys.setdefault(role, key)
        return key

    def start_worker(self, api_key: Optional[str] = None) -> None:
        argv = [_binary("kjudge-worker", "KJUDGE_WORKER_BIN"), "--server", self.address, "--runner",
                _binary("kjudge-runner", "KJUDGE_RUNNER_BIN"), "--cache-dir", str(self.dir / "cubins"), "--compile-only"]
        if api_key:
            key_file = self.dir / "worker.key"
            key_file.write_text(api_key)
            key_file.chmod(0o600)
            argv += ["--api-key-file", str(key_file)]
        self._spawn(argv, "worker.log")

    def log(self, name: str) -> str:
        path = self.dir / name
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def cluster():
    """Auth on, a compile-only worker with its own key, and a submitter key for the tests."""
    d = Deployment("cluster", ["--require-auth"])
    d.start_server()
    d.create_key("submitter")
    d.create_key("admin")
    d.start_worker(d.create_key("worker"))
    yield d
    d.stop()


@pytest.fixture(scope="session")
def idle():
    """Auth off and no worker: jobs stay QUEUED (for cancel and deadlines)."""
    d = Deployment("idle", [])
    d.start_server()
    yield d
    d.stop()


@pytest.fixture()
def limited():
    """A rate limit of 2 submissions per second per key, bursts of 2; no worker."""
    d = Deployment("limited", ["--submit-rate", "2", "--submit-burst", "2"])
    d.start_server()
    yield d
    d.stop()


@pytest.fixture(scope="session")
def relu_source() -> str:
    return RELU_SOLUTION.read_text()


@pytest.fixture(scope="session")
def broken_source(relu_source: str) -> str:
    """The ReLU solution with a syntax error NVRTC reports (COMPILE_ERROR)."""
    return relu_source.replace("v.x = fmaxf(v.x, 0.0f);", "v.x = fmaxf(v.x, 0.0f)  this is not C++;")
