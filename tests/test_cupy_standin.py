"""The CuPy tests without a GPU: tests/test_cupy_registry.py and tests/test_cupy.py run in a
subprocess with tests/cupy_standin/ on PYTHONPATH, a CPU stand-in that follows CuPy's rules
(no implicit host copies, no NumPy operands, only CuPy's functions and their parameters; see
its docstring). A GPU run with real CuPy stays the reference for what it cannot model."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "tests" / "cupy_standin"


def _run(args, timeout):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(STANDIN), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_standin_rejects_what_cupy_rejects():
    script = """
import numpy as np, cupy
x = cupy.asarray(np.ones(3))
def raises(fn, err=TypeError):
    try:
        fn()
    except err:
        return
    raise AssertionError(f"no {err.__name__}")
raises(lambda: np.asarray(x))                       # no implicit device-to-host copy
raises(lambda: x + np.ones(3))                      # no NumPy operand
raises(lambda: np.add.at(x, [0], 1.0))              # ufunc methods do not dispatch
raises(lambda: np.sum(x, initial=0.0))              # CuPy's sum has no initial=
raises(lambda: cupy.multiply.at(x, [0], 2.0), NotImplementedError)
cupy.add.at(x, [0, 0], 1.0)
assert x.get().tolist() == [3.0, 1.0, 1.0] and type(np.sum(x)) is cupy.ndarray
assert (x + np.float64(1.0)).get().tolist() == [4.0, 2.0, 2.0]
"""
    done = _run(["-c", script], 60)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
def test_cupy_tests_pass_on_the_cpu_standin():
    done = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                 "--tb=short", "tests/test_cupy_registry.py", "tests/test_cupy.py"], 500)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout.splitlines()[-1]
