"""fungrad/numpy/_manipulation.py: NumPy parity over keyword combinations, negative axes and
edge cases (traced paths under jit and jvp against NumPy's own results), and its errors."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError
from fungrad.test_util import check_grads

RNG = np.random.default_rng(0)
X34 = RNG.standard_normal((3, 4))
X234 = RNG.standard_normal((2, 3, 4))
V5 = RNG.standard_normal(5)
I34 = np.arange(12).reshape(3, 4)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype,
                                                                 want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _check(f, *args):
    """f on NumPy arrays (NumPy itself) == f traced under jit == f traced under jvp."""
    want = f(*args)
    leaves = fg.tree.tree_leaves(want)
    for got in (fg.jit(f)(*args), _jvp_value(f, args)):
        got = fg.tree.tree_leaves(got)
        assert len(got) == len(leaves)
        for g, w in zip(got, leaves):
            _same(g, w)


def _jvp_value(f, args):
    tangents = tuple(np.zeros_like(a) if np.asarray(a).dtype.kind in "fc"
                     else np.zeros(np.shape(a), fg.float0) for a in args)
    return fg.jvp(f, args, tangents)[0]


# ----------------------------------------------------------------------------- pad
PAD_CASES = [
    ((1, 2), "constant", {}),
    (((1, 0), (2, 3)), "constant", {"constant_values": ((1, 2), (3, 4))}),
    (2, "constant", {"constant_values": 7}),
    ([[1, 2]], "constant", {"constant_values": (-1.5, 2.5)}),
    (((2, 1), (0, 3)), "edge", {}),
    (7, "reflect", {}), (7, "symmetric", {}), (9, "wrap", {}),
    (((5, 1), (2, 6)), "reflect", {"reflect_type": "odd"}),
    ((6, 2), "symmetric", {"reflect_type": "odd"}),
    (((2, 3), (1, 1)), "linear_ramp", {"end_values": ((1, -2), (3, 4))}),
    (3, "linear_ramp", {}),
    ((2, 3), "maximum", {}), ((2, 3), "minimum", {"stat_length": 2}),
    (((1, 2), (3, 0)), "mean", {"stat_length": ((1, 2), (3, 1))}),
    ((2, 2), "median", {"stat_length": (2, 3)}), ((1, 1), "mean", {"stat_length": 0}),
    (0, "reflect", {}),
]


@pytest.mark.parametrize("width,mode,kw", PAD_CASES)
@pytest.mark.parametrize("x", [X34, I34, V5[:1].reshape(1, 1)], ids=["f64", "int", "1x1"])
def test_pad_matches_numpy(x, width, mode, kw):
    if mode == "mean" and kw.get("stat_length") == 0:
        if x.dtype.kind == "i":
            pytest.skip("NumPy casts the nan mean of no elements to an int")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _check(lambda x: fnp.pad(x, width, mode, **kw), x)
        return
    _check(lambda x: fnp.pad(x, width, mode, **kw), x)


def test_pad_float32_keeps_dtype_and_traced_values():
    x = X34.astype(np.float32)
    _check(lambda x: fnp.pad(x, 2, "linear_ramp", end_values=(1.5, -2)), x)
    _check(lambda x, c: fnp.pad(x, ((1, 1), (2, 0)), constant_values=c), X34, np.array([1., 2.]))
    _check(lambda x, e: fnp.pad(x, 1, "linear_ramp", end_values=e), X34, np.array(3.))


def test_pad_gradients_and_vmap_of_a_batched_value():
    check_grads(lambda x, c: fnp.pad(x, ((1, 2), (0, 1)), constant_values=c), (X34, np.array(.5)),
                order=2)
    for mode in ("reflect", "wrap", "edge", "symmetric", "maximum", "median", "linear_ramp"):
        check_grads(lambda x: fnp.pad(x, ((3, 2), (1, 5)), mode), (X34,), order=1)
    cs = np.array([1., 2., 3.])
    got = fg.vmap(lambda c: fnp.pad(X34, 1, constant_values=c))(cs)
    _same(got, np.stack([np.pad(X34, 1, constant_values=c) for c in cs]))


def test_pad_errors():
    with pytest.raises(ValueError, match="negative"):
        fg.jit(lambda x: fnp.pad(x, -1))(X34)
    with pytest.raises(ValueError, match="unsupported keyword"):
        fg.jit(lambda x: fnp.pad(x, 1, "edge", constant_values=1))(X34)
    with pytest.raises(ValueError, match="not supported"):
        fg.jit(lambda x: fnp.pad(x, 1, "bogus"))(X34)
    with pytest.raises(ValueError, match="empty axis"):
        fg.jit(lambda x: fnp.pad(x, 1, "edge"))(np.zeros((0, 2)))
    with pytest.raises(TypeError, match="named modes"):
        fg.jit(lambda x: fnp.pad(x, 1, lambda v, w, i, k: None))(X34)


def test_lax_pad_interior_and_crop_match_jax_semantics():
    x = np.arange(6.).reshape(2, 3)
    out = fg.lax.pad(x, -1., [(1, -1, 1), (-1, 2, 0)])
    want = np.array([[-1, -1, -1, -1], [1, 2, -1, -1], [-1, -1, -1, -1]], float)
    _same(out, want)
    check_grads(lambda x, v: fg.lax.pad(x, v, [(1, -1, 2), (-2, 1, 1)]), (x, np.array(2.)),
                order=2)


# ----------------------------------------------------------------------------- tiling, rolling
@pytest.mark.parametrize("reps", [2, (2, 1), (1, 3, 1, 2), (), (0, 2)])
def test_tile(reps):
    _check(lambda x: fnp.tile(x, reps), X34)


@pytest.mark.parametrize("shift,axis", [(1, None), (-7, None), (2, 0), (-1, -1), ((1, 2), (0, 1)),
                                        ((1, 1), (1, 1)), (5, (0, -1)), (0, 1)])
def test_roll(shift, axis):
    _check(lambda x: fnp.roll(x, shift, axis), X234)


def test_roll_with_a_traced_shift():
    for s in (-5, -1, 0, 3, 9):
        _check(lambda x, s: fnp.roll(x, s, axis=-1), X34, np.array(s))
    got = fg.vmap(lambda s: fnp.roll(V5, s))(np.array([0, 1, -2]))
    _same(got, np.stack([np.roll(V5, s) for s in (0, 1, -2)]))


@pytest.mark.parametrize("axis,start", [(0, 0), (2, 0), (-1, 1), (0, 3), (1, -1), (-3, 2)])
def test_rollaxis(axis, start):
    _check(lambda x: fnp.rollaxis(x, axis, start), X234)


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (-1, 0), (2, -3)])
def test_rot90(k, axes):
    _check(lambda x: fnp.rot90(x, k, axes), X234)


def test_flips_and_their_errors():
    _check(fnp.flipud, V5)
    _check(fnp.fliplr, X234)
    with pytest.raises(ValueError, match="2-d"):
        fg.jit(fnp.fliplr)(V5)
    with pytest.raises(ValueError, match="must be different"):
        fg.jit(lambda x: fnp.rot90(x, 1, (1, 1)))(X34)


# ----------------------------------------------------------------------------- triangles, diagonals
@pytest.mark.parametrize("k", [-4, -1, 0, 2, 5])
@pytest.mark.parametrize("x", [V5, X34, X234, I34], ids=["1d", "2d", "3d", "int"])
def test_tril_triu(x, k):
    _check(lambda x: fnp.tril(x, k), x)
    _check(lambda x: fnp.triu(x, k), x)


@pytest.mark.parametrize("k", [-6, -2, 0, 1, 3])
def test_diag_and_diagflat(k):
    _check(lambda v: fnp.diag(v, k), V5)
    _check(lambda v: fnp.diag(v, k), X34)
    _check(lambda v: fnp.diagflat(v, k), X34[:2, :2])
    _check(lambda v: fnp.diag(v, k), V5[:0])
    check_grads(lambda v: fnp.diag(v, k), (V5,), order=2)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), False), ((7, 3), True),
                                        ((2, 5), True), ((3, 3, 3), False)])
@pytest.mark.parametrize("val", [2.5, np.array([1., 2.]), np.arange(40.)])
def test_fill_diagonal(shape, wrap, val):
    x = RNG.standard_normal(shape)
    _check(lambda x, v: fnp.fill_diagonal(x, v, wrap, inplace=False), x, np.asarray(val))
    _check(lambda x: fnp.fill_diagonal(x.astype(int), val, wrap, inplace=False), x)


def test_fill_diagonal_is_functional():
    x = X34.copy()
    with pytest.raises(TypeError, match="inplace=False"):
        fnp.fill_diagonal(x, 0.0)
    out = fnp.fill_diagonal(x, 0.0, inplace=False)
    _same(x, X34)
    assert out[0, 0] == 0.0


def test_index_helpers():
    x = np.zeros((3, 5))
    for fn in (fnp.tril_indices_from, fnp.triu_indices_from):
        for k in (-1, 0, 2):
            want = getattr(np, fn.__name__)(x, k)
            for got in (fn(x, k), fg.jit(lambda x: x[fn(x, k)])(x)):
                assert got is not None
            for g, w in zip(fn(x, k), want):
                np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(fnp.diag_indices_from(np.zeros((2, 2, 2))),
                                  np.diag_indices_from(np.zeros((2, 2, 2))))
    np.testing.assert_array_equal(fnp.mask_indices(4, fnp.tril, -1), np.mask_indices(4, np.tril, -1))
    with pytest.raises(ValueError, match="equal length"):
        fg.jit(fnp.diag_indices_from)(X34)
    with pytest.raises(ValueError, match="2-d"):
        fg.jit(fnp.tril_indices_from)(V5)


# ----------------------------------------------------------------------------- joining, splitting
def test_stacks():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    for f in (fnp.hstack, fnp.vstack, fnp.dstack, fnp.column_stack, fnp.row_stack):
        _check(lambda a, b: f([a, b]), a, b)
        _check(lambda a, b: f((a[0], b[1])), a, b)
        _check(lambda a, b: f([a[0, 0], b[1, 1]]), a, b)
    _check(lambda a: fnp.hstack([a, a], dtype=np.float32), a)
    _check(lambda a: fnp.vstack([a, a[0].astype(np.float32), np.ones(3)]), a)
    with pytest.raises(TypeError, match="sequence"):
        fg.jit(lambda a: fnp.hstack(a for a in [a]))(a)


def test_block():
    a, b, c = np.ones((2, 2)), RNG.standard_normal((2, 1)), RNG.standard_normal((1, 3))
    _check(lambda a, b, c: fnp.block([[a, b], [c]]), a, b, c)
    _check(lambda b: fnp.block([[[b]], [[b]]]), b)
    _check(lambda v: fnp.block([1.0, v, np.arange(2)]), V5)
    with pytest.raises(ValueError, match="depths are mismatched"):
        fg.jit(lambda b: fnp.block([[b], b]))(b)
    with pytest.raises(TypeError, match="tuple"):
        fg.jit(lambda b: fnp.block((b, b)))(b)
    with pytest.raises(ValueError, match="empty"):
        fg.jit(lambda b: fnp.block([b, []]))(b)


@pytest.mark.parametrize("how", [1, 3, 5, 7, [1, 2], [3, 1], [-1], [0, 9]])
@pytest.mark.parametrize("axis", [0, -1])
def test_array_split(how, axis):
    _check(lambda x: fnp.array_split(x, how, axis), X234)


def test_hvdsplit_atleast_unstack():
    _check(lambda x: fnp.hsplit(x, 2), X34)
    _check(lambda x: fnp.vsplit(x, [1]), X34)
    _check(lambda x: fnp.dsplit(x, [1, 3]), X234)
    _check(lambda x: fnp.hsplit(x, [2]), V5)
    with pytest.raises(ValueError, match="3 or more"):
        fg.jit(lambda x: fnp.dsplit(x, 2))(X34)
    with pytest.raises(ValueError, match="equal division"):
        fg.jit(lambda x: fnp.hsplit(x, 3))(X34)
    for f in (fnp.atleast_1d, fnp.atleast_2d, fnp.atleast_3d):
        _check(lambda a, b, c: f(a, b, c), np.array(1.), V5, X34)
        _check(lambda c: f(c), X234)
    for axis in (0, 1, -1):
        _check(lambda x: fnp.unstack(x, axis=axis), X234)


@pytest.mark.parametrize("obj", [0, -1, 2, [0, 0, 2], slice(1, None, 2), [-1, 1]])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_insert_and_delete(obj, axis):
    _check(lambda x: fnp.delete(x, obj, axis), X34)
    _check(lambda x: fnp.insert(x, obj, 9.5, axis), X34)
    _check(lambda x: fnp.insert(x, obj, -1, axis), I34)
    if axis is not None:
        _check(lambda x, v: fnp.insert(x, obj, v, axis), X34, np.array([1.0, 2.0, 3.0])[:1])


def test_insert_values_broadcast_like_numpy():
    _check(lambda x, v: fnp.insert(x, 1, v, axis=1), X34, np.array([1., 2., 3.]))
    _check(lambda x, v: fnp.insert(x, [1], v, axis=1), X34, np.array([[1.], [2.], [3.]]))
    _check(lambda x, v: fnp.insert(x, [1, 2], v, axis=0), X34, np.arange(4.))
    check_grads(lambda x, v: fnp.insert(x, [0, 2], v, axis=0), (X34, np.arange(4.)), order=2)
    with pytest.raises(ConcretizationError):
        fg.jit(lambda x, i: fnp.delete(x, i))(X34, 1)


def test_append_resize():
    _check(lambda x, v: fnp.append(x, v), X34, V5)
    _check(lambda x, v: fnp.append(x, v, axis=-1), X34, X34[:, :2])
    for shape in [(2, 7), 13, (0,), (1,), (3, 0)]:
        _check(lambda x: fnp.resize(x, shape), X34)
    _check(lambda x: fnp.resize(x, (2, 2)), np.zeros((0,)))


def test_trim_zeros_is_concrete_only():
    x = np.array([0., 0., 1.5, 0., 2., 0.])
    for trim in ("fb", "f", "b", "BF"):
        _same(fg.grad(lambda x: fnp.sum(fnp.trim_zeros(x, trim) ** 2))(x),
              2 * x)  # the trimmed zeros have gradient 0 = 2 * 0
        np.testing.assert_array_equal(_jvp_value(lambda x: fnp.trim_zeros(x, trim), (x,)),
                                      np.trim_zeros(x, trim))
    x2 = np.zeros((4, 5))
    x2[1:3, 2] = 1.0
    for axis in (None, 0, -1):
        _same(_jvp_value(lambda x: fnp.trim_zeros(x, axis=axis), (x2,)),
              np.trim_zeros(x2, axis=axis))
    _same(_jvp_value(fnp.trim_zeros, (np.zeros(3),)), np.trim_zeros(np.zeros(3)))
    with pytest.raises(ConcretizationError, match="trim_zeros"):
        fg.jit(fnp.trim_zeros)(x)
    with pytest.raises(ValueError, match="trim"):
        _jvp_value(lambda x: fnp.trim_zeros(x, "x"), (x,))


# ----------------------------------------------------------------------------- selection
def test_select_and_piecewise():
    x = np.linspace(-2, 2, 9)
    _check(lambda x: fnp.select([x < 0, x < 1], [x ** 2, -x], default=x), x)
    _check(lambda x: fnp.select([x < 0], [1], default=2.5), x.astype(np.float32))
    _check(lambda x: fnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, 0.5, lambda v: v * 3]), x)
    _check(lambda x: fnp.piecewise(x, x < 0, [lambda v: -v, lambda v: v]), x)
    _check(lambda x: fnp.piecewise(x, [x < 0, x > 1], [lambda v, k: v * k, 2.0], 3.0), x)
    _check(lambda s: fnp.piecewise(s, [True, False], [1.0, 2.0]), np.array(0.5))
    with pytest.raises(TypeError, match="boolean"):
        fg.jit(lambda x: fnp.select([x], [x]))(x)
    with pytest.raises(ValueError, match="same length"):
        fg.jit(lambda x: fnp.select([x > 0], [x, x]))(x)
    with pytest.raises(ValueError, match="functions"):
        fg.jit(lambda x: fnp.piecewise(x, [x > 0], [1, 2, 3]))(x)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode):
    idx = np.array([[0, 2, 1], [1, 0, 2]]) if mode == "raise" else np.array([[-1, 4, 1],
                                                                            [7, 0, -5]])
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    _check(lambda a, b: fnp.choose(idx, [a, b, 2.0], mode=mode), a, b)
    if mode != "raise":  # (a traced index cannot be checked: tested below)
        _check(lambda i, a: fnp.choose(i, [a, -a, a * 2], mode=mode), idx, a)
    _check(lambda c: fnp.choose(idx, c, mode=mode), np.stack([a, a + 1, a + 2]))


def test_choose_errors():
    a = np.ones(3)
    with pytest.raises(ValueError, match="invalid entry"):
        fg.grad(lambda a: fnp.sum(fnp.choose(np.array([0, 3, 1]), [a, a])))(a)
    with pytest.raises(ConcretizationError, match="mode='clip'"):
        fg.jit(lambda i, a: fnp.choose(i, [a, a]))(np.array([0, 1, 0]), a)
    with pytest.raises(TypeError, match="out="):
        fnp.choose(np.array([0]), [a], out=a)


def test_extract_place_put_putmask():
    x = X34
    mask = x > 0
    _check(lambda x: fnp.extract(mask, x), x)
    _same(_jvp_value(lambda x: fnp.extract(x > 0, x), (x,)), np.extract(mask, x))
    with pytest.raises(ConcretizationError, match="extract"):
        fg.jit(lambda x: fnp.extract(x > 0, x))(x)
    for vals in (np.array([9.]), np.array([1., 2.]), np.arange(20.)):
        _check(lambda x, v: fnp.place(x, mask, v, inplace=False), x, vals)
        _check(lambda x, v: fnp.place(x, x > 0, v, inplace=False), x, vals)
        _check(lambda x, v: fnp.putmask(x, x > 0, v, inplace=False), x, vals)
    for mode, ind in (("raise", [0, -1, 5, 5]), ("wrap", [13, -20, 2]), ("clip", [-3, 40, 1])):
        _check(lambda x, v: fnp.put(x, ind, v, mode=mode, inplace=False), x, np.array([1., 2.]))
        _check(lambda x, i: fnp.put(x, i, 7.0, mode="wrap" if mode == "raise" else mode,
                                    inplace=False), x, np.array([ind[0], ind[2]]))
    with pytest.raises(IndexError, match="out of bounds"):
        fg.jit(lambda x: fnp.put(x, [12], 1.0, inplace=False))(x)
    with pytest.raises(ConcretizationError, match="mode='wrap'"):
        fg.jit(lambda x, i: fnp.put(x, i, 1.0, inplace=False))(x, np.array([0]))
    for f, args in ((fnp.place, (mask, [1.0])), (fnp.put, ([0], 1.0)),
                    (fnp.putmask, (mask, 1.0)), (fnp.put_along_axis, (np.zeros((3, 1), int), 1.0, 1))):
        with pytest.raises(TypeError, match="inplace=False"):
            f(x, *args)
    with pytest.raises(TypeError, match="fnp.where"):
        fnp.copyto(x, 1.0)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_put_along_axis(axis):
    x = X34
    if axis is None:
        idx = np.array([0, 5, 5, -1])  # repeated: the last write wins, as NumPy
    else:
        idx = np.argsort(x, axis=axis)[(slice(None),) * (axis % 2) + (slice(0, 2),)] - 1
    for v in (np.array(2.5), RNG.standard_normal(np.shape(idx))):
        _check(lambda x, v: fnp.put_along_axis(x, idx, v, axis, inplace=False), x, v)
    check_grads(lambda x, v: fnp.put_along_axis(x, idx, v, axis, inplace=False), (x, np.array(2.5)),
                order=2)


# ----------------------------------------------------------------------------- products
@pytest.mark.parametrize("sa,sb", [((2,), (3,)), ((2, 2), (3,)), ((3,), (2, 2)), ((), (3,)),
                                   ((2, 1, 3), (2, 2)), ((0, 2), (2,))])
def test_kron(sa, sb):
    _check(fnp.kron, RNG.standard_normal(sa), RNG.standard_normal(sb))


@pytest.mark.parametrize("sa,sb,kw", [
    ((3,), (3,), {}), ((4, 3), (3,), {}), ((3, 4), (3, 4), {"axis": 0}),
    ((3, 4), (4, 3), {"axisa": 0, "axisc": 0}), ((2, 3, 4), (3,), {"axisa": 1, "axisc": -2}),
    ((2,), (2,), {}), ((4, 2), (3,), {}), ((3,), (5, 2), {"axisc": 0}),
    ((2, 4), (4, 2), {"axisa": 0})])
def test_cross(sa, sb, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        _check(lambda a, b: fnp.cross(a, b, **kw), RNG.standard_normal(sa), RNG.standard_normal(sb))
        _check(lambda a, b: fnp.cross(a, b, **kw), np.ones(sa, int), RNG.standard_normal(sb))


def test_cross_errors_and_deprecation():
    with pytest.raises(ValueError, match="2 or 3"):
        fg.jit(fnp.cross)(np.ones(4), np.ones(3))
    with pytest.warns(DeprecationWarning):
        fg.jit(fnp.cross)(np.ones(2), np.ones(3))


# ----------------------------------------------------------------------------- broadcasting, dtypes
def test_broadcast_arrays_shapes_astype():
    _check(lambda a, b: fnp.broadcast_arrays(a, b, 1.0), X34, V5[:4])
    assert fnp.broadcast_shapes((3, 1), (4,), ()) == (3, 4)
    with pytest.raises(ValueError, match="broadcast"):
        fg.jit(lambda a, b: fnp.broadcast_arrays(a, b))(X34, V5)
    for dt in (np.float32, np.int32, np.complex64, bool):
        _check(lambda x: fnp.astype(x, dt), X34)
    check_grads(lambda x: fnp.astype(x, np.float32), (X34,), order=1, atol=2e-3, rtol=2e-3,
                eps=1e-2)


def test_plain_arrays_are_numpy_own():
    assert type(fnp.tile(V5, 2)) is np.ndarray
    out = fnp.pad(I34, 1, "mean")
    _same(out, np.pad(I34, 1, "mean"))


def test_put_with_traced_repeated_indices_keeps_the_last_write_like_numpy():
    a, ind, v = np.zeros(5), np.array([1, 3, 1]), np.array([10.0, 20.0, 30.0])
    want = a.copy()
    np.put(want, ind, v)
    got = fg.jit(lambda a, i, v: fnp.put(a, i, v, mode="wrap", inplace=False))(a, ind, v)
    np.testing.assert_array_equal(got, want)
    # the overwritten value gets no gradient
    g = fg.grad(lambda v: fnp.sum(fnp.put(a, ind, v, inplace=False) * np.arange(5.0)))(v)
    np.testing.assert_array_equal(g, [0.0, 3.0, 1.0])


def test_cross_of_2_vectors_follows_the_installed_numpy(monkeypatch):
    """NumPy 2.0 deprecated 2-vectors in cross and a later NumPy removed them: traced values
    raise as eager NumPy does once it no longer takes them."""
    from fungrad.numpy import _manipulation
    monkeypatch.setattr(_manipulation, "_numpy_crosses_2_vectors", lambda: False)
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        fg.jit(fnp.cross)(np.ones(2), np.ones(2))
    np.testing.assert_allclose(fg.jit(fnp.cross)(np.eye(3)[0], np.eye(3)[1]), [0, 0, 1])


@pytest.mark.parametrize("name", ["hstack", "vstack"])
def test_stack_dtype_follows_numpys_casting_rule(name):
    fn = getattr(fnp, name)
    x = np.array([1.5, 2.5])
    with pytest.raises(TypeError):
        fn([x, x], dtype=np.int64)
    with pytest.raises(TypeError, match="same_kind"):
        fg.jit(lambda a: fn([a, a], dtype=np.int64))(x)
    unsafe = fg.jit(lambda a: fn([a, a], dtype=np.int64, casting="unsafe"))(x)
    np.testing.assert_array_equal(unsafe, fn([x, x], dtype=np.int64, casting="unsafe"))


@pytest.mark.parametrize("mode", ["mean", "median", "maximum", "minimum"])
def test_pad_statistics_keep_bool_and_integer_dtypes(mode):
    for a in (np.array([True, False]), np.array([True, False, False]), np.int8([1, 2]),
              np.array([[True, False], [False, False]])):
        want = np.pad(a, 1, mode=mode)
        got = fg.jit(lambda a: fnp.pad(a, 1, mode=mode))(a)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_out_of_range_python_ints_raise_overflow_as_numpy():
    a = np.zeros((2, 2), np.uint8)
    for v in (300, [1, 300]):
        with pytest.raises(OverflowError):
            fg.jit(lambda a: fnp.fill_diagonal(a, v, inplace=False))(a)
    with pytest.raises(OverflowError):
        fg.jit(lambda a: fnp.full_like(a, 300))(a)
    with np.errstate(invalid="ignore"):  # NaN into integers: NumPy's unsafe cast
        np.testing.assert_array_equal(fg.jit(lambda a: fnp.full_like(a, np.nan))(a),
                                      np.full_like(a, np.nan))


def test_zero_dim_axes_and_ndmin_as_numpy():
    x = np.array(1.0)
    with pytest.raises(np.exceptions.AxisError):
        fg.jit(lambda a: fnp.flip(a, axis=0))(x)
    for axis in (-1, 0, None):
        np.testing.assert_array_equal(fg.jit(lambda a: fnp.argsort(a, axis=axis))(x),
                                      np.argsort(x, axis=axis))
    assert fnp.array([1], ndmin=2).shape == (1, 1)
    assert fg.jit(lambda x: fnp.array(x, ndmin=3))(np.ones(2)).shape == (1, 1, 2)
    assert fnp.array(np.ones((2, 2)), order="F").flags["F_CONTIGUOUS"]


def test_asarray_takes_numpy_2s_copy_and_order():
    x = np.ones(3)
    assert fnp.asarray(x, copy=True) is not x and fnp.asarray(x) is x
    assert fnp.asarray(x, copy=False) is x
    assert fnp.asarray(np.ones((2, 2)), order="F").flags["F_CONTIGUOUS"]
    with pytest.raises(ValueError):  # (a cast cannot avoid the copy, as NumPy)
        fnp.asarray(x, dtype=np.float32, copy=False)
    np.testing.assert_array_equal(fg.jit(lambda x: fnp.asarray(x, copy=True) * 2)(x), 2 * x)
