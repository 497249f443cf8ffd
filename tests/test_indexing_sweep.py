"""Fixes from a differential sweep of indexing against NumPy 2 (values, dtypes, errors of
`x[idx]` on traced values: eager on a JVP tracer, jit, vmap) and JAX 0.10.2 (`x.at[idx]`
semantics, modes and derivatives). Each test failed before its fix; expected values are
NumPy's own, computed here, or written out."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

X = np.arange(20.0).reshape(4, 5)


def _traced_matches_numpy(x, idx):
    """x[idx] under jit, vmap (a batch of one) and on a JVP tracer gives NumPy's x[idx]."""
    want = x[idx]
    for got in (fg.jit(lambda a: a[idx])(x),
                fg.vmap(lambda a: a[idx])(x[None])[0],
                fg.jvp(lambda a: a[idx], (x,), (x,))[0]):
        got = np.asarray(got)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- x[idx]
@pytest.mark.parametrize("idx", [
    True, False, np.True_, np.array(True), np.array(False), (None, True), (True, 0),
    (0, np.array(False)), (np.array(True), [0, 2]), (slice(None), True, [1, 3]),
    (Ellipsis, True), (True, Ellipsis, 1), (True, True)], ids=repr)
def test_zero_d_boolean_index_adds_an_axis_as_numpy(idx):
    # was IndexError ("a bare boolean index is not supported" / "arrays used as indices
    # must be of integer type, got bool"); NumPy reads a 0-d bool as a (1,) / (0,) advanced
    # index on a new unit axis
    _traced_matches_numpy(X, idx)


def test_zero_d_boolean_index_gradient():
    g = fg.grad(lambda a: fnp.sum(a[True, 1] * 3.0))(X)
    want = np.zeros_like(X)
    want[1] = 3.0
    np.testing.assert_array_equal(g, want)
    assert np.shape(fg.grad(lambda a: fnp.sum(a[False]))(X)) == X.shape


@pytest.mark.parametrize("idx", [[], ([], []), (slice(None), []), ([], 0)], ids=repr)
def test_empty_list_index_is_an_integer_index(idx):
    # was IndexError "arrays used as indices must be of integer type, got float64":
    # NumPy indexes with an empty list as with an empty intp array
    _traced_matches_numpy(X, idx)


def test_scalar_bool_in_at_raises_a_clear_index_error():
    with pytest.raises(IndexError, match="0-d boolean index"):
        fnp.at(X)[True].add(1.0)


# ----------------------------------------------------------------------------- .at[].get
@pytest.mark.parametrize("idx", [7, -9, np.array([0, 5, -7, 2]), (np.array([1, 9]), 0)],
                         ids=repr)
def test_get_mode_drop_fills_as_jax(idx):
    # was: clamped like 'clip'; JAX's get(mode='drop') is a FILL_OR_DROP gather, which
    # fills out-of-bounds positions (NaN for floats), as mode='fill'
    want = np.asarray(fnp.at(X)[idx].get(mode="fill"))
    assert np.isnan(want).any()
    np.testing.assert_array_equal(fnp.at(X)[idx].get(mode="drop"), want)
    np.testing.assert_array_equal(fg.jit(lambda a: a.at[idx].get(mode="drop"))(X), want)
    xi = (X * 2).astype(np.int32)
    got = fnp.at(xi)[idx].get(mode="drop", fill_value=-1)
    np.testing.assert_array_equal(got, fnp.at(xi)[idx].get(mode="fill", fill_value=-1))


def test_get_mode_drop_with_traced_indices_fills():
    i = np.array([0, 5, -7, 2])
    got = fg.jit(lambda a, i: a.at[i].get(mode="drop"))(X, i)
    want = X[[0, 0, 0, 2]]
    want[1:3] = np.nan
    np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- .at[].apply
def _apply_at(x, idx, func):
    out = np.array(x, copy=True)
    func.at(out, idx)
    return out


@pytest.mark.parametrize("idx", [np.array([1, 1, 3, 1]), (slice(None), np.array([4, 4, 0])),
                                 (1, np.array([0, 0, 3])), (np.array([2, 2]), np.array([1, 1]))],
                         ids=repr)
def test_apply_with_traced_repeated_indices_applies_once_per_repeat(idx):
    # was: a traced index applied func once per position (repeats ignored); JAX's
    # scatter_apply and np.negative.at apply it once per occurrence (x[1] -> sin(sin(sin)))
    flat = idx if isinstance(idx, tuple) else (idx,)
    arrays = [i for i in flat if isinstance(i, np.ndarray)]

    def f(x, *a):
        it = iter(a)
        ix = tuple(next(it) if isinstance(i, np.ndarray) else i for i in flat)
        return x.at[ix].apply(fnp.sin)

    want = _apply_at(X, idx, np.sin)
    np.testing.assert_allclose(fg.jit(f)(X, *arrays), want, rtol=1e-15)
    np.testing.assert_allclose(fnp.at(X)[idx].apply(fnp.sin), want, rtol=1e-15)


def test_apply_with_traced_repeats_out_of_bounds_and_vmap():
    x = np.arange(1.0, 6.0)
    i = np.array([1, 1, 3, 1, 7])  # 7: dropped
    want = _apply_at(x, i[:4], np.sin)
    np.testing.assert_allclose(fg.jit(lambda x, i: x.at[i].apply(fnp.sin))(x, i), want)
    batch = fg.vmap(lambda x, i: x.at[i].apply(fnp.sin))(np.stack([x, x]), np.stack([i, i[::-1]]))
    np.testing.assert_allclose(batch, np.stack([want, want]))
    # unique_indices=True keeps the one-scatter path (the promise is the caller's)
    j = np.array([0, 2])
    np.testing.assert_allclose(
        fg.jit(lambda x, j: x.at[j].apply(fnp.sin, unique_indices=True))(x, j),
        _apply_at(x, j, np.sin))


def test_traced_take_reads_bool_indices_as_zeros_and_ones():
    # NumPy's take casts bool indices to 0 / 1 (not a mask, as x[bools] is); the traced path
    # raised "boolean mask indexing with a traced mask", or used a list of bools as a mask
    x = np.arange(3.0)
    for idx in (np.array([True, False]), [True, True, False]):
        want = np.take(x, idx)
        np.testing.assert_array_equal(fg.jit(lambda x: fnp.take(x, idx))(x), want)
    np.testing.assert_array_equal(
        fg.jit(lambda x, i: fnp.take(x, i))(x, np.array([True, False])), [1.0, 0.0])
    np.testing.assert_array_equal(
        fg.grad(lambda x: fnp.sum(fnp.take(x, np.array([True, True]))))(x), [0.0, 2.0, 0.0])
