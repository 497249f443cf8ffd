"""CuPy backend: CuPy arrays in, CuPy arrays out, same numbers as NumPy.

Skips (with the reason) where CuPy or a GPU is missing.
"""
import numpy as np
import pytest

from fungrad.backend import cupy_available

pytestmark = pytest.mark.skipif(not cupy_available(),
                                reason="CuPy with a visible GPU is not available here")


def test_grad_on_cupy_arrays_matches_numpy():
    import cupy as cp
    import fungrad as fg
    import fungrad.numpy as fnp

    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ w) ** 2)
    w = np.random.default_rng(0).standard_normal((3, 2))
    x = np.random.default_rng(1).standard_normal((4, 3))
    g_np = fg.grad(loss)(w, x)
    g_cp = fg.grad(loss)(cp.asarray(w), cp.asarray(x))
    assert isinstance(g_cp, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(g_cp), g_np, rtol=1e-10)


def test_device_put_round_trip():
    import cupy as cp
    import fungrad as fg
    x = {"a": np.arange(3.0)}
    on_gpu = fg.device_put(x, "gpu")
    assert isinstance(on_gpu["a"], cp.ndarray)
    np.testing.assert_array_equal(fg.device_put(on_gpu, "cpu")["a"], x["a"])


def test_jit_on_cupy_arrays_matches_numpy():
    import cupy as cp
    import fungrad as fg
    import fungrad.numpy as fnp

    w0 = np.random.default_rng(0).standard_normal((3, 2))

    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ (w + w0)) ** 2)
    w = np.random.default_rng(1).standard_normal((3, 2))
    x = np.random.default_rng(2).standard_normal((4, 3))
    step = fg.jit(fg.value_and_grad(loss))
    v_np, g_np = step(w, x)
    v_cp, g_cp = step(cp.asarray(w), cp.asarray(x))
    assert isinstance(g_cp, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(g_cp), g_np, rtol=1e-10)
    np.testing.assert_allclose(float(v_cp), float(v_np), rtol=1e-12)
    per_ex = fg.vmap(fg.jit(fg.grad(loss)), in_axes=(None, 0))(cp.asarray(w), cp.asarray(x))
    assert isinstance(per_ex, cp.ndarray) and per_ex.shape == (4, 3, 2)
