"""CTest entry for the oracle's tests: runs them with the interpreter that has torch.

  python3 tests/oracle/run_tests.py           the CPU suite (memory "host"), test_oracle.py
  python3 tests/oracle/run_tests.py --cuda    the GPU suite (memory "cuda"), test_oracle_cuda.py

Exit 77 (CTest's SKIP_RETURN_CODE here) with a SKIP line when this python has no torch, or, for
--cuda, no CUDA device.
"""
import os
import sys
import unittest

SKIP = 77


def main() -> int:
    cuda = "--cuda" in sys.argv[1:]
    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        print(f"SKIP: {sys.executable} cannot import torch ({exc}); set KJUDGE_TORCH_PYTHON to a "
              "python3 with torch (Debian: apt-get install python3-torch)")
        return SKIP
    if cuda and not torch.cuda.is_available():
        print(f"SKIP: no CUDA device visible to torch {torch.__version__}; the memory 'cuda' "
              "oracle tests run on a GPU host")
        return SKIP
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        ["test_oracle_cuda" if cuda else "test_oracle", "test_warm_compile"] +
        ([] if cuda else ["test_regimes", "test_tolerance_vectors"]))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
