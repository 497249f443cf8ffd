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


# ----------------------------------------------------------------------------- regressions
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("usize", [(0, 2), (3, 0), (0, 0)])
def test_vmap_dynamic_update_slice_empty_update_batched_starts(jit, usize):
    # an empty update writes nothing; the batched rule used to gather from it (IndexError)
    f = fg.vmap(lambda i, j: L.dynamic_update_slice(X, np.ones(usize), (i, j)))
    f = fg.jit(f) if jit else f
    out = f(np.array([-1, 0, 9]), np.array([2, 7, -3]))
    np.testing.assert_array_equal(out, np.broadcast_to(X, (3,) + X.shape))
    g = fg.vmap(fg.grad(lambda x, i: (L.dynamic_update_slice(x, np.ones(usize), (i, 0)) ** 2)
                        .sum()), (None, 0))(X, np.array([1, -2]))
    np.testing.assert_allclose(g, np.broadcast_to(2 * X, (2,) + X.shape))


def test_uint64_start_above_int64_range_clamps_high_under_vmap():
    # eager/jit clamp a huge uint64 start to the end; vmap used to wrap it negative -> start 0
    x = np.arange(10.)
    s = np.array([2**63 + 5, 3], np.uint64)
    want = np.stack([L.dynamic_slice(x, (s[0],), (2,)), x[3:5]])
    np.testing.assert_array_equal(want[0], [8., 9.])
    np.testing.assert_array_equal(fg.vmap(lambda i: L.dynamic_slice(x, (i,), (2,)))(s), want)
    np.testing.assert_array_equal(
        fg.jit(fg.vmap(lambda i: L.dynamic_slice(x, (i,), (2,))))(s), want)
    u = np.array([-1., -2.])
    want_u = np.stack([L.dynamic_update_slice(x, u, (s[0],)),
                       L.dynamic_update_slice(x, u, (s[1],))])
    np.testing.assert_array_equal(
        fg.vmap(lambda i: L.dynamic_update_slice(x, u, (i,)))(s), want_u)


def test_select_n_uint64_which_and_many_cases():
    a, b, c = np.zeros(3), np.ones(3), np.full(3, 2.)
    w = np.array([2**63 + 1, 1, 0], np.uint64)  # out of range clamps to the last case
    for f in (L.select_n, fg.jit(L.select_n), fg.vmap(L.select_n)):
        np.testing.assert_array_equal(f(w, a, b, c), [2., 1., 0.])
    many = [np.full(2, float(k)) for k in range(70)]  # np.choose takes at most 32/64
    w = np.array([69, -3])
    for f in (L.select_n, fg.jit(L.select_n)):
        np.testing.assert_array_equal(f(w, *many), [69., 0.])
    check_grads(lambda *cs: L.select_n(np.array([40, 3]), *cs), many[:41], order=1,
                modes=("rev",))


def test_slice_sizes_and_start_array_errors():
    with pytest.raises(TypeError, match="slice_sizes must be a sequence of Python"):
        L.dynamic_slice(np.arange(10.), (0,), (2.5,))  # was silently truncated to 2
    with pytest.raises(TypeError, match="slice_sizes must be a sequence"):
        fg.jit(lambda n: L.dynamic_slice(np.arange(10.), (0,), (n,)))(3)
    with pytest.raises(TypeError, match=r"must be 1-d .* got i64\[1,2\]"):
        L.dynamic_slice(X, np.array([[1, 2]]), (1, 2))
    np.testing.assert_array_equal(L.dynamic_slice(X, (0, 1), (np.int64(2), 2)), X[:2, 1:3])


def test_pad_value_dtype_same_eagerly_and_under_jit():
    x32 = np.ones(3, np.float32)
    cfg = [(1, 1, 0)]
    # a weak Python scalar converts, eagerly and when traced by jit (jit used to raise)
    for v in (2.0, 2, True):
        want = np.array([v, 1, 1, 1, v], np.float32)
        np.testing.assert_array_equal(L.pad(x32, v, cfg), want)
        np.testing.assert_array_equal(fg.jit(lambda x, v: L.pad(x, v, cfg))(x32, v), want)
        assert fg.jit(lambda x, v: L.pad(x, v, cfg))(x32, v).dtype == np.float32
    # a strong value of another dtype is an error in both (eager used to cast silently)
    for f in (lambda x, v: L.pad(x, v, cfg), fg.jit(lambda x, v: L.pad(x, v, cfg))):
        with pytest.raises(TypeError, match=r"operand's dtype \(float32\), got f64\[\]"):
            f(x32, np.float64(2.))
    # a value that would change on conversion is an error (0.5 used to pad an int with 0)
    with pytest.raises(TypeError, match="padding_value 0.5"):
        L.pad(np.arange(3), 0.5, cfg)
    with pytest.raises(TypeError, match="out of range for the operand's dtype int8"):
        L.pad(np.arange(3, dtype=np.int8), 300, cfg)
    with pytest.raises(TypeError, match="padding_config must hold one"):
        L.pad(x32, 0., [(1.5, 1, 0)])  # was silently truncated to 1
    with pytest.raises(ValueError, match="padding_config must hold one"):
        L.pad(x32, 0., [(1, 1)])
    check_grads(lambda v: L.pad(np.ones(3), v, [(2, -1, 1)]), (2.0,), order=2)
