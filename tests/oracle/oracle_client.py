"""Test-side client of the oracle: plays the judge's part with real sockets and real memfds.

OracleProcess starts `python -m kjudge_oracle --fd N` exactly as the judge does (a
SOCK_SEQPACKET socket pair, an empty environment but PATH, HOME and PYTHONPATH, a private temp
dir as HOME and working directory) and exchanges JSON packets with descriptors. HostTensor is a
tensor in its own memfd, laid out as the judge lays tensors out (an offset inside a larger
allocation).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The package's parent folder: a source tree's worker/oracle, or a bundle's share/kjudge/oracle
# (deploy/pack.sh carries tests/oracle too); KJUDGE_ORACLE_PATH overrides both.
ORACLE_PATH = os.environ.get("KJUDGE_ORACLE_PATH") or next(
    (p for p in (os.path.join(ROOT, "worker", "oracle"), os.path.join(ROOT, "share", "kjudge", "oracle"))
     if os.path.isdir(os.path.join(p, "kjudge_oracle"))), os.path.join(ROOT, "worker", "oracle"))
DTYPE_NAMES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
               torch.bfloat16: "bf16", torch.int32: "i32", torch.int64: "i64",
               torch.uint8: "u8", torch.int8: "i8"}


class OracleProcess:
    """`launcher`: the command before `--fd N` (default: this python's `-m kjudge_oracle`)."""

    def __init__(self, timeout: float = 120.0, launcher: Optional[Sequence[str]] = None,
                 extra_env: Optional[Dict[str, str]] = None) -> None:
        self.timeout = timeout
        self.home = tempfile.TemporaryDirectory(prefix="kjudge-oracle-test-")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": "/usr/bin:/bin", "HOME": self.home.name, "PYTHONPATH": ORACLE_PATH,
               "OMP_NUM_THREADS": "1", **(extra_env or {})}
        self.proc = subprocess.Popen(
            [*(launcher or [sys.executable, "-m", "kjudge_oracle"]), "--fd", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), env=env, cwd=self.home.name,
            stderr=subprocess.PIPE, text=True)
        theirs.close()
        self.sock = ours
        self.sock.settimeout(timeout)
        self.hello = self.receive()

    def receive(self) -> Dict[str, Any]:
        data = self.sock.recv(1 << 20)
        if not data:
            raise AssertionError(f"the oracle closed its socket; stderr: {self.stderr()}")
        return json.loads(data)

    def send_raw(self, data: bytes, fds: Sequence[int] = ()) -> Dict[str, Any]:
        socket.send_fds(self.sock, [data], list(fds))
        return self.receive()

    def request(self, obj: Dict[str, Any], fds: Sequence[int] = ()) -> Dict[str, Any]:
        return self.send_raw(json.dumps(obj).encode(), fds)

    def close(self) -> int:
        """Closes our end (EOF for the oracle) and returns its exit status."""
        self.sock.close()
        try:
            return self.proc.wait(self.timeout)
        finally:
            if self.proc.stderr:
                self.proc.stderr.close()
            self.home.cleanup()

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        return self.proc.stderr.read() if self.proc.stderr else ""

    def open_fds(self) -> List[str]:
        """What the oracle holds open (its /proc/PID/fd targets)."""
        base = f"/proc/{self.proc.pid}/fd"
        out = []
        for name in os.listdir(base):
            try:
                out.append(os.readlink(os.path.join(base, name)))
            except OSError:
                pass
        return sorted(out)

    def memfd_maps(self) -> List[str]:
        with open(f"/proc/{self.proc.pid}/maps", encoding="utf-8") as f:
            return [line for line in f if "kjudge-test" in line]


class HostTensor:
    """One tensor in its own memfd at a non-zero offset (as the judge's arena places them)."""

    OFFSET = 256

    def __init__(self, name: str, value: torch.Tensor) -> None:
        self.name = name
        self.dtype = value.dtype
        self.shape = list(value.shape)
        self.nbytes = value.numel() * value.element_size()
        self.bytes = self.OFFSET + self.nbytes + 128
        self.fd = os.memfd_create(f"kjudge-test-{name}")
        os.ftruncate(self.fd, self.bytes)
        self.write(value)

    @staticmethod
    def empty(name: str, shape: Sequence[int], dtype: torch.dtype) -> "HostTensor":
        return HostTensor(name, torch.full(list(shape), -7, dtype=dtype))

    def write(self, value: torch.Tensor) -> None:
        raw = value.contiguous().view(-1).view(torch.uint8) if value.numel() else torch.empty(0, dtype=torch.uint8)
        os.pwrite(self.fd, bytes(raw.numpy().tobytes()), self.OFFSET)

    def read(self) -> torch.Tensor:
        data = bytearray(os.pread(self.fd, self.nbytes, self.OFFSET))
        if not data:
            return torch.empty(self.shape, dtype=self.dtype)
        return torch.frombuffer(data, dtype=self.dtype).view(self.shape).clone()

    def spec(self, fd_index: int, shape: Optional[Sequence[int]] = None,
             dtype: Optional[str] = None) -> Dict[str, Any]:
        return {"name": self.name, "dtype": dtype or DTYPE_NAMES[self.dtype],
                "shape": list(shape) if shape is not None else self.shape, "fd": fd_index,
                "bytes": self.bytes, "offset": self.OFFSET}

    def close(self) -> None:
        os.close(self.fd)


def tensors_request(tensors: Sequence[HostTensor], **fields: Any):
    """(the request's tensor list, the fds to send) for tensors in order."""
    return [t.spec(i) for i, t in enumerate(tensors)], [t.fd for t in tensors]
