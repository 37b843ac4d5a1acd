"""The oracle with a stand-in torch.compile that waits for the test: `python3 gated_compile.py
GATE_DIR --fd N`.

Debian's torch (1.13) has no torch.compile, and a real one takes seconds to minutes: neither
lets a test hold a compile in progress for as long as it likes. Here torch.compile(module)
waits until the file GATE_DIR/<key> exists (the key of the CompileJob, from its thread's name
"compile <key>", with every character but letters and digits as "_"), then returns the module
itself, so the "compiled" model computes exactly the eager outputs. Everything else is the real
oracle (kjudge_oracle's own main), over the test's real socket; its compile children
(compile_pool.py) are started the same way, so the stand-in runs where compiles run.

While it waits it writes GATE_DIR/<key>.pid (the process compiling). With GATE_DIR/<key>.hog
present it waits holding the GIL (a regular expression's backtracking at a time); with
GATE_DIR/<key>.crash present the process dies (exit status 3) instead of compiling.
"""
import os
import re
import sys
import threading
import time

GATE_TIMEOUT_S = 60.0
HOG = re.compile(r"(a+)+$")  # backtracks ~1 s on HOG_TEXT in C code that keeps the GIL
HOG_TEXT = "a" * 25 + "b"


def gate_name(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", key)


def main() -> int:
    gate_dir, argv = sys.argv[1], sys.argv[2:]
    import torch  # pylint: disable=import-outside-toplevel

    def gated_compile(module, **_kwargs):
        key = threading.current_thread().name.removeprefix("compile ")
        gate = os.path.join(gate_dir, gate_name(key))
        with open(gate + ".pid", "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        if os.path.exists(gate + ".crash"):
            os._exit(3)  # pylint: disable=protected-access
        hog = os.path.exists(gate + ".hog")
        deadline = time.monotonic() + GATE_TIMEOUT_S
        while not os.path.exists(gate):
            if time.monotonic() > deadline:
                raise TimeoutError(f"gated_compile: {gate} did not appear in {GATE_TIMEOUT_S} s")
            if hog:
                HOG.match(HOG_TEXT)  # holds the GIL for its whole run, as Dynamo's C code does
            else:
                time.sleep(0.02)
        return module

    torch.compile = gated_compile
    from kjudge_oracle import compile_pool  # pylint: disable=import-outside-toplevel
    compile_pool.CHILD_LAUNCHER = [sys.executable, os.path.abspath(__file__), gate_dir]
    from kjudge_oracle import __main__ as oracle_main  # pylint: disable=import-outside-toplevel
    oracle_main._drop_unsafe_paths()  # pylint: disable=protected-access
    oracle_main._caches_in_home()  # pylint: disable=protected-access
    return oracle_main.main(argv)


if __name__ == "__main__":
    sys.exit(main())
