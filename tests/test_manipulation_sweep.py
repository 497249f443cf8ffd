"""Fixes from a differential sweep of the shape / construction / manipulation functions
against NumPy 2.4 (values, dtypes, errors) on their traced paths (jit, vmap, grad).
Each test failed before its fix; expected values are NumPy's own, computed here."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads
from test_manipulation import _same  # (shape, dtype and values equal)

RNG = np.random.default_rng(0)
X34 = RNG.standard_normal((3, 4))


def _jit_matches_numpy(f, *args):
    """f traced under jit and under vmap (over a batch of one) gives NumPy's result."""
    want = f(*args)  # (plain arrays: every fnp function is NumPy's own)
    _same(fg.jit(f)(*args), want)
    batched = fg.vmap(f)(*[np.asarray(a)[None] for a in args])
    _same(np.asarray(batched)[0], want)


def _updated(np_fn, a, *args, **kwargs):
    """NumPy's in-place update on a copy of `a` (the reference of fnp's functional form)."""
    a = np.array(a, copy=True)
    np_fn(a, *args, **kwargs)
    return a


# ----------------------------------------------------------------------------- pad
BOOLS = np.array([[True, False, False, True], [False, False, True, False]])


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("width", [2, (1, 6), 9])
def test_pad_odd_reflection_of_bools_is_bool(mode, width):
    # was int64 with 2 * edge - x values; NumPy writes each chunk back as bool (edge or x)
    want = np.pad(BOOLS, width, mode, reflect_type="odd")
    _jit_matches_numpy(lambda a: fnp.pad(a, width, mode, reflect_type="odd"), BOOLS)
    assert want.dtype == np.bool_


@pytest.mark.parametrize("end_values", [0, -1, 2.7, ((1, 2), (3, 4)), 1 + 1j])
def test_pad_linear_ramp_of_bools_casts_without_flooring(end_values):
    # NumPy's linspace(dtype=bool) casts the float ramp (0.33 is True); it was floored to 0
    _jit_matches_numpy(lambda a: fnp.pad(a, 3, "linear_ramp", end_values=end_values), BOOLS)


@pytest.mark.parametrize("dtype, value", [
    (np.int8, 300), (np.int8, np.int64(300)), (np.int8, [[300, 1]]), (np.int32, np.nan),
    (np.int32, np.inf), (np.int32, 1e30), (np.int8, np.float64(1e10))])
def test_pad_constant_out_of_range_for_integers_raises_as_numpy(dtype, value):
    # NumPy's `padded[...] = value` raises; the traced path wrapped 300 to 44 and NaN to -2**31
    a = np.arange(6, dtype=dtype)
    with pytest.raises((OverflowError, ValueError)):
        np.pad(a, 2, constant_values=value)
    with pytest.raises((OverflowError, ValueError)):
        fg.jit(lambda a: fnp.pad(a, 2, constant_values=value))(a)


@pytest.mark.parametrize("dtype, value", [(np.int8, 2.7), (np.int8, -2.7), (np.uint8, True),
                                          (np.int32, (2.5, 3.5)), (np.float32, 1 + 2j)])
def test_pad_constant_in_range_converts_as_numpy(dtype, value):
    a = np.arange(6, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # (NumPy's own, 1+2j)
        _jit_matches_numpy(lambda a: fnp.pad(a, 2, constant_values=value), a)


@pytest.mark.parametrize("pad_width", [{0: 1}, {-1: (1, 2)}, {1: 2, 0: (0, 3)}])
@pytest.mark.parametrize("mode", ["constant", "edge", "wrap"])
def test_pad_width_dict(pad_width, mode):
    # NumPy 2.3+ maps axes to widths; the traced path crashed in np.round of a dict
    _jit_matches_numpy(lambda a: fnp.pad(a, pad_width, mode), X34)


@pytest.mark.parametrize("pad_width", [1.5, (), np.array([1, 2], np.uint8), True])
def test_pad_width_must_be_signed_integers(pad_width):
    # NumPy raises a TypeError; the traced path rounded 1.5 to 2 (and crashed on ())
    with pytest.raises(TypeError):
        np.pad(X34, pad_width)
    with pytest.raises(TypeError, match="integral"):
        fg.jit(lambda a: fnp.pad(a, pad_width))(X34)


# ----------------------------------------------------------------------------- functional puts
@pytest.mark.parametrize("value", [300, np.nan, [1, 300], 1 + 1j])
@pytest.mark.parametrize("fname", ["fill_diagonal", "put", "place", "putmask",
                                   "put_along_axis"])
def test_functional_puts_reject_values_numpy_rejects(fname, value):
    # Python numbers convert with range checks in NumPy (300 into int8, NaN into ints,
    # complex into ints raise); the traced paths wrapped or truncated them silently
    a = np.zeros((3, 3), np.int8)
    mask = np.eye(3, dtype=bool)
    calls = {
        "fill_diagonal": (lambda b: np.fill_diagonal(b, value),
                          lambda b: fnp.fill_diagonal(b, value, inplace=False)),
        "put": (lambda b: np.put(b, [0, 4], value),
                lambda b: fnp.put(b, [0, 4], value, inplace=False)),
        "place": (lambda b: np.place(b, mask, value),
                  lambda b: fnp.place(b, mask, value, inplace=False)),
        "putmask": (lambda b: np.putmask(b, mask, value),
                    lambda b: fnp.putmask(b, mask, value, inplace=False)),
        "put_along_axis": (lambda b: np.put_along_axis(b, np.array([[0], [1], [2]]), value, 1),
                           lambda b: fnp.put_along_axis(b, np.array([[0], [1], [2]]), value, 1,
                                                        inplace=False)),
    }
    np_call, fnp_call = calls[fname]
    with pytest.raises((OverflowError, ValueError, TypeError)) as numpy_error:
        np_call(a.copy())
    with pytest.raises(numpy_error.type):
        fg.jit(fnp_call)(a)


def test_numpy_scalar_values_wrap_as_numpy():
    # NumPy arrays and scalars cast unsafely (np.int64(300) into int8 is 44): unchanged
    a = np.zeros((3, 3), np.int8)
    want = _updated(np.fill_diagonal, a, np.int64(300))
    _same(fg.jit(lambda b: fnp.fill_diagonal(b, np.int64(300), inplace=False))(a), want)


def test_fill_diagonal_and_put_of_no_values_write_nothing():
    # NumPy's flat assignment of [] is a no-op (even for an out-of-bounds put index); the
    # traced paths raised "cannot assign from an empty array of values"
    a = X34.copy()
    _same(fg.jit(lambda b: fnp.fill_diagonal(b, [], inplace=False))(a),
          _updated(np.fill_diagonal, a, []))
    _same(fg.jit(lambda b: fnp.put(b, [0, 20], [], inplace=False))(a), _updated(np.put, a,
                                                                               [0, 20], []))


def test_place_eager_converts_python_values_as_numpy():
    # eager fnp.place turned 1.5 into a float64 array first, which NumPy refuses to cast
    # into an int8 array ('safe' rule); NumPy's own place truncates a Python 1.5 to 1
    a = np.arange(6, dtype=np.int8)
    mask = a % 2 == 0
    _same(fnp.place(a, mask, 1.5, inplace=False), _updated(np.place, a, mask, 1.5))
    _same(fnp.place(a, mask, [1.0, 2.0], inplace=False), _updated(np.place, a, mask, [1.0, 2.0]))


@pytest.mark.parametrize("fname", ["place", "putmask"])
def test_place_and_putmask_need_safe_casting_of_array_values(fname):
    # NumPy refuses float64 array values into a float32 array; the traced path cast them
    a = X34.astype(np.float32)
    vals = np.array([1.0, 2.0])
    np_fn = getattr(np, fname)
    with pytest.raises(TypeError):
        _updated(np_fn, a, a > 0, vals)
    with pytest.raises(TypeError, match="safe"):
        fg.jit(lambda a, v: getattr(fnp, fname)(a, a > 0, v, inplace=False))(a, vals)
    # float32 values into float64 are safe: same values as NumPy
    b = X34.copy()
    v32 = vals.astype(np.float32)
    _same(fg.jit(lambda a, v: getattr(fnp, fname)(a, a > 0, v, inplace=False))(b, v32),
          _updated(np_fn, b, b > 0, v32))


@pytest.mark.parametrize("shape", [(1, 1), (1, 2), (), (1, 1, 1)])
def test_put_along_axis_none_broadcasts_values_as_setitem(shape):
    # arr.flat[index] = values drops leading length-1 axes; (1, 1) values crashed
    idx = np.array([1, 5])
    vals = np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape)
    want = _updated(np.put_along_axis, X34, idx, vals, None)
    _same(fg.jit(lambda a: fnp.put_along_axis(a, idx, vals, None, inplace=False))(X34), want)


def test_put_along_axis_none_rejects_values_that_do_not_broadcast():
    # (1, 3) values for 2 positions: NumPy raises, the traced path cycled them
    idx, vals = np.array([1, 5]), np.ones((1, 3))
    with pytest.raises(ValueError):
        _updated(np.put_along_axis, X34, idx, vals, None)
    with pytest.raises(ValueError, match="shape mismatch"):
        fg.jit(lambda a: fnp.put_along_axis(a, idx, vals, None, inplace=False))(X34)


# ----------------------------------------------------------------------------- piecewise
def test_piecewise_condition_of_fewer_dims_selects_leading_axes():
    # NumPy's x[cond] with a (3,) condition picks rows of a (3, 3) x; the traced path
    # broadcast it from the right and picked columns: a silent transpose
    x = RNG.standard_normal((3, 3))
    cond = np.array([True, False, True])
    f = lambda x, c: fnp.piecewise(x, [c], [1.0, lambda v: -v])  # noqa: E731
    want = np.piecewise(x, [cond], [1.0, lambda v: -v])
    _same(fg.jit(f)(x, cond), want)
    _same(fg.jit(lambda x: f(x, cond))(x), want)


def test_piecewise_condition_of_wrong_shape_raises():
    x = RNG.standard_normal((3, 4))
    cond = np.array([True, False, True, False])  # (4,): NumPy's IndexError
    with pytest.raises(IndexError):
        np.piecewise(x, [cond], [1.0, 2.0])
    with pytest.raises(IndexError, match="leading axes"):
        fg.jit(lambda x: fnp.piecewise(x, [cond], [1.0, 2.0]))(x)


def test_piecewise_traced_0d_condition_is_one_condition():
    # eagerly `x > 0` of a 0-d x is a NumPy bool scalar (one condition); traced, it was
    # iterated as a list of conditions ("iteration over a 0-d array")
    f = lambda x: fnp.piecewise(x, x > 0, [lambda v: 2 * v, 0.0])  # noqa: E731
    x = np.array(1.5)
    _same(fg.jit(f)(x), f(x))
    _same(fg.grad(f)(x), np.array(2.0))


# ----------------------------------------------------------------------------- shapes, axes
@pytest.mark.parametrize("shape, new", [((3, 4), (4, 3)), ((3, 4), (2, -1)), ((2, 3, 4), (4, 6)),
                                        ((2, 3, 4), (4, -1, 2)), ((12,), (3, 2, 2)),
                                        ((1, 1), ())])
def test_reshape_fortran_order(shape, new):
    # order='F' raised NotImplementedError, eagerly too
    x = RNG.standard_normal(shape)
    f = lambda a: fnp.reshape(a, new, order="F")  # noqa: E731
    _same(f(x), np.reshape(x, new, order="F"))
    _jit_matches_numpy(f, x)
    check_grads(f, (x,), order=2)


def test_ravel_order():
    # fnp.ravel had no `order`: NumPy's ravel(a, 'F') raised a TypeError
    x = RNG.standard_normal((2, 3, 4))
    _same(fnp.ravel(x, "F"), np.ravel(x, "F"))
    _jit_matches_numpy(lambda a: fnp.ravel(a, order="F"), x)
    _same(fg.jit(lambda a: a.ravel("F"))(x), x.ravel("F"))
    # 'A' / 'K' follow the input's memory layout, which a traced value does not have
    with pytest.raises(NotImplementedError, match="layout"):
        fg.jit(lambda a: fnp.ravel(a, "K"))(x)
    with pytest.raises(NotImplementedError, match="layout"):
        fg.jit(lambda a: fnp.reshape(a, (4, 6), order="A"))(x)


def test_reshape_copy_keyword():
    x = X34.copy()
    out = fnp.reshape(x, (4, 3), copy=True)
    assert not np.shares_memory(out, x)
    _same(fg.jit(lambda a: fnp.reshape(a, (4, 3), copy=True))(x), x.reshape(4, 3))


@pytest.mark.parametrize("fname, call", [
    ("moveaxis", lambda m, a: m.moveaxis(a, 0, -1)),
    ("roll", lambda m, a: m.roll(a, 1, 0)),
    ("split", lambda m, a: m.split(a, 1, 0)),
    ("array_split", lambda m, a: m.array_split(a, 2)),
])
def test_axis_of_0d_array_is_an_axis_error(fname, call):
    # a 0-d array has no axis 0: NumPy's AxisError; traced paths raised a bare
    # "IndexError: tuple index out of range" (normalize_axis reads 0-d as 1-d)
    z = np.array(2.5)
    with pytest.raises(IndexError):  # (NumPy's AxisError is an IndexError)
        call(np, z)
    with pytest.raises(np.exceptions.AxisError, match="dimension 0"):
        fg.jit(lambda a: call(fnp, a))(z)


def test_rot90_of_0d_array_raises_numpy_error():
    with pytest.raises(ValueError, match="out of range"):
        np.rot90(np.array(1.0))
    with pytest.raises(ValueError, match="out of range"):
        fg.jit(fnp.rot90)(np.array(1.0))


def test_flip_of_0d_array_over_no_axes():
    z = np.array(2.5)
    _same(fg.jit(lambda a: fnp.flip(a, ()))(z), np.flip(z, ()))


def test_squeeze_list_axis_is_a_type_error():
    # NumPy takes an int or a tuple only; the traced path squeezed axis [0]
    x = np.ones((1, 3))
    with pytest.raises(TypeError):
        np.squeeze(x, [0])
    with pytest.raises(TypeError, match="axis"):
        fg.jit(lambda a: fnp.squeeze(a, [0]))(x)


def test_roll_float_shift_and_rot90_float_k_as_numpy():
    # NumPy truncates a float shift (int(1.7)) and reads k=1.5 as a three-quarter turn
    _jit_matches_numpy(lambda a: fnp.roll(a, 1.7, 1), X34)
    _jit_matches_numpy(lambda a: fnp.rot90(a, 1.5), X34)


@pytest.mark.parametrize("sections", [np.array(2), 2.0, np.int64(4)])
def test_split_sections_as_0d_array_or_float(sections):
    # NumPy counts anything without a len(); the traced path iterated it as split points
    x = RNG.standard_normal((2, 4))
    want = np.split(x, sections, 1)
    got = fg.jit(lambda a: fnp.split(a, sections, 1))(x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)
    with pytest.raises(ValueError, match="equal division"):
        fg.jit(lambda a: fnp.split(a, 2.5, 1))(x)


# ----------------------------------------------------------------------------- joining
@pytest.mark.parametrize("fname", ["concatenate", "stack"])
@pytest.mark.parametrize("dtype, casting", [(np.float32, "same_kind"), (np.int64, "unsafe"),
                                            (np.complex128, "safe"), (bool, "unsafe")])
def test_concatenate_and_stack_dtype_and_casting(fname, dtype, casting):
    # NumPy 2's dtype= / casting= were missing (TypeError: unexpected keyword), eagerly too
    a, b = X34, np.arange(12).reshape(3, 4)
    f = lambda a, b: getattr(fnp, fname)([a, b], dtype=dtype, casting=casting)  # noqa: E731
    want = getattr(np, fname)([a, b], dtype=dtype, casting=casting)
    _same(f(a, b), want)
    _same(fg.jit(f)(a, b), want)


@pytest.mark.parametrize("fname", ["concatenate", "stack"])
def test_concatenate_and_stack_casting_errors(fname):
    with pytest.raises(TypeError):
        getattr(np, fname)([X34, X34], dtype=np.int64)
    with pytest.raises(TypeError, match="same_kind"):
        fg.jit(lambda a: getattr(fnp, fname)([a, a], dtype=np.int64))(X34)


@pytest.mark.parametrize("fname", ["concatenate", "stack"])
def test_concatenate_and_stack_out(fname):
    # eager: NumPy's own out=; traced: a clear TypeError (arrays are values)
    out = np.zeros((2, 3, 4)) if fname == "stack" else np.zeros((6, 4))
    got = getattr(fnp, fname)([X34, X34], out=out)
    assert got is out
    _same(out, getattr(np, fname)([X34, X34]))
    with pytest.raises(TypeError, match="out="):
        fg.jit(lambda a: getattr(fnp, fname)([a, a], out=out))(X34)


@pytest.mark.parametrize("fname", ["hstack", "vstack", "dstack", "column_stack"])
def test_stacking_functions_take_an_array_of_rows(fname):
    # NumPy joins the rows of an array argument; eager fnp raised a TypeError (with an
    # unformatted "{fname}" in its message)
    _same(getattr(fnp, fname)(X34), getattr(np, fname)(X34))
    _same(fg.jit(getattr(fnp, fname))(X34), getattr(np, fname)(X34))
    with pytest.raises(TypeError, match=f"fnp.{fname}"):
        getattr(fnp, fname)(r for r in X34)


def test_ix_with_an_empty_list():
    # NumPy reads [] as an empty integer index; the traced path crashed ('list' has no dtype)
    want = np.ix_(np.array([0, 1]), [])
    got = fg.jit(lambda i: fnp.ix_(i, []))(np.array([0, 1]))
    for g, w in zip(got, want):
        _same(g, w)


# ---- take / repeat on traced 0-d arrays and Python-float counts, as NumPy
def test_traced_take_and_repeat_of_0d_arrays_and_float_counts():
    x0 = np.array(3.0)
    cases = [(lambda m, x: m.repeat(x, 2, axis=0), x0), (lambda m, x: m.take(x, 0, axis=0), x0),
             (lambda m, x: m.take(x, 0, axis=-1), x0),
             (lambda m, x: m.repeat(x, 2.0), np.arange(3.0))]
    for f, x in cases:
        want = f(np, x)
        got = fg.jit(lambda x: f(fnp, x))(x)
        assert np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)
    with pytest.raises(np.exceptions.AxisError):
        fg.jit(lambda x: fnp.take(x, 0, axis=1))(x0)
