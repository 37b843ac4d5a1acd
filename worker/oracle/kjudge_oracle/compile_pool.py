"""The compile oracle's torch.compile, in child oracle processes: no compile ever runs in the
process that answers the judge.

Why: Dynamo's tracing and Inductor's code generation hold Python's GIL for seconds at a time,
even when every artefact comes from a warm cache. With the compile in the answering process the
judge's 20 ms patience saw it "busy" for most requests of a catalog pass (on an H200, 164 of 323
problems got a torch_compile baseline in three passes). A child holds only its own GIL.

Contract:
  * CompilePool(size) owns up to `size` children ($KJUDGE_COMPILE_CHILDREN, default 1), each a
    whole oracle (CHILD_LAUNCHER + `--fd N`: the same interpreter and environment, plus
    KJUDGE_ORACLE_COMPILE_CHILD=1, which makes its `compile` compile in-process), started on
    first need by the thread that feeds it (a child imports torch for seconds).
  * submit(entry) -> PooledCompile. The compile is queued on the child with the least work; that
    child's thread sends it `load` (the entry's own load request) and `compile` with `wait`, and
    records the outcome. state: "compiling" (queued or in progress), "ready" (the compiled module
    lives in that child, which also times it) or "failed" (error says why; a child that dies
    fails the compile it was doing and only that one: a new process takes its place).
  * A ready compile is `lost` when its child died later or no longer holds the key (its own LRU):
    the caller submits it again.
  * compiling_now() lists (`where`) the compiles in progress in any child.
  * Timing and compiling take turns, because a compile loads the CPU and the GPU and a sample
    taken meanwhile would time it too: open_bench(job, packet) forwards a bench_open to the
    job's child only while no compile is in progress (else OracleError), and while that session
    is open (until close_bench) no child starts a compile. A refused open makes a timing
    wanted: no child starts a new compile until the compiles in progress are done, and then for
    TIMING_WINDOW_S ($KJUDGE_COMPILE_HOLD_S) none starts either, so the judge's next request gets
    its timing even while a catalog's compiles keep coming. Each session's close opens such a
    window again, so the timings of compiles that are ready follow one another, and compiles
    resume once no timing came for a window.
  * forward(packet) sends a request (with its descriptors) to the child of the open session and
    returns its reply.
  * close() ends every child (EOF on its socket); a child also dies with its feeding thread's
    process (PR_SET_PDEATHSIG), so no child outlives a killed oracle.
"""
from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Any, Deque, Dict, List, Optional

from . import protocol
from .errors import OracleError
from .problems import Entry

CHILD_LAUNCHER: List[str] = [sys.executable, "-m", "kjudge_oracle"]  # tests put a stand-in here
CHILD_ENV = "KJUDGE_ORACLE_COMPILE_CHILD"
TIMING_WINDOW_S = 10.0  # unless $KJUDGE_COMPILE_HOLD_S says otherwise
_PR_SET_PDEATHSIG = 1


def pool_size() -> int:
    value = os.environ.get("KJUDGE_COMPILE_CHILDREN", "")
    return int(value) if value.isdigit() and int(value) > 0 else 1


def hold_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("KJUDGE_COMPILE_HOLD_S", TIMING_WINDOW_S)))
    except ValueError:
        return TIMING_WINDOW_S


def is_compile_oracle() -> bool:
    """The judge's compile oracle (KJUDGE_ORACLE_ROLE=compile, OracleOptions of
    CompileOracleOptions): it builds no module itself and only compiles and times them."""
    return os.environ.get("KJUDGE_ORACLE_ROLE") == "compile" and not is_compile_child()


def is_compile_child() -> bool:
    return os.environ.get(CHILD_ENV) == "1"


def _die_with_parent() -> None:
    """Runs in the forked child before exec: SIGKILL when the thread that started it ends."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except (OSError, AttributeError):
        pass  # EOF on the socket still ends the child once its compile is done


class PooledCompile:
    """One key's compile in one child (see the contract)."""

    def __init__(self, entry: Entry, child: "_Child") -> None:
        self.where = entry.where
        self.key = entry.key
        self.load_request = _load_request(entry)
        self.child = child
        self.generation = -1  # the child's process generation that compiled it
        self.device: Any = None
        self.state = "compiling"
        self.error = ""
        self.evicted = False

    @property
    def lost(self) -> bool:
        return self.state == "ready" and (self.evicted or self.child.generation != self.generation)


def _load_request(entry: Entry) -> Dict[str, Any]:
    return {"op": "load", "key": entry.key, "problem": entry.problem_name,
            "filename": entry.filename, "source": entry.source, "globals": entry.sizes,
            "forward": entry.forward, "parameters": [list(p) for p in entry.parameters],
            "outputs": entry.outputs}


class _Child:
    """One child oracle process and the thread that feeds it compiles, in order."""

    def __init__(self, pool: "CompilePool", index: int) -> None:
        self.pool = pool
        self.index = index
        self.queue: Deque[PooledCompile] = deque()  # guarded by pool.cond
        self.current: Optional[PooledCompile] = None  # the compile in progress; pool.cond
        self.generation = 0  # bumped at each (re)start of the process
        self.proc: Optional[subprocess.Popen] = None
        self.sock: Optional[socket.socket] = None
        self.io = threading.Lock()  # one request at a time on sock
        self.thread = threading.Thread(target=self._feed, name=f"compile child {index}",
                                       daemon=True)
        self.thread.start()

    def work(self) -> int:
        """Compiles queued or in progress (guarded by pool.cond)."""
        return len(self.queue) + (1 if self.current is not None else 0)

    # ---- the feeding thread ----
    def _feed(self) -> None:
        while True:
            job = self.pool.next_compile(self)
            if job is None:
                return
            try:
                self._compile(job)
            finally:
                self.pool.compile_done(self)

    def _compile(self, job: PooledCompile) -> None:
        try:
            self._ensure_started()
            reply = self.request(job.load_request, [])
            if reply.get("ok"):
                reply = self.request({"op": "compile", "key": job.key, "wait": True}, [])
            if not reply.get("ok") or reply.get("state") not in ("ready", "failed"):
                job.error = str(reply.get("error") or f"the compile child answered {reply}")
                job.state = "failed"
                return
            job.generation = self.generation
            job.device = reply.get("device")
            job.error = str(reply.get("error", ""))
            job.state = reply["state"]
        except OracleError as exc:
            job.error = f"{job.where}: torch.compile: {exc}"
            job.state = "failed"

    def _ensure_started(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self._stop()
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(os.environ)
        env[CHILD_ENV] = "1"
        try:
            self.proc = subprocess.Popen(  # pylint: disable=subprocess-popen-preexec-fn
                CHILD_LAUNCHER + ["--fd", str(child.fileno())], pass_fds=[child.fileno()],
                env=env, cwd=os.environ.get("HOME") or "/", stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent)
        except OSError as exc:
            parent.close()
            raise OracleError(f"cannot start a compile child ({CHILD_LAUNCHER}): {exc}") from exc
        finally:
            child.close()
        self.sock = parent
        self.generation += 1
        hello = self._receive()
        if not hello.get("ok"):
            raise OracleError(f"the compile child cannot compile: {hello.get('error')}")

    def _stop(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    # ---- requests (the feeding thread's, and forward()'s while a session is open) ----
    def request(self, req: Dict[str, Any], fds: List[int]) -> Dict[str, Any]:
        with self.io:
            if self.sock is None:
                raise OracleError("the compile child is not running")
            try:
                protocol.send_request(self.sock, req, fds)
            except (OSError, ValueError) as exc:
                raise self._died(f"cannot send it {req.get('op')!r}: {exc}") from exc
            return self._receive()

    def _receive(self) -> Dict[str, Any]:
        assert self.sock is not None
        try:
            packet = protocol.receive(self.sock)
        except OSError as exc:
            raise self._died(f"its socket failed: {exc}") from exc
        if packet is None:
            raise self._died("it closed its socket")
        for fd in packet.fds:
            os.close(fd)
        if packet.error:
            raise OracleError(f"the compile child's reply is unusable: {packet.error}")
        return packet.request

    def _died(self, what: str) -> OracleError:
        status = ""
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=5)
                status = (f" (killed by signal {-code})" if code < 0 else f" (exit status {code})")
            except subprocess.TimeoutExpired:
                self.proc.kill()
                status = " (hung; killed)"
        pid = self.proc.pid if self.proc is not None else "?"
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.generation += 1  # what it held is lost
        return OracleError(f"compile child {pid} died: {what}{status}")


class CompilePool:
    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.cond = threading.Condition()
        self.children: List[_Child] = []  # guarded by cond
        self.session: Optional[_Child] = None  # the child of the open bench session
        self.hold_s = hold_seconds()
        self.timing_wanted = False  # a timing was refused: drain the compiles in progress
        self.window_until = 0.0  # no new compile before (monotonic): a window for timings
        self.closing = False

    def submit(self, entry: Entry) -> PooledCompile:
        with self.cond:
            child = self._least_loaded()
            job = PooledCompile(entry, child)
            child.queue.append(job)
            self.cond.notify_all()
            return job

    def _least_loaded(self) -> _Child:
        idle = [c for c in self.children if c.work() == 0]
        if idle:
            return idle[0]
        if len(self.children) < self.size:
            self.children.append(_Child(self, len(self.children)))
            return self.children[-1]
        return min(self.children, key=_Child.work)

    def compiling_now(self) -> List[str]:
        with self.cond:
            return self._in_progress()

    def _in_progress(self) -> List[str]:
        """`where` of each compile in progress (caller holds cond)."""
        return sorted(c.current.where for c in self.children if c.current is not None)

    # ---- the feeding threads' side ----
    def next_compile(self, child: _Child) -> Optional[PooledCompile]:
        """The child's next compile once it may start one (no open session, no timing wanted,
        no timing window open); None when the pool closes."""
        with self.cond:
            while True:
                if self.closing:
                    return None
                wait = self.window_until - time.monotonic()
                if (child.queue and self.session is None and not self.timing_wanted and
                        wait <= 0):
                    child.current = child.queue.popleft()
                    return child.current
                self.cond.wait(timeout=wait if wait > 0 else None)

    def compile_done(self, child: _Child) -> None:
        with self.cond:
            child.current = None
            if self.timing_wanted and not self._in_progress():
                self.timing_wanted = False  # drained: the window for the wanted timing
                self.window_until = time.monotonic() + self.hold_s
            self.cond.notify_all()

    # ---- timing ----
    def open_bench(self, job: PooledCompile, packet: protocol.Packet) -> Dict[str, Any]:
        with self.cond:
            busy = self._in_progress()
            if busy:
                self.timing_wanted = True
                raise OracleError(f"{job.where}: torch.compile is still compiling in this "
                                  f"oracle's children ({'; '.join(busy)}); a timing now would "
                                  "measure it too: try again when it is done (no new compile "
                                  f"starts until then and for {self.hold_s:g} s after)")
            self.session = job.child
            self.timing_wanted = False
        reply = self.forward(packet)
        if not reply.get("ok"):
            if "unknown key" in str(reply.get("error", "")):
                job.evicted = True
            self.close_bench()
        return reply

    def forward(self, packet: protocol.Packet) -> Dict[str, Any]:
        child = self.session
        if child is None:
            raise OracleError(f"{packet.request.get('op')}: no bench session is open: send "
                              "bench_open first")
        return child.request(packet.request, packet.fds)

    def close_bench(self) -> None:
        with self.cond:
            if self.session is not None:
                self.window_until = time.monotonic() + self.hold_s  # for the next timing
            self.session = None
            self.cond.notify_all()

    def close(self) -> None:
        """Ends every child now (a compile in progress included); for the oracle's exit."""
        with self.cond:
            self.closing = True
            self.cond.notify_all()
            procs = [c.proc for c in self.children if c.proc is not None]
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
