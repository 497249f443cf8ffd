"""fg.lax.select_n and the dynamic-slice family: values vs NumPy (with XLA's clamping of
start indices), derivatives vs finite differences, vmap with batched operands and/or
batched start indices vs a loop, jit vs eager, errors."""
import numpy as np
import pytest

import fungrad as fg
from fungrad.test_util import check_grads

L = fg.lax
RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 4))


def _np_slice(x, starts, sizes):
    idx = []
    for s, d, k in zip(starts, x.shape, sizes):
        s = s + d if s < 0 else s
        s = min(max(s, 0), d - k)
        idx.append(slice(s, s + k))
    return tuple(idx)


@pytest.mark.parametrize("starts", [(0, 0), (2, 1), (-1, -2), (7, 9), (-9, 3)])
def test_dynamic_slice_values_clamp_like_xla(starts):
    got = L.dynamic_slice(X, starts, (2, 3))
    np.testing.assert_array_equal(got, X[_np_slice(X, starts, (2, 3))])
    assert not np.shares_memory(got, X)


@pytest.mark.parametrize("starts", [(0, 0), (4, 3), (-1, 0), (-10, 2)])
def test_dynamic_update_slice_values(starts):
    u = np.ones((2, 2))
    got = L.dynamic_update_slice(X, u, starts)
    want = X.copy()
    want[_np_slice(X, starts, (2, 2))] = u
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(X, got)  # the operand is not written


def test_in_dim_helpers():
    np.testing.assert_array_equal(L.dynamic_slice_in_dim(X, 1, 2, axis=1), X[:, 1:3])
    np.testing.assert_array_equal(L.dynamic_index_in_dim(X, -1), X[-1:])
    np.testing.assert_array_equal(L.dynamic_index_in_dim(X, 2, axis=1, keepdims=False),
                                  X[:, 2])


def test_select_n_values():
    w = np.array([[0, 1, 2, 9]] * 5)  # (out of range: clamped)
    cs = [X, X + 1, X + 2]
    np.testing.assert_array_equal(L.select_n(w, *cs), np.choose(w, cs, mode="clip"))
    np.testing.assert_array_equal(L.select_n(True, X, X + 1), X + 1)
    np.testing.assert_array_equal(L.select_n(1, X, X + 1, X + 2), X + 1)


def test_gradients_match_finite_differences():
    u = RNG.standard_normal((2, 3))
    check_grads(lambda x: L.dynamic_slice(x, (3, -2), (2, 2)) ** 2, (X,), order=2)
    check_grads(lambda x, u: L.dynamic_update_slice(x, u, (4, 1)) ** 2, (X, u), order=2)
    check_grads(lambda a, b: L.select_n(X > 0, a, b) * a, (X, X + 1.0), order=2)


def test_gradients_with_traced_start_under_jit():
    f = fg.jit(fg.grad(lambda x, i: (L.dynamic_slice(x, (i, 1), (2, 2)) ** 2).sum()))
    for i in (0, 3, 7, -1):
        g = np.zeros_like(X)
        sl = _np_slice(X, (i, 1), (2, 2))
        g[sl] = 2 * X[sl]
        np.testing.assert_allclose(f(X, i), g)
    assert f.cache_info().misses == 1  # one trace for every start value


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None)])
def test_vmap_dynamic_slice_batched_starts(in_axes):
    xs = RNG.standard_normal((3, 5, 4))
    idx = np.array([0, 4, -1])
    f = lambda x, i: L.dynamic_slice(x, (i, 1), (2, 3))  # noqa: E731
    x_in = xs if in_axes[0] == 0 else X
    i_in = idx if in_axes[1] == 0 else 2
    got = fg.vmap(f, in_axes=in_axes)(x_in, i_in)
    want = [f(x_in[b] if in_axes[0] == 0 else X, i_in[b] if in_axes[1] == 0 else 2)
            for b in range(3)]
    np.testing.assert_array_equal(got, np.stack(want))


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (None, 0, 0), (0, None, 0), (None, None, 0),
                                     (0, 0, None)])
def test_vmap_dynamic_update_slice_batched_starts(in_axes):
    xs, us, idx = RNG.standard_normal((3, 5, 4)), RNG.standard_normal((3, 2, 2)), np.array(
        [0, 4, -7])
    f = lambda x, u, i: L.dynamic_update_slice(x, u, (i, 3))  # noqa: E731
    args = [a if ax == 0 else a[0] for a, ax in zip((xs, us, idx), in_axes)]
    got = fg.vmap(f, in_axes=in_axes)(*args)
    want = [f(*[a[b] if ax == 0 else a for a, ax in zip(args, in_axes)]) for b in range(3)]
    np.testing.assert_array_equal(got, np.stack(want))
    # and the gradient of the batched update (gather + select rules)
    g = fg.vmap(fg.grad(lambda x, u, i: (f(x, u, i) ** 2).sum(), argnums=(0, 1)),
                in_axes=in_axes)(*args)
    for b in range(3):
        one = [a[b] if ax == 0 else a for a, ax in zip(args, in_axes)]
        gb = fg.grad(lambda x, u, i: (f(x, u, i) ** 2).sum(), argnums=(0, 1))(*one)
        np.testing.assert_allclose(g[0][b], gb[0])
        np.testing.assert_allclose(g[1][b], gb[1])


def test_vmap_select_n_batched_which():
    w = np.array([0, 2, 1])
    cs = [RNG.standard_normal((3, 4)) for _ in range(3)]
    got = fg.vmap(lambda w, a, b, c: L.select_n(w, a, b, c))(w, *cs)
    np.testing.assert_array_equal(got, np.stack([cs[w[b]][b] for b in range(3)]))
    got = fg.vmap(lambda a: L.select_n(w[1], a, a + 1, a + 2))(cs[0])
    np.testing.assert_array_equal(got, cs[0] + 2)


def test_jit_matches_eager():
    u = np.ones((2, 2))

    def f(x, u, i, j):
        y = L.dynamic_update_slice(x, u, (i, j))
        return L.select_n(i > 1, L.dynamic_slice(y, (j, i), (3, 2)), L.dynamic_slice(
            y, (i, j), (3, 2)))
    jf = fg.jit(f)
    for i, j in [(0, 0), (2, 3), (-1, 9)]:
        np.testing.assert_array_equal(jf(X, u, i, j), f(X, u, i, j))
    assert "if" not in jf.lower(X, u, 0, 0).source.split("\n", 1)[1]  # straight-line code


def test_errors_name_the_argument():
    with pytest.raises(TypeError, match="start_indices has 1 entries"):
        L.dynamic_slice(X, (1,), (2, 2))
    with pytest.raises(TypeError, match="slice_sizes"):
        L.dynamic_slice(X, (1, 1), (6, 2))
    with pytest.raises(TypeError, match="start index 0 must be an integer"):
        L.dynamic_slice(X, (1.0, 1), (2, 2))
    with pytest.raises(TypeError, match="case 1 is f64\\[3\\]"):
        L.select_n(True, X, np.ones(3))
    with pytest.raises(TypeError, match="bool `which` selects between 2"):
        L.select_n(True, X, X, X)
    with pytest.raises(TypeError, match="must have the operand's dtype"):
        L.dynamic_update_slice(X, np.ones((6, 1)), (0, 0))
