"""Searching, counting, sets and histograms: NumPy parity over keyword arguments on traced
values (jvp with zero tangents: the traced path, concrete values), JAX's size= semantics,
and the errors under jit/vmap."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError


def traced(f, *args):
    """f on traced (JVP) arguments: the traced path with concrete values."""
    tangents = tuple(np.zeros_like(a) if np.asarray(a).dtype.kind in "fc"
                     else np.zeros(np.shape(a), fg.float0) for a in args)
    return fg.jvp(f, args, tangents)[0]


def same(got, want):
    got, want = fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


X = np.array([3.0, 1.0, 2.0, 3.0, 1.0, 5.0, np.nan, np.nan])
I = np.array([[2, 0, 2], [1, 0, 2]])


@pytest.mark.parametrize("kw", [{}, {"return_index": True}, {"return_inverse": True},
                                {"return_counts": True},
                                {"return_index": True, "return_inverse": True,
                                 "return_counts": True}, {"equal_nan": False}])
@pytest.mark.parametrize("x", [X, I])
def test_unique_matches_numpy_on_traced_values(x, kw):
    same(traced(lambda x: fnp.unique(x, **kw), x), np.unique(x, **kw))


def test_unique_axis_on_traced_values():
    same(traced(lambda x: fnp.unique(x, axis=1, return_counts=True), I),
         np.unique(I, axis=1, return_counts=True))


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse",
                                  "unique_all"])
def test_unique_functions_match_numpy(name):
    got = traced(getattr(fnp, name), I)
    want = getattr(np, name)(I)
    same(tuple(got), tuple(want))
    assert type(got).__name__ == type(want).__name__ or name == "unique_values"


def test_unique_size_matches_jax():
    jnp = pytest.importorskip("jax.numpy")
    x = np.array([3, 1, 2, 3, 1, 5])
    for size, fill in [(2, None), (6, None), (6, -7)]:
        want = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True,
                          size=size, fill_value=fill)
        got = fg.jit(lambda x: fnp.unique(x, True, True, True, size=size,
                                          fill_value=fill))(x)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, np.asarray(w).reshape(np.shape(g)))


def test_value_dependent_shapes_need_size_under_jit_and_vmap():
    for f in [fnp.unique, fnp.flatnonzero, fnp.argwhere, fnp.unique_values,
              lambda x: fnp.intersect1d(x, x), lambda x: fnp.setdiff1d(x, x[:1])]:
        with pytest.raises(ConcretizationError, match="size="):
            fg.jit(f)(np.ones(3))
        with pytest.raises(ConcretizationError):
            fg.vmap(f)(np.ones((2, 3)))
    with pytest.raises(ConcretizationError, match="length="):
        fg.jit(fnp.bincount)(np.array([1, 2]))


def test_unique_grad_goes_to_first_occurrences():
    g = fg.grad(lambda x: fnp.sum(fnp.unique(x) * np.array([1.0, 2.0, 3.0])))(
        np.array([2.0, 1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(g, [2.0, 1.0, 0.0, 3.0])
    g = fg.grad(lambda x: fnp.sum(fnp.unique(x, size=4, fill_value=0.0)))(
        np.array([2.0, 1.0, 2.0]))
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0])


@pytest.mark.parametrize("kw", [{}, {"left": -1.0, "right": 9.0}, {"period": 4.0}])
def test_interp_matches_numpy(kw):
    xp, fp = np.array([0.0, 1.0, 2.5, 3.0]), np.array([1.0, -1.0, 2.0, 0.5])
    x = np.linspace(-2, 6, 23)
    same(traced(lambda x, xp, fp: fnp.interp(x, xp, fp, **kw), x, xp, fp),
         np.interp(x, xp, fp, **kw))
    same(traced(lambda x: fnp.interp(x, xp, fp + 1j * fp, **kw), x),
         np.interp(x, xp, fp + 1j * fp, **kw))


def test_interp_derivative_in_sample_points():
    xp, fp = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 1.0])
    g = fg.grad(lambda xp: fnp.interp(2.0, xp, fp))(xp)
    eps = 1e-6
    fd = [(np.interp(2.0, xp + eps * e, fp) - np.interp(2.0, xp - eps * e, fp)) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)


@pytest.mark.parametrize("bins", [np.array([0.0, 1.0, 2.5]), np.array([2.5, 1.0, 0.0])])
@pytest.mark.parametrize("right", [False, True])
def test_digitize_matches_numpy(bins, right):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0])
    same(traced(lambda x: fnp.digitize(x, bins, right), x), np.digitize(x, bins, right))
    same(traced(lambda x, b: fnp.digitize(x, b, right), x, bins), np.digitize(x, bins, right))


def test_bincount_matches_numpy():
    x = np.array([0, 1, 1, 4])
    w = np.array([0.5, 1.0, 2.0, -1.0], np.float32)
    same(traced(fnp.bincount, x), np.bincount(x))
    same(traced(lambda w: fnp.bincount(x, w, minlength=7), w), np.bincount(x, w, 7))
    same(fg.jit(lambda x: fnp.bincount(x, length=3))(x), np.bincount(x)[:3])  # JAX drops
    g = fg.grad(lambda w: fnp.sum(fnp.bincount(x, w) ** 2))(w.astype(float))
    np.testing.assert_allclose(g, 2 * np.bincount(x, w)[x])


@pytest.mark.parametrize("bins", [3, np.array([-1.0, 0.5, 1.0, 4.0]), "auto", "sturges"])
@pytest.mark.parametrize("rng", [None, (0.0, 3.0)])
@pytest.mark.parametrize("density", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_histogram_matches_numpy(bins, rng, density, weighted):
    if weighted and isinstance(bins, str):
        pytest.skip("NumPy estimates no bin count for weighted data")
    a = np.array([0.0, 0.5, 1.0, 1.0, 2.0, 3.0, 5.0])
    w = np.linspace(0.5, 2.0, 7) if weighted else None
    same(traced(lambda a: fnp.histogram(a, bins, rng, density, w), a),
         np.histogram(a, bins, rng, density, w))
    same(traced(lambda a: fnp.histogram_bin_edges(a, bins, rng), a),
         np.histogram_bin_edges(a, bins, rng))


def test_histogram_int_and_float32_dtypes():
    a = np.array([1, 2, 2, 5])
    same(traced(lambda w: fnp.histogram(a, 3, weights=w), np.ones(4, np.float32)),
         np.histogram(a, 3, weights=np.ones(4, np.float32)))
    same(fg.jit(lambda a: fnp.histogram(a, 3, (0, 6)))(a), np.histogram(a, 3, (0, 6)))


@pytest.mark.parametrize("bins", [2, [2, 3], [np.array([0.0, 1.0, 4.0]), 2]])
def test_histogram2d_and_dd_match_numpy(bins):
    x, y = np.array([0.0, 1.0, 2.0, 3.5]), np.array([1.0, 0.0, 2.0, 2.0])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    for density in (False, True):
        same(traced(lambda x, y: fnp.histogram2d(x, y, bins, None, density, w), x, y),
             np.histogram2d(x, y, bins, None, density, w))
        pts = np.stack([x, y], 1)
        same(traced(lambda p: fnp.histogramdd(p, bins, density=density, weights=w), pts),
             np.histogramdd(pts, bins, density=density, weights=w))


@pytest.mark.parametrize("name", ["intersect1d", "union1d", "setdiff1d", "setxor1d"])
def test_set_functions_match_numpy(name):
    a, b = np.array([5, 1, 3, 3, 7]), np.array([3, 8, 1, 1])
    f, g = getattr(fnp, name), getattr(np, name)
    same(traced(f, a.astype(float), b.astype(float)), g(a.astype(float), b.astype(float)))
    want = g(a, b)
    got = fg.jit(lambda a, b: f(a, b, size=len(want) + 2, fill_value=-1))(a, b)
    np.testing.assert_array_equal(got, np.concatenate([want, [-1, -1]]))


def test_intersect1d_return_indices_and_isin():
    a, b = np.array([5.0, 1.0, 3.0]), np.array([3.0, 8.0, 1.0])
    same(traced(lambda a: fnp.intersect1d(a, b, return_indices=True), a),
         np.intersect1d(a, b, return_indices=True))
    for invert in (False, True):
        same(fg.jit(lambda a: fnp.isin(a.reshape(3, 1), b, invert=invert))(a),
             np.isin(a.reshape(3, 1), b, invert=invert))


def test_nonzero_family_size_matches_jax():
    jnp = pytest.importorskip("jax.numpy")
    x = np.array([[0, 2, 0], [1, 0, 3]])
    for size, fill in [(2, None), (5, None), (5, -1), (0, None)]:
        for f, jf in [(fnp.nonzero, jnp.nonzero), (fnp.argwhere, jnp.argwhere),
                      (fnp.flatnonzero, jnp.flatnonzero)]:
            got = fg.jit(lambda x: f(x, size=size, fill_value=fill))(x)
            want = jf(x, size=size, fill_value=fill)
            for g, w in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
                np.testing.assert_array_equal(g, w)
    same(traced(fnp.argwhere, x), np.argwhere(x))
    same(traced(fnp.flatnonzero, x), np.flatnonzero(x))


def test_lexsort_matches_numpy():
    keys = np.array([[1, 0, 1, 0, 2], [3, 3, 1, 1, 1]])
    same(fg.jit(fnp.lexsort)(keys), np.lexsort(keys))
    same(fg.jit(lambda k: fnp.lexsort(k, axis=0))(keys.T), np.lexsort(keys.T, axis=0))
    # a 1-D keys array is n 0-d keys to NumPy: one position, index 0 (jit raised from
    # take_along_axis)
    one = np.array([3, 1, 2, 1])
    assert fg.jit(fnp.lexsort)(one) == np.lexsort(one) == 0
    assert fg.jit(fnp.lexsort)(one).dtype == np.intp


def test_nonzero_without_size_under_jit_names_size():
    with pytest.raises(fg.errors.ConcretizationError, match=r"fnp\.nonzero.*size="):
        fg.jit(fnp.nonzero)(np.array([0.0, 2.0]))


def test_histogram_with_integer_weights_keeps_their_dtype():
    a = np.array([0.5, 1.5, 3.0, 3.5])
    for w in (np.array([1, 2, 3, 4]), np.array([1, 2, 3, 4], np.int32),
              np.array([1.0, 2.0, 3.0, 4.0], np.float32)):
        want = np.histogram(a, 2, (0, 4), weights=w)[0]
        got = fg.jit(lambda a, w: fnp.histogram(a, 2, (0, 4), weights=w)[0])(a, w)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_histogram2d_edges_from_a_float_range_are_float64_as_numpy():
    # np.histogramdd takes the edges' dtype from the range alone (np.histogram also from
    # the sample)
    for a, kw in [(np.float32([1, 2]), dict(range=[[0, 5], [0, 5]])), (np.float32([1, 2]), {}),
                  (np.int32([1, 2]), {}), (np.float16([1, 3]), dict(range=[[0, 5], [0, 5]]))]:
        want = np.histogram2d(a, a, bins=2, **kw)
        got = fg.jit(lambda a: fnp.histogram2d(a, a, bins=2, **kw))(a)
        for w, g in zip(want, got):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w)


def test_digitize_and_interp_refuse_complex_sample_points_as_numpy():
    z = np.complex64([1])
    with pytest.raises(TypeError, match="x may not be complex"):
        fg.jit(fnp.digitize)(z, np.float32([0, 2]))
    with pytest.raises(TypeError, match="xp must be real"):
        fg.jit(fnp.interp)(np.float32([1]), np.complex64([0, 2]), np.float32([0, 2]))
    np.testing.assert_allclose(fg.jit(fnp.interp)(np.float32([1]), np.float32([0, 2]), z * [0, 2j]),
                               np.interp(np.float32([1]), np.float32([0, 2]), z * [0, 2j]))
