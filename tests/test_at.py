"""`x.at[idx]` functional updates (fungrad/numpy/_at.py, lax/scatter.py): every index kind
and method against NumPy's in-place operations on a copy, repeated indices, JAX's modes,
no mutation, vmap and derivatives."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads

SHAPE = (4, 3, 2)
# every index kind: ints (negative too), slices, None, Ellipsis, integer arrays (repeats,
# broadcasting, negative), boolean masks, and mixtures (adjacent and separated arrays)
INDEXES = {
    "int": 1, "neg_int": -1, "slice": slice(1, None), "rev_slice": slice(None, None, -2),
    "none": (None, 0), "ellipsis": (Ellipsis, 1), "array": np.array([0, 2, 0, 3]),
    "neg_array": np.array([-1, 1, -1]), "array_2d": np.array([[0, 1], [1, 1]]),
    "bool": np.array([True, False, True, True]),
    "bool_2d": np.array([[True, False, True], [False, False, True], [True, True, True],
                         [False, False, False]]),
    "slice_array": (slice(None), np.array([2, 0, 2])),
    "int_array": (0, np.array([1, 1]), slice(None)),
    "separated": (np.array([0, 3, 0]), slice(None), np.array([1, 0, 1])),
    "broadcast": (np.array([[0], [3], [0]]), np.array([1, 2])),
    "ellipsis_array": (Ellipsis, np.array([1, 1, 0])),
    "none_array": (None, np.array([1, 0, 1]), Ellipsis),
}
UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "divide": np.divide, "power": np.power, "min": np.minimum, "max": np.maximum}
METHODS = ["set", *UFUNCS]


def _x(seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, SHAPE)


def _values(idx, seed=1):
    return np.random.default_rng(seed).uniform(0.5, 1.5, np.empty(SHAPE)[idx].shape)


def numpy_update(method, x, idx, v):
    """What NumPy's in-place operation gives on a copy."""
    y = x.copy()
    if method == "set":
        y[idx] = v
    else:
        UFUNCS[method].at(y, idx, v)
    return y


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", INDEXES)
def test_matches_numpy_in_place(kind, method):
    idx, x = INDEXES[kind], _x()
    v = _values(idx)
    before = x.copy()
    want = numpy_update(method, x, idx, v)
    eager = getattr(fnp.at(x)[idx], method)(v)
    traced = fg.jit(lambda x, v: getattr(x.at[idx], method)(v))(x, v)
    np.testing.assert_array_equal(x, before)  # the user's array is never written
    for got in (eager, traced):
        assert type(np.asarray(got)) is np.ndarray and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("kind", INDEXES)
def test_get_and_apply(kind):
    idx, x = INDEXES[kind], _x()
    np.testing.assert_array_equal(fnp.at(x)[idx].get(), x[idx])
    np.testing.assert_array_equal(fg.jit(lambda x: x.at[idx].get())(x), x[idx])
    want = x.copy()
    np.negative.at(want, idx)  # repeated positions are negated again
    np.testing.assert_array_equal(fnp.at(x)[idx].apply(fnp.negative), want)
    np.testing.assert_array_equal(fg.jit(lambda x: x.at[idx].apply(fnp.negative))(x), want)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", ["int", "slice", "array", "bool", "separated", "broadcast",
                                  "ellipsis_array"])
def test_derivatives_match_finite_differences(kind, method):
    idx, x = INDEXES[kind], _x()
    v = _values(idx)
    if method in ("min", "max"):  # no ties between x and v (the derivative has a kink)
        v = v + 0.0123
    check_grads(lambda x, v: getattr(fnp.at(x)[idx], method)(v), (x, v), order=2)


def test_repeated_indices_accumulate():
    x = np.zeros(3)
    idx = np.array([0, 0, 2, 0])
    np.testing.assert_array_equal(fnp.at(x)[idx].add(1.0), [3.0, 0.0, 1.0])
    np.testing.assert_array_equal(fnp.at(x + 2)[idx].multiply(2.0), [16.0, 2.0, 4.0])
    # set: the last update wins, as NumPy's fancy assignment
    np.testing.assert_array_equal(fnp.at(x)[idx].set(np.array([1.0, 2.0, 3.0, 4.0])),
                                  [4.0, 0.0, 3.0])


def test_set_derivative_goes_to_the_last_repeat():
    idx = np.array([0, 1, 0])
    g = fg.grad(lambda v: fnp.sum(fnp.at(np.zeros(2))[idx].set(v) * np.array([1.0, 2.0])))
    np.testing.assert_array_equal(g(np.ones(3)), [0.0, 2.0, 1.0])
    # traced indices (under jit) give the same
    gj = fg.jit(fg.grad(lambda v, i: fnp.sum(fnp.at(np.zeros(2))[i].set(v)
                                             * np.array([1.0, 2.0]))))
    np.testing.assert_array_equal(gj(np.ones(3), idx), [0.0, 2.0, 1.0])


def test_min_max_derivative_goes_to_the_winner_ties_share():
    x = np.array([1.0, 5.0])
    idx = np.array([0, 0, 1])
    v = np.array([0.5, 3.0, 5.0])  # position 0: 0.5 wins; position 1: a tie of x and v
    gx, gv = fg.grad(lambda x, v: fnp.sum(x.at[idx].min(v)), argnums=(0, 1))(x, v)
    np.testing.assert_array_equal(gx, [0.0, 0.5])
    np.testing.assert_array_equal(gv, [1.0, 0.0, 0.5])


def test_multiply_with_repeats_differentiates_exactly():
    # a zero among the repeated factors: the derivative is the product of the others
    x = np.array([2.0, 3.0])
    idx = np.array([0, 0, 0])
    f = lambda v: fnp.sum(fnp.at(x)[idx].multiply(v))
    np.testing.assert_allclose(fg.grad(f)(np.array([0.0, 4.0, 5.0])), [40.0, 0.0, 0.0])
    check_grads(f, (np.array([1.5, 0.7, 1.2]),), order=2)


def test_multiply_traced_repeats_need_unique_promise():
    f = fg.jit(fg.grad(lambda v, i: fnp.sum(fnp.at(np.ones(3))[i].multiply(v))))
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        f(np.ones(2), np.array([0, 0]))
    got = fg.jit(fg.grad(lambda v, i: fnp.sum(fnp.at(np.ones(3))[i].multiply(
        v, unique_indices=True))))(np.array([2.0, 3.0]), np.array([0, 2]))
    np.testing.assert_array_equal(got, [1.0, 1.0])


# --------------------------------------------------------------------------- modes
def test_update_modes_out_of_bounds():
    x = np.arange(5.0)
    idx = np.array([0, 7, -1, -9])
    # default ('promise_in_bounds'), 'drop' and 'fill' drop out-of-bounds updates
    for mode in (None, "promise_in_bounds", "drop", "fill"):
        np.testing.assert_array_equal(fnp.at(x)[idx].add(10.0, mode=mode),
                                      [10.0, 1.0, 2.0, 3.0, 14.0])
    # 'clip' clamps (negative indices wrap first)
    np.testing.assert_array_equal(fnp.at(x)[idx].add(10.0, mode="clip"),
                                  [20.0, 1.0, 2.0, 3.0, 24.0])
    np.testing.assert_array_equal(fnp.at(x)[20].set(9.0), x)
    np.testing.assert_array_equal(fnp.at(x)[20].set(9.0, mode="clip"), [0, 1, 2, 3, 9.0])
    np.testing.assert_array_equal(fnp.at(x)[-1].set(9.0, wrap_negative_indices=False), x)


@pytest.mark.parametrize("method", METHODS)
def test_traced_out_of_bounds_indices_are_dropped(method):
    x = _x()
    idx = np.array([0, 9, -1, -7, 2])
    v = _values(np.array([0, 1, 2, 3, 1]))
    keep = np.array([True, False, True, False, True])
    want = numpy_update(method, x, idx[keep], v[keep])
    f = lambda x, i, v: getattr(x.at[i], method)(v, unique_indices=method in (
        "multiply", "divide", "power"))
    np.testing.assert_allclose(fg.jit(f)(x, idx, v), want, rtol=1e-13)  # traced indices
    np.testing.assert_allclose(fnp.at(x)[idx].__getattribute__(method)(v), want, rtol=1e-13)
    check_grads(lambda x, v: fg.jit(f)(x, idx, v), (x, v), order=1)


def test_get_modes():
    x = np.arange(5.0)
    assert fnp.at(x)[20].get() == 4.0  # clamped by default, as JAX
    assert np.isnan(fnp.at(x)[20].get(mode="fill"))
    assert fnp.at(x)[20].get(mode="fill", fill_value=-1.0) == -1.0
    idx = np.array([1, 7, -2, -8])
    np.testing.assert_array_equal(fnp.at(x)[idx].get(mode="clip"), [1, 4, 3, 0])
    np.testing.assert_array_equal(fnp.at(x)[idx].get(mode="fill", fill_value=-1),
                                  [1, -1, 3, -1])
    traced = fg.jit(lambda x, i: x.at[i].get(mode="fill", fill_value=-1))(x, idx)
    np.testing.assert_array_equal(traced, [1, -1, 3, -1])
    assert fnp.at(np.arange(3))[5].get(mode="fill") == np.iinfo(np.int64).min
    x2 = np.arange(12.0).reshape(3, 4)
    got = fnp.at(x2)[np.array([0, 5]), 1:].get(mode="fill", fill_value=0.0)
    np.testing.assert_array_equal(got, [[1, 2, 3], [0, 0, 0]])


def test_modes_match_jax():
    jnp = pytest.importorskip("jax.numpy")
    x = np.arange(6.0)
    idx = np.array([1, 9, -2, -9, 1])
    for mode in (None, "clip", "drop", "fill"):
        for m in ("set", "add", "max"):
            want = getattr(jnp.asarray(x).at[idx], m)(2.5, mode=mode)
            if m == "set" and mode == "clip":
                continue  # JAX leaves the order of repeated writes open
            np.testing.assert_allclose(getattr(fnp.at(x)[idx], m)(2.5, mode=mode), want)
        if mode != "drop":
            want = jnp.asarray(x).at[idx].get(mode=mode, fill_value=-3.0)
            np.testing.assert_allclose(fnp.at(x)[idx].get(mode=mode, fill_value=-3.0), want)


# --------------------------------------------------------------------------- vmap
@pytest.mark.parametrize("method", METHODS)
def test_vmap_over_x_idx_and_updates(method):
    rng = np.random.default_rng(0)
    xs = rng.uniform(0.5, 2.0, (3, 5, 2))
    idxs = np.array([[0, 4, 0], [1, 1, 2], [3, 0, -1]])
    vs = rng.uniform(0.5, 1.5, (3, 3, 2))
    unique = method in ("multiply", "divide", "power")
    f = lambda x, i, v: getattr(fnp.at(x)[i], method)(v)  # x may be a plain array
    for axes in [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0), (0, None, 0)]:
        args = [a if ax is not None else a[0] for a, ax in zip((xs, idxs, vs), axes)]
        got = fg.vmap(f, in_axes=axes)(*args)
        want = np.stack([numpy_update(method, *[a[b] if ax is not None else a
                                                for a, ax in zip(args, axes)])
                         for b in range(3)])
        np.testing.assert_allclose(got, want, rtol=1e-13)
    if not unique:  # the batched gradient too
        g = fg.vmap(fg.grad(lambda x, i, v: fnp.sum(f(x, i, v) ** 2), argnums=(0, 2)))
        gx, gv = g(xs, idxs, vs)
        for b in range(3):
            wx, wv = fg.grad(lambda x, v: fnp.sum(f(x, idxs[b], v) ** 2), argnums=(0, 1))(
                xs[b], vs[b])
            np.testing.assert_allclose(gx[b], wx, rtol=1e-12)
            np.testing.assert_allclose(gv[b], wv, rtol=1e-12)


# --------------------------------------------------------------------------- dtypes, errors
def test_dtypes_follow_x():
    x = np.arange(4, dtype=np.float32)
    out = fg.jit(lambda x: x.at[1].add(1.0))(x)
    assert out.dtype == np.float32
    assert fnp.at(np.arange(4))[1].set(2.7).dtype == np.int64  # assignment casts
    np.testing.assert_array_equal(fnp.at(np.arange(4))[1].set(2.7), [0, 2, 2, 3])
    with pytest.raises(TypeError, match="same_kind"):
        fnp.at(np.arange(4))[1].add(0.5)
    with pytest.raises(TypeError, match="float dtype"):
        fnp.at(np.arange(4))[1].divide(2)
    np.testing.assert_array_equal(fnp.at(np.arange(4))[[1, 1]].power(2), [0, 1, 2, 3])
    np.testing.assert_array_equal(fnp.at(np.arange(4))[[2, 2]].power(2), [0, 1, 16, 3])


def test_errors_name_the_fix():
    x = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"cannot be broadcast to the indexed shape \(2, 2\)"):
        fnp.at(x)[[0, 1]].set(np.ones(3))
    with pytest.raises(ValueError, match="mode='wrap'"):
        fnp.at(x)[0].add(1.0, mode="wrap")
    with pytest.raises(AttributeError):
        x.at  # a plain ndarray has no .at: fnp.at(x) is the eager form
    assert "fnp.at" in fnp.at.__doc__


def test_traced_at_is_a_property():
    out = fg.grad(lambda x: fnp.sum(x.at[0].set(0.0) * x))(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(out, [0.0, 4.0])


def test_empty_index_and_bool_power_keep_numpys_shape_and_dtype():
    # x[()] under jit emitted `a[]` (a SyntaxError); power of bools is int8 in NumPy, which
    # np.power.at writes back into the bool array
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(fg.jit(lambda a: a[()])(x), x)
    np.testing.assert_array_equal(fg.jit(lambda a: fnp.at(a)[()].set(1.0))(x), np.ones((2, 3)))
    b = np.array([False, True, True])
    want = b.copy()
    np.power.at(want, 1, True)
    for got in (fnp.at(b)[1].power(True), fg.jit(lambda b: fnp.at(b)[1].power(True))(b)):
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want)
