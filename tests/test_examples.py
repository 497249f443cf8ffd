"""The README's example trains; the benchmark runner runs and its gradient checks pass."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mnist_mlp_example_learns():
    pytest.importorskip("sklearn", reason="the example needs scikit-learn (extra 'examples')")
    example = _load(ROOT / "examples" / "mnist_mlp.py")
    assert example.main(epochs=5, verbose=False) > 0.85


def test_benchmark_runner_checks_and_runs():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                          "--only", "scalar"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "gradient checks against the hand-written NumPy: OK" in out.stdout
    assert "per primitive" in out.stdout


def test_per_sample_gradients_example_matches_loop_and_learns():
    pytest.importorskip("sklearn", reason="the example needs scikit-learn (extra 'examples')")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        example = _load(ROOT / "examples" / "per_sample_gradients.py")
        assert example.main(batch=32, steps=40, verbose=False) > 0.6
    finally:
        sys.path.remove(str(ROOT / "examples"))


def test_jacobians_example_agrees_with_hand_derivation():
    example = _load(ROOT / "examples" / "jacobians.py")
    t_fwd, t_rev = example.main(verbose=False)
    assert t_fwd > 0 and t_rev > 0
