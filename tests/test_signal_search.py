"""convolve1d / correlate1d (fnp.convolve, fnp.correlate, 1-D fg.scipy.signal) and the
searchsorted primitive: NumPy parity over modes / sides / sorters, vmap over either operand
against a loop, jit, and the dtypes np.convolve has no loop for."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

MODES = ["full", "same", "valid"]
SIZES = [(6, 3), (3, 6), (4, 4), (1, 5), (5, 1)]


def _pair(n, m, complex_, seed=0):
    rng = np.random.default_rng(seed)
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    if complex_:
        a, v = a + 1j * rng.standard_normal(n), v - 1j * rng.standard_normal(m)
    return a, v


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n, m", SIZES)
@pytest.mark.parametrize("complex_", [False, True])
def test_convolve_values_vmap_and_jit(name, mode, n, m, complex_):
    f, ref = getattr(fnp, name), getattr(np, name)
    a, v = _pair(n, m, complex_)
    A, V = np.stack([a, 2 * a, -a]), np.stack([v, 3 * v, v[::-1]])
    np.testing.assert_allclose(fg.jit(lambda a, v: f(a, v, mode))(a, v), ref(a, v, mode))
    loops = {
        (0, 0): [ref(x, y, mode) for x, y in zip(A, V)],
        (0, None): [ref(x, v, mode) for x in A],
        (None, 0): [ref(a, y, mode) for y in V],
    }
    for axes, want in loops.items():
        args = (A if axes[0] == 0 else a, V if axes[1] == 0 else v)
        got = fg.vmap(lambda a, v: f(a, v, mode), in_axes=axes)(*args)
        np.testing.assert_allclose(got, np.stack(want), atol=1e-12)
    got = fg.vmap(lambda v: f(a, v, mode), in_axes=1)(V.T)  # (a batch axis that is last)
    np.testing.assert_allclose(got, np.stack(loops[(None, 0)]), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int8])
def test_convolve_keeps_numpy_dtype(dtype):
    a, v = np.arange(5).astype(dtype), np.array([1, 2, 1]).astype(dtype)
    want = np.convolve(a, v, "same")
    got = fg.jit(lambda a: fnp.convolve(a, v, "same"))(a)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(float), want.astype(float), rtol=1e-3)


def test_convolve_grad_matches_hand_written():
    a, v = _pair(50, 7, False, seed=3)
    z = np.convolve(a, v)
    da, dv = fg.grad(lambda a, v: 0.5 * fnp.sum(fnp.convolve(a, v) ** 2), argnums=(0, 1))(a, v)
    np.testing.assert_allclose(da, np.correlate(z, v, "valid"))
    np.testing.assert_allclose(dv, np.correlate(z, a, "valid"))


SORTED = np.array([-1.0, 0.0, 0.5, 0.5, 1.5, np.inf, np.nan])
VALUES = np.array([[0.5, np.nan, -3.0, np.inf], [2.0, 0.0, 0.7, 1.5]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy_and_vmap_over_either_argument(side):
    f = lambda a, v: fnp.searchsorted(a, v, side)  # noqa: E731
    want = np.searchsorted(SORTED, VALUES, side)
    got = fg.jit(f)(SORTED, VALUES)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert np.array_equal(fg.vmap(f, in_axes=(None, 0))(SORTED, VALUES), want)
    assert np.array_equal(fg.vmap(f, in_axes=(None, 1))(SORTED, VALUES), want.T)
    rows = np.stack([SORTED, SORTED * 2 - 1, np.sort(SORTED[::-1] * -1)])
    loop = np.stack([np.searchsorted(r, VALUES[0], side) for r in rows])
    assert np.array_equal(fg.vmap(f, in_axes=(0, None))(rows, VALUES[0]), loop)
    both = np.stack([np.searchsorted(r, VALUES[k % 2], side) for k, r in enumerate(rows)])
    vs = np.stack([VALUES[k % 2] for k in range(3)])
    assert np.array_equal(fg.jit(fg.vmap(f))(rows, vs), both)
    nested = fg.vmap(fg.vmap(f, in_axes=(None, 0)), in_axes=(0, None))(rows, VALUES)
    assert np.array_equal(nested, np.stack([np.searchsorted(r, VALUES, side) for r in rows]))


def test_searchsorted_sorter_and_no_derivative():
    a = np.array([3.0, -1.0, 2.0, 0.5])
    order = np.argsort(a)
    v = np.array([0.0, 2.5, 3.0])
    for side in ("left", "right"):
        want = np.searchsorted(a, v, side, sorter=order)
        got = fg.jit(lambda a: fnp.searchsorted(a, v, side, sorter=order))(a)
        assert np.array_equal(got, want)
    g = fg.grad(lambda v: fnp.sum(v * fnp.searchsorted(a[order], v)))(v)
    np.testing.assert_array_equal(g, np.searchsorted(a[order], v))
