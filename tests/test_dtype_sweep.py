"""Every elementwise ufunc of fungrad.numpy's tables, traced (`fg.jit`), against NumPy over
all ten common dtypes and every pair of them, with edge values (0, -0, NaN, infinities,
integer extremes) and Python-scalar operands passed as traced arguments: the same dtype,
the same values (exact for integers and bools, a few ulps for floats, where NumPy's own
loops may round differently from the traced composition), and an error where NumPy raises.
A differential sweep of this kind found the mixed-integer loop dtypes, Python ints wrapped
into small dtypes, ldexp's overflow and sinc's float16 zero."""
import warnings

import numpy as np
import pytest

import fungrad as fg
from fungrad.numpy import _elementwise as E

DTYPES = [np.bool_, np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]
VALUES = {
    "b": [False, True, True, False, True, False, False, True],
    "u": [0, 1, 2, 3, 127, 128, 254, 255],
    "i": [0, 1, -1, 2, -3, 5, 127, -128],
    "f": [0.0, -0.0, 1.0, -1.5, 2.5, np.nan, np.inf, -np.inf],
    "c": [0, 1 + 0j, -1.5 + 2j, 2.5 - 0.5j, complex(np.nan, 0), complex(np.inf, 0),
          complex(-np.inf, 1), complex(0, np.nan)],
}
# Python scalars passed to the jitted function (traced as weak values), including one
# outside int8's and uint8's range
SCALARS = [2, -1, 300, 2.5, True]


def values(dt, reverse=False):
    v = np.array(VALUES[np.dtype(dt).kind], dt) if np.dtype(dt).kind != "i" else \
        np.array(VALUES["i"]).astype(dt)
    return v[::-1].copy() if reverse else v


def run(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return f(*args), None
        except (TypeError, ValueError, IndexError, OverflowError, ArithmeticError) as e:
            return None, e


def same(name, got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        tol = {2: 2e-3, 4: 2e-6, 8: 1e-13, 16: 1e-13}[want.dtype.itemsize if want.dtype.kind
                                                      == "f" else want.dtype.itemsize // 2]
        np.testing.assert_allclose(got, want, rtol=tol, atol=0, equal_nan=True, err_msg=name)


def check(np_fn, fn, *args, traced=None):
    """jit(fn) on `args` (the positions in `traced`, all by default, are arguments of the
    jitted function, the others closed over) against NumPy."""
    want, np_error = run(np_fn, *args)
    positions = range(len(args)) if traced is None else traced

    def f(*t):
        full = list(args)
        for k, v in zip(positions, t):
            full[k] = v
        return fn(*full)
    got, fg_error = run(fg.jit(f), *[args[k] for k in positions])
    name = f"{np_fn.__name__}{tuple(getattr(a, 'dtype', a) for a in args)}"
    if np_error is not None:
        assert fg_error is not None, f"{name}: NumPy raises {np_error!r}, fungrad gives {got!r}"
        return
    assert fg_error is None, f"{name}: fungrad raises {fg_error!r}, NumPy gives {want!r}"
    same(name, got, want)


# composed elementwise functions (not table rows) that NumPy has under the same name
MORE_UNARY = ["fabs", "rint", "trunc", "fix", "cbrt", "spacing", "signbit", "isposinf",
              "isneginf", "deg2rad", "rad2deg", "sinc", "positive", "angle", "nan_to_num",
              "real", "imag", "conj", "around", "iscomplex", "isreal", "i0", "frexp", "modf"]
MORE_BINARY = ["heaviside", "float_power", "ldexp", "divmod", "true_divide", "mod"]
UNARY = [(n, f) for n, f, _ in E.UNARY] + [(n, getattr(np, n)) for n in MORE_UNARY]
BINARY = [(n, f) for n, f, _ in E.BINARY] + [(n, getattr(np, n)) for n in MORE_BINARY]


@pytest.mark.parametrize("name, np_fn", UNARY, ids=[u[0] for u in UNARY])
def test_unary_ufuncs_every_dtype(name, np_fn):
    fn = getattr(fg.numpy, name)
    for dt in DTYPES:
        check(np_fn, fn, values(dt))
        check(np_fn, fn, np.asarray(values(dt)[1]))  # 0-d


@pytest.mark.parametrize("name, np_fn", BINARY, ids=[b[0] for b in BINARY])
def test_binary_ufuncs_every_dtype_pair(name, np_fn):
    fn = getattr(fg.numpy, name)
    for dx in DTYPES:
        for dy in DTYPES:
            check(np_fn, fn, values(dx), values(dy, reverse=True))
        for s in SCALARS:  # traced Python scalars on either side
            check(np_fn, fn, values(dx), s)
            check(np_fn, fn, s, values(dx))


# one-array functions (reductions, scans, sorting, shapes) over every dtype, 1-D and 2-D,
# all axes, with the same edge values
ONE_ARRAY = ["sum", "prod", "max", "min", "amax", "amin", "mean", "std", "var", "ptp",
             "any", "all", "argmax", "argmin", "count_nonzero", "cumsum", "cumprod",
             "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanstd", "nanvar",
             "nancumsum", "nancumprod", "median", "nanmedian", "sort", "argsort", "flip",
             "diff", "ravel", "transpose", "average", "trace", "diagonal", "tril", "triu",
             "fliplr", "flipud", "rot90", "atleast_3d", "squeeze", "cumulative_sum",
             "cumulative_prod", "gradient", "ediff1d", "trapezoid"]
AXIS_FREE = {"ravel", "transpose", "trace", "diagonal", "tril", "triu", "fliplr", "flipud",
             "rot90", "atleast_3d", "squeeze", "ediff1d", "gradient"}


@pytest.mark.parametrize("name", [n for n in ONE_ARRAY if hasattr(np, n)])
def test_one_array_functions_every_dtype(name):
    fn, np_fn = getattr(fg.numpy, name), getattr(np, name)
    for dt in DTYPES:
        x = values(dt)
        for a in (x, x.reshape(2, 4), np.asarray(x[2])):
            if name in ("fliplr", "tril", "triu", "trace", "diagonal", "rot90", "diff", "flipud",
                        "ediff1d", "gradient", "trapezoid") and a.ndim < 2 and (a.ndim == 0 or
                                                                              name not in (
                                                                                  "diff", "flipud", "ediff1d", "gradient", "trapezoid")):
                continue
            if name in AXIS_FREE:
                check(np_fn, fn, a)
                continue
            for axis in ((None, 0, -1) if name not in ("cumulative_sum", "cumulative_prod")
                         or a.ndim == 1 else (0, -1)):
                check(lambda a: np_fn(a, axis=axis), lambda a: fn(a, axis=axis), a)


# two-array functions over every dtype pair (same shapes; 1-D)
TWO_ARRAYS = {
    "concatenate": lambda m, a, b: m.concatenate([a, b]),
    "stack": lambda m, a, b: m.stack([a, b]),
    "hstack": lambda m, a, b: m.hstack([a, b]),
    "vstack": lambda m, a, b: m.vstack([a, b]),
    "column_stack": lambda m, a, b: m.column_stack([a, b]),
    "append": lambda m, a, b: m.append(a, b),
    "where": lambda m, a, b: m.where(a.astype(bool), a, b),
    "outer": lambda m, a, b: m.outer(a, b),
    "inner": lambda m, a, b: m.inner(a, b),
    "dot": lambda m, a, b: m.dot(a, b),
    "vdot": lambda m, a, b: m.vdot(a, b),
    "matmul": lambda m, a, b: m.matmul(a.reshape(2, 4), b.reshape(4, 2)),
    "kron": lambda m, a, b: m.kron(a[:3], b[:3]),
    "cross": lambda m, a, b: m.cross(a[:3], b[:3]),
    "convolve": lambda m, a, b: m.convolve(a, b[:3]),
    "correlate": lambda m, a, b: m.correlate(a, b[:3], "full"),
    "polyval": lambda m, a, b: m.polyval(a[:3], b),
    "isclose": lambda m, a, b: m.isclose(a, b),
    "trapezoid": lambda m, a, b: m.trapezoid(a, b),
    "average": lambda m, a, b: m.average(a, weights=b),
    "einsum": lambda m, a, b: m.einsum("i,i->", a, b),
    "tensordot": lambda m, a, b: m.tensordot(a, b, 1),
    "diff_prepend": lambda m, a, b: m.diff(a, prepend=b[:1]),
    "copysign_where": lambda m, a, b: m.where(a > 0, m.copysign(a, b), b),
    "select": lambda m, a, b: m.select([a > 1, b > 1], [a, b], 0),
    "maximum_reduce": lambda m, a, b: m.max(m.maximum(a, b)),
}
SOME_DTYPES = [np.bool_, np.uint8, np.int8, np.int64, np.float16, np.float32, np.float64,
               np.complex128]


@pytest.mark.parametrize("name", sorted(TWO_ARRAYS))
def test_two_array_functions_every_dtype_pair(name):
    f = TWO_ARRAYS[name]
    for dx in SOME_DTYPES:
        for dy in SOME_DTYPES:
            check(lambda a, b: f(np, a, b), lambda a, b: f(fg.numpy, a, b), values(dx),
                  values(dy, reverse=True))


# NumPy indexing of a traced array: basic, advanced, boolean (concrete) and mixed indices
INDICES = [0, -1, (1, 2), (-1, -6), slice(None, None, -1), slice(1, 5, 2), slice(-100, 100),
           slice(5, 1), (Ellipsis, 0), (None, 1), (slice(None), None, 2), np.array([0, -1, 2]),
           (np.array([0, 3]), np.array([1, -2])), (np.array([[0], [3]]), np.array([1, 2])),
           (slice(None), np.array([0, 5, 5])), (np.array([1, 2]), slice(None), None),
           np.array([True, False, True, False]), (np.array([True, False, True, False]), 1),
           (1, np.array([0, 1])), (np.array([0, 1]), Ellipsis), np.array(2),
           (np.int8(1), np.uint8(2)), np.array([], dtype=int),
           (slice(None), np.array([[1, 2], [3, 4]])), [0, 2], [[0, 1], [2, 3]],
           (Ellipsis, None), (), (0, 7), np.array([4])]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float64, np.complex64])
def test_indexing_every_kind_of_index(dtype):
    x = np.arange(24).reshape(4, 6).astype(dtype)
    for idx in INDICES:
        check(lambda a: a[idx], lambda a: fg.numpy.asarray(a)[idx], x)
