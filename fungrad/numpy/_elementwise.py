"""Elementwise functions of fungrad.numpy, from one table.

Each function computes on plain arrays with NumPy directly (the fast path). With traced
arguments it promotes dtypes (NEP 50), computes the result dtype exactly as NumPy would
(by asking NumPy on 0-d dummies of those dtypes, cached), broadcasts, and binds the
primitive.
"""
from __future__ import annotations

import operator

import numpy as np

from ..backend import array_module, asarray as _asarray, call_on_one_device, is_cupy, one_device
from ..core.ir import aval_of
from ..core.trace import Tracer
from ..errors import ConcretizationError
from ..lax import elementwise as E
from ._base import (WEAK_KIND_TYPE, broadcast_shapes, broadcast_to_shape, cast, check_numbers,
                    dtype_of, has_tracer, is_traced, is_weak, lift, result_type, shape_of,
                    traced_or_narrow)

_dtype_cache: dict = {}


def _compute_dtype(np_fn, in_dtype, nargs):
    """The dtype the primitive computes in: NumPy's result dtype for `in_dtype` operands
    (asked of NumPy once on 0-d dummies, then cached), except that bool results, and real
    results of complex operands (abs), compute in `in_dtype`."""
    key = (np_fn, in_dtype)
    out = _dtype_cache.get(key)
    if out is None:
        # an ml_dtypes float (bfloat16) is asked as float16, whose place it takes (NumPy's
        # non-ufunc functions, i0 or sinc, would compute it in float64 / float32)
        narrow = in_dtype.kind == "V"
        try:
            with np.errstate(all="ignore"):
                res = np_fn(*[np.ones((), np.float16 if narrow else in_dtype)] * nargs).dtype
                res = in_dtype if narrow and res == np.float16 else res
        except TypeError:  # e.g. bitwise ops on floats, fabs of complex
            name = np_fn.__name__
            fix = ("bitwise operators (& | ^ ~ << >>) need integer or bool arrays: convert "
                   "with x.astype(int)") if in_dtype.kind in "fc" and name in _INTEGER_ONLY \
                else "convert the operands to a dtype NumPy accepts (fnp.real(z) or fnp.abs(z) " \
                     "for complex, x.astype(float) for bool)"
            raise TypeError(f"{name} is not defined for {in_dtype} operands (NumPy has no such "
                            f"loop); {fix}") from None
        keep = res == np.bool_ or (in_dtype.kind == "c" and res.kind == "f")
        out = _dtype_cache[key] = in_dtype if keep else res
    return out


def mixed_integer_dtype(np_fn, dx, dy):
    """For integer/bool operands of two different dtypes, the float dtype NumPy's ufunc
    computes in, else None. NumPy picks the first loop both cast to safely (uint8 with int8:
    float16), where promoting first (int16) and asking for that dtype's loop says float32."""
    if dx == dy or dx.kind not in "iub" or dy.kind not in "iub":
        return None
    key = (np_fn, dx, dy)
    if key not in _dtype_cache:
        try:
            with np.errstate(all="ignore"):
                res = np_fn(np.ones((), dx), np.ones((), dy)).dtype
        except TypeError:
            res = None
        _dtype_cache[key] = res if res is not None and res.kind in "fc" else None
    return _dtype_cache[key]


_INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
                 "right_shift", "gcd", "lcm", "bitwise_count"}
_KIND_ACCEPTS = {int: "iufc", float: "fc", complex: "c", bool: "biufc"}
_WEAK = _KIND_ACCEPTS.keys()


def _binary_dtype(x, y, ax, ay):
    """NEP 50 promotion (`ax`/`ay`: the avals, None for Python scalars), with the common
    cases (same dtype; a weak operand that fits) answered without calling NumPy. A traced
    weak value (a Python scalar argument of a jitted function) promotes like the scalar."""
    wx = type(x) if ax is None else WEAK_KIND_TYPE[ax.dtype.kind] if ax.weak_type else None
    wy = type(y) if ay is None else WEAK_KIND_TYPE[ay.dtype.kind] if ay.weak_type else None
    if wx is not None and wy is None:
        if ay.dtype.kind in _KIND_ACCEPTS[wx]:
            return ay.dtype
    elif wy is not None and wx is None:
        if ax.dtype.kind in _KIND_ACCEPTS[wy]:
            return ax.dtype
    elif ax is not None and ay is not None and ax.dtype == ay.dtype:
        return ax.dtype
    return result_type(x, y)


def doc_example(lines) -> str:
    """The `Example:` section of a factory-made docstring: `lines` alternates doctest source
    lines and their expected output ("" for none), as written in an examples table."""
    body = [("        >>> " if i % 2 == 0 else "        ") + line.replace("\n", "\n        ")
            for i, line in enumerate(lines) if line]
    return "\n\n    Example:\n" + "\n".join(body) + "\n"


def _make_unary(name, np_fn, prim):
    bind = prim.bind
    # NumPy's functions that are not ufuncs (i0) compute an ml_dtypes float in float64: those
    # take the primitive's path, which keeps it (ufuncs have ml_dtypes' own loops)
    shortcut = traced_or_narrow if not isinstance(np_fn, np.ufunc) else is_traced

    def fn(x):
        if not shortcut(x):
            try:  # (free unless it raises)
                return np_fn(x)
            except ConcretizationError:  # NumPy met a list holding traced values
                if not has_tracer(x):
                    raise
                x = lift(x)
            except TypeError:  # a ufunc CuPy lacks (spacing): the primitive's impl computes it
                if not is_cupy(x):
                    raise
        dt = aval_of(x).dtype
        cdt = _compute_dtype(np_fn, dt, 1)
        return bind(x if cdt == dt else cast(x, cdt))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Differentiable `numpy.{np_fn.__name__}`." + doc_example(EXAMPLES[name])
    return fn


def _weak_meets_narrow(x, y) -> bool:
    """A Python scalar with an ml_dtypes float array (bfloat16): NumPy computes that in
    float32 (bfloat16 * 0.1 is float32), fungrad's rule keeps the array's dtype, as under
    jit; such eager calls take the primitive's path (its impl rounds back)."""
    if type(y) in _WEAK:
        dt = getattr(x, "dtype", None)
    elif type(x) in _WEAK:
        dt = getattr(y, "dtype", None)
    else:
        return False
    return dt is not None and dt.kind == "V"


_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
_LOGICAL = {"logical_and", "logical_or", "logical_xor"}


def _is_traced_int(a) -> bool:
    return a is not None and a.weak_type and a.dtype.kind == "i"


def _traced_int_meets_int(ax, ay) -> bool:
    """One operand is a traced Python int (a jitted function's int argument), the other an
    integer array of another dtype: NumPy compares the int's value, even one outside the
    array's dtype (np.int8(127) < 300 is True), which converting it would wrap."""
    for a, b in ((ax, ay), (ay, ax)):
        if _is_traced_int(a) and b is not None and not b.weak_type and b.dtype.kind in "iu" \
                and b.dtype != a.dtype:
            return True
    return False


def _compare_with_traced_int(np_fn, compare, x, y, ax):
    """A comparison of an integer array with a traced Python int, by value: in int64, and
    for uint64 arrays with a negative int's answer (that of 0 against -1) selected apart;
    a logical op by truth values."""
    if np_fn.__name__ in _LOGICAL:  # (truth values: -1 is True, whatever the dtype)
        return compare(cast(x, np.bool_), cast(y, np.bool_))
    n_first = _is_traced_int(ax)
    n, arr = (x, y) if n_first else (y, x)
    if dtype_of(arr) != np.uint64:
        return compare(cast(x, np.int64), cast(y, np.int64))
    n_u = cast(maximum(n, 0), np.uint64)
    at_zero_or_more = compare(n_u, arr) if n_first else compare(arr, n_u)
    if_negative = bool(np_fn(-1, 0) if n_first else np_fn(0, -1))
    return where(less(n, 0), if_negative, at_zero_or_more)


def _make_binary(name, np_fn, prim):
    bind = prim.bind
    compares = name in _COMPARISONS or name in _LOGICAL
    cache = {}  # operand dtype -> computing dtype, for this function

    def fn(x, y):
        if not (isinstance(x, Tracer) or isinstance(y, Tracer)) and not (
                (type(x) in _WEAK or type(y) in _WEAK) and _weak_meets_narrow(x, y)):
            try:  # (free unless it raises)
                return np_fn(x, y)
            except ConcretizationError:  # NumPy met a list holding traced values
                if not (has_tracer(x) or has_tracer(y)):
                    raise
            except TypeError:  # a NumPy array meeting a CuPy one, which CuPy rejects
                if array_module(x, y) is np:
                    raise
                return np_fn(*one_device(x, y))
            return fn(lift(x), lift(y))
        ax = x.aval if isinstance(x, Tracer) else None if type(x) in _WEAK else aval_of(x)
        ay = y.aval if isinstance(y, Tracer) else None if type(y) in _WEAK else aval_of(y)
        if compares and _traced_int_meets_int(ax, ay):
            return _compare_with_traced_int(np_fn, fn, x, y, ax)
        try:
            dt = _binary_dtype(x, y, ax, ay)
        except TypeError:  # no common dtype (a datetime64 operand): name the operand
            check_numbers(name, x=x, y=y)
            raise
        cdt = cache.get(dt)
        if cdt is None:  # (a new dtype: None or a str promote to object or str dtypes)
            check_numbers(name, x=x, y=y)
            cdt = cache[dt] = _compute_dtype(np_fn, dt, 2)
        if cdt.kind in "fc" and ax is not None and ay is not None and ax.dtype != ay.dtype \
                and not (ax.weak_type or ay.weak_type):
            cdt = mixed_integer_dtype(np_fn, ax.dtype, ay.dtype) or cdt
        # every operand weak (a traced Python scalar and a Python scalar or another): the
        # result is weak too, as the Python arithmetic's result would be
        weak = (ax is None or ax.weak_type) and (ay is None or ay.weak_type)
        if ax is None or ax.dtype != cdt:
            x = cast(x, cdt, weak)
        if ay is None or ay.dtype != cdt:
            y = cast(y, cdt, weak)
        if ax is not None and ay is not None and ax.shape != ay.shape:
            shape = broadcast_shapes(name, ("x", ax.shape), ("y", ay.shape))
            x = broadcast_to_shape(x, shape)
            y = broadcast_to_shape(y, shape)
        return bind(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Differentiable `numpy.{np_fn.__name__}` with broadcasting." + \
        doc_example(EXAMPLES[name])
    return fn


# (public name, NumPy function, primitive) of every table row, in order: the registry
# checker (tests/checker/registry.py) walks these.
UNARY: list = []
BINARY: list = []


def _unary(name, np_fn, prim):
    UNARY.append((name, np_fn, prim))
    return _make_unary(name, np_fn, prim)


def _binary(name, np_fn, prim):
    BINARY.append((name, np_fn, prim))
    return _make_binary(name, np_fn, prim)


# Each row's docstring example (doc_example): doctest source lines alternating with their
# expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "negative": ("fnp.negative(np.array([1.0, -2.0]))", "array([-1.,  2.])",
                 "fg.grad(fnp.negative)(3.0)", "array(-1.)"),
    "sin": ("fnp.sin(np.array([0.0, np.pi / 2]))", "array([0., 1.])",
            "fg.grad(fnp.sin)(0.0)", "array(1.)"),
    "cos": ("fnp.cos(np.array([0.0, np.pi]))", "array([ 1., -1.])",
            "fg.grad(fnp.cos)(np.pi / 2)", "array(-1.)"),
    "tan": ("fnp.round(fnp.tan(np.array([0.0, np.pi / 4])), 6)", "array([0., 1.])",
            "fg.grad(fnp.tan)(0.0)", "array(1.)"),
    "arcsin": ("fnp.arcsin(np.array([0.0, 1.0]))", "array([0.        , 1.57079633])",
               "fg.grad(fnp.arcsin)(0.0)", "array(1.)"),
    "arccos": ("fnp.arccos(np.array([1.0, 0.0]))", "array([0.        , 1.57079633])",
               "fg.grad(fnp.arccos)(0.0)", "array(-1.)"),
    "arctan": ("fnp.arctan(np.array([0.0, 1.0]))", "array([0.        , 0.78539816])",
               "fg.grad(fnp.arctan)(1.0)", "array(0.5)"),
    "sinh": ("fnp.sinh(np.array([0.0, 1.0]))", "array([0.        , 1.17520119])",
             "fg.grad(fnp.sinh)(0.0)", "array(1.)"),
    "cosh": ("fnp.cosh(np.array([0.0, 1.0]))", "array([1.        , 1.54308063])",
             "fg.grad(fnp.cosh)(0.0)", "array(0.)"),
    "tanh": ("fnp.tanh(np.array([0.0, 1.0]))", "array([0.        , 0.76159416])",
             "fg.grad(fnp.tanh)(0.0)", "array(1.)"),
    "arcsinh": ("fnp.arcsinh(np.array([0.0, 1.0]))", "array([0.        , 0.88137359])",
                "fg.grad(fnp.arcsinh)(0.0)", "array(1.)"),
    "arccosh": ("fnp.arccosh(np.array([1.0, 2.0]))", "array([0.       , 1.3169579])",
                "fg.grad(fnp.arccosh)(2.0)", "array(0.57735027)"),
    "arctanh": ("fnp.arctanh(np.array([0.0, 0.5]))", "array([0.        , 0.54930614])",
                "fg.grad(fnp.arctanh)(0.5)", "array(1.33333333)"),
    "exp": ("fnp.exp(np.array([0.0, 1.0]))", "array([1.        , 2.71828183])",
            "fg.grad(fnp.exp)(0.0)", "array(1.)"),
    "exp2": ("fnp.exp2(np.array([0.0, 3.0]))", "array([1., 8.])",
             "fg.grad(fnp.exp2)(0.0)", "array(0.69314718)"),
    "expm1": ("fnp.expm1(np.array([0.0, 1e-10]))", "array([0.e+00, 1.e-10])",
              "fg.grad(fnp.expm1)(0.0)", "array(1.)"),
    "log": ("fnp.log(np.array([1.0, np.e]))", "array([0., 1.])",
            "fg.grad(fnp.log)(2.0)", "array(0.5)"),
    "log2": ("fnp.log2(np.array([1.0, 8.0]))", "array([0., 3.])",
             "fg.grad(fnp.log2)(1.0)", "array(1.44269504)"),
    "log10": ("fnp.log10(np.array([1.0, 1000.0]))", "array([0., 3.])",
              "fg.grad(fnp.log10)(1.0)", "array(0.43429448)"),
    "log1p": ("fnp.log1p(np.array([0.0, 1e-10]))", "array([0.e+00, 1.e-10])",
              "fg.grad(fnp.log1p)(1.0)", "array(0.5)"),
    "sqrt": ("fnp.sqrt(np.array([4.0, 9.0]))", "array([2., 3.])",
             "fg.grad(fnp.sqrt)(4.0)", "array(0.25)"),
    "square": ("fnp.square(np.array([2.0, -3.0]))", "array([4., 9.])",
               "fg.grad(fnp.square)(3.0)", "array(6.)"),
    "reciprocal": ("fnp.reciprocal(np.array([2.0, 4.0]))", "array([0.5 , 0.25])",
                   "fg.grad(fnp.reciprocal)(2.0)", "array(-0.25)"),
    "abs": ("fnp.abs(np.array([-2.0, 3.0]))", "array([2., 3.])",
            "fg.grad(fnp.abs)(-2.0)", "array(-1.)", "fnp.abs(3 + 4j)", "np.float64(5.0)"),
    "sign": ("fnp.sign(np.array([-2.0, 0.0, 3.0]))", "array([-1.,  0.,  1.])",
             "fg.grad(fnp.sign)(3.0)", "array(0.)"),
    "floor": ("fnp.floor(np.array([-1.5, 1.5]))", "array([-2.,  1.])",
              "fg.grad(fnp.floor)(1.5)", "array(0.)"),
    "ceil": ("fnp.ceil(np.array([-1.5, 1.5]))", "array([-1.,  2.])",
             "fg.grad(fnp.ceil)(1.5)", "array(0.)"),
    "logical_not": ("fnp.logical_not(np.array([True, False]))", "array([False,  True])",
                    "fnp.logical_not(np.array([0.0, 2.0]))", "array([ True, False])"),
    "isfinite": ("fnp.isfinite(np.array([1.0, np.inf, np.nan]))", "array([ True, False, False])"),
    "isnan": ("fnp.isnan(np.array([1.0, np.inf, np.nan]))", "array([False, False,  True])"),
    "invert": ("fnp.invert(np.array([0, 5], np.uint8))", "array([255, 250], dtype=uint8)",
               "fnp.invert(np.array([True, False]))", "array([False,  True])"),
    "fabs": ("fnp.fabs(np.array([-1.5, 2.0]))", "array([1.5, 2. ])",
             "fg.grad(fnp.fabs)(-1.5)", "array(-1.)"),
    "rint": ("fnp.rint(np.array([0.5, 1.5, 2.6]))", "array([0., 2., 3.])",
             "fg.grad(fnp.rint)(2.6)", "array(0.)"),
    "trunc": ("fnp.trunc(np.array([-1.7, 1.7]))", "array([-1.,  1.])",
              "fg.grad(fnp.trunc)(1.7)", "array(0.)"),
    "fix": ("fnp.fix(np.array([-1.7, 1.7]))", "array([-1.,  1.])",
            "fg.grad(fnp.fix)(1.7)", "array(0.)"),
    "cbrt": ("fnp.cbrt(np.array([8.0, -27.0]))", "array([ 2., -3.])",
             "fg.grad(fnp.cbrt)(8.0)", "array(0.08333333)"),
    "spacing": ("fnp.spacing(1.0) == np.finfo(np.float64).eps", "np.True_",
                "fnp.spacing(np.float32(1.0))", "np.float32(1.1920929e-07)"),
    "signbit": ("fnp.signbit(np.array([-1.0, 0.0, -0.0]))", "array([ True, False,  True])"),
    "isinf": ("fnp.isinf(np.array([1.0, np.inf, -np.inf]))", "array([False,  True,  True])"),
    "i0": ("fnp.i0(np.array([0.0, 1.0]))", "array([1.        , 1.26606588])",
           "fg.grad(fnp.i0)(1.0)", "array(0.5651591)"),
    "add": ("fnp.add(np.array([1.0, 2.0]), 10.0)", "array([11., 12.])",
            "fg.grad(fnp.add, argnums=(0, 1))(1.0, 2.0)", "(array(1.), array(1.))"),
    "subtract": ("fnp.subtract(np.array([1.0, 2.0]), 10.0)", "array([-9., -8.])",
                 "fg.grad(fnp.subtract, argnums=(0, 1))(1.0, 2.0)", "(array(1.), array(-1.))"),
    "multiply": ("fnp.multiply(np.array([1.0, 2.0]), np.array([3.0, 4.0]))", "array([3., 8.])",
                 "fg.grad(fnp.multiply, argnums=(0, 1))(3.0, 4.0)", "(array(4.), array(3.))"),
    "divide": ("fnp.divide(np.array([1.0, 3.0]), 2.0)", "array([0.5, 1.5])",
               "fg.grad(fnp.divide, argnums=(0, 1))(1.0, 2.0)", "(array(0.5), array(-0.25))"),
    "power": ("fnp.power(np.array([2.0, 3.0]), 2.0)", "array([4., 9.])",
              "fg.grad(fnp.power, argnums=(0, 1))(2.0, 3.0)", "(array(12.), array(5.54517744))"),
    "maximum": ("fnp.maximum(np.array([1.0, 5.0]), np.array([3.0, 2.0]))", "array([3., 5.])",
                "fg.grad(fnp.maximum, argnums=(0, 1))(2.0, 2.0)", "(array(0.5), array(0.5))"),
    "minimum": ("fnp.minimum(np.array([1.0, 5.0]), np.array([3.0, 2.0]))", "array([1., 2.])",
                "fg.grad(fnp.minimum, argnums=(0, 1))(1.0, 3.0)", "(array(1.), array(0.))"),
    "arctan2": ("fnp.arctan2(np.array([1.0, 0.0]), np.array([0.0, -1.0]))",
                "array([1.57079633, 3.14159265])",
                "fg.grad(fnp.arctan2, argnums=(0, 1))(1.0, 1.0)", "(array(0.5), array(-0.5))"),
    "logaddexp": ("fnp.logaddexp(np.array([0.0, 1.0]), np.array([0.0, -np.inf]))",
                  "array([0.69314718, 1.        ])",
                  "fg.grad(fnp.logaddexp, argnums=(0, 1))(0.0, 0.0)", "(array(0.5), array(0.5))"),
    "hypot": ("fnp.hypot(3.0, 4.0)", "np.float64(5.0)",
              "fg.grad(fnp.hypot, argnums=(0, 1))(3.0, 4.0)", "(array(0.6), array(0.8))"),
    "floor_divide": ("fnp.floor_divide(np.array([7.0, -7.0]), 2.0)", "array([ 3., -4.])",
                     "fnp.floor_divide(np.array([7, -7]), 2)", "array([ 3, -4])"),
    "less": ("fnp.less(np.array([1, 2, 3]), 2)", "array([ True, False, False])"),
    "less_equal": ("fnp.less_equal(np.array([1, 2, 3]), 2)", "array([ True,  True, False])"),
    "equal": ("fnp.equal(np.array([1, 2, 3]), 2)", "array([False,  True, False])"),
    "not_equal": ("fnp.not_equal(np.array([1, 2, 3]), 2)", "array([ True, False,  True])"),
    "greater": ("fnp.greater(np.array([1, 2, 3]), 2)", "array([False, False,  True])"),
    "greater_equal": ("fnp.greater_equal(np.array([1, 2, 3]), 2)", "array([False,  True,  True])"),
    "logical_and": ("fnp.logical_and(np.array([True, True, False]), [True, False, False])",
                    "array([ True, False, False])"),
    "logical_or": ("fnp.logical_or(np.array([True, True, False]), [True, False, False])",
                   "array([ True,  True, False])"),
    "logical_xor": ("fnp.logical_xor(np.array([True, True, False]), [True, False, False])",
                    "array([False,  True, False])"),
    "remainder": ("fnp.remainder(np.array([7.0, -7.0]), 3.0)", "array([1., 2.])",
                  "fg.grad(fnp.remainder, argnums=(0, 1))(7.0, 3.0)", "(array(1.), array(-2.))"),
    "bitwise_and": ("fnp.bitwise_and(np.array([12, 5]), 10)", "array([8, 0])"),
    "bitwise_or": ("fnp.bitwise_or(np.array([12, 5]), 10)", "array([14, 15])"),
    "bitwise_xor": ("fnp.bitwise_xor(np.array([12, 5]), 10)", "array([ 6, 15])"),
    "left_shift": ("fnp.left_shift(1, np.array([0, 3]))", "array([1, 8])"),
    "right_shift": ("fnp.right_shift(np.array([8, 9]), 1)", "array([4, 4])"),
    "fmod": ("fnp.fmod(np.array([7.0, -7.0]), 3.0)", "array([ 1., -1.])",
             "fg.grad(fnp.fmod, argnums=(0, 1))(7.0, 3.0)", "(array(1.), array(-2.))"),
    "fmax": ("fnp.fmax(np.array([1.0, np.nan]), np.array([2.0, 0.0]))", "array([2., 0.])",
             "fg.grad(fnp.fmax, argnums=(0, 1))(1.0, 2.0)", "(array(0.), array(1.))"),
    "fmin": ("fnp.fmin(np.array([1.0, np.nan]), np.array([2.0, 0.0]))", "array([1., 0.])",
             "fg.grad(fnp.fmin, argnums=(0, 1))(1.0, 2.0)", "(array(1.), array(0.))"),
    "copysign": ("fnp.copysign(np.array([1.0, 2.0]), np.array([-1.0, 1.0]))", "array([-1.,  2.])",
                 "fg.grad(fnp.copysign)(2.0, -1.0)", "array(-1.)"),
    "nextafter": ("fnp.nextafter(1.0, 2.0) == 1.0 + np.finfo(np.float64).eps", "np.True_",
                  "fnp.nextafter(np.float32(1.0), 0.0)", "np.float32(0.99999994)"),
    "logaddexp2": ("fnp.logaddexp2(np.array([1.0, 3.0]), 1.0)", "array([2.        , 3.32192809])",
                   "fg.grad(fnp.logaddexp2, argnums=(0, 1))(1.0, 1.0)",
                   "(array(0.5), array(0.5))"),
    "gcd": ("fnp.gcd(12, np.array([8, 9]))", "array([4, 3])"),
    "lcm": ("fnp.lcm(4, np.array([6, 10]))", "array([12, 20])"),
}


# The table: one explicit module-level name a row, so linters and go-to-definition see it.
negative = _unary("negative", np.negative, E.neg_p)
sin = _unary("sin", np.sin, E.sin_p)
cos = _unary("cos", np.cos, E.cos_p)
tan = _unary("tan", np.tan, E.tan_p)
arcsin = _unary("arcsin", np.arcsin, E.arcsin_p)
arccos = _unary("arccos", np.arccos, E.arccos_p)
arctan = _unary("arctan", np.arctan, E.arctan_p)
sinh = _unary("sinh", np.sinh, E.sinh_p)
cosh = _unary("cosh", np.cosh, E.cosh_p)
tanh = _unary("tanh", np.tanh, E.tanh_p)
arcsinh = _unary("arcsinh", np.arcsinh, E.arcsinh_p)
arccosh = _unary("arccosh", np.arccosh, E.arccosh_p)
arctanh = _unary("arctanh", np.arctanh, E.arctanh_p)
exp = _unary("exp", np.exp, E.exp_p)
exp2 = _unary("exp2", np.exp2, E.exp2_p)
expm1 = _unary("expm1", np.expm1, E.expm1_p)
log = _unary("log", np.log, E.log_p)
log2 = _unary("log2", np.log2, E.log2_p)
log10 = _unary("log10", np.log10, E.log10_p)
log1p = _unary("log1p", np.log1p, E.log1p_p)
sqrt = _unary("sqrt", np.sqrt, E.sqrt_p)
square = _unary("square", np.square, E.square_p)
reciprocal = _unary("reciprocal", np.reciprocal, E.reciprocal_p)
abs = _unary("abs", np.abs, E.abs_p)
sign = _unary("sign", np.sign, E.sign_p)
floor = _unary("floor", np.floor, E.floor_p)
ceil = _unary("ceil", np.ceil, E.ceil_p)
logical_not = _unary("logical_not", np.logical_not, E.logical_not_p)
isfinite = _unary("isfinite", np.isfinite, E.isfinite_p)
isnan = _unary("isnan", np.isnan, E.isnan_p)
invert = _unary("invert", np.invert, E.invert_p)

add = _binary("add", np.add, E.add_p)
subtract = _binary("subtract", np.subtract, E.sub_p)
multiply = _binary("multiply", np.multiply, E.mul_p)
divide = _binary("divide", np.divide, E.div_p)
power = _binary("power", np.power, E.pow_p)
maximum = _binary("maximum", np.maximum, E.maximum_p)
minimum = _binary("minimum", np.minimum, E.minimum_p)
arctan2 = _binary("arctan2", np.arctan2, E.arctan2_p)
logaddexp = _binary("logaddexp", np.logaddexp, E.logaddexp_p)
hypot = _binary("hypot", np.hypot, E.hypot_p)
floor_divide = _binary("floor_divide", np.floor_divide, E.floor_divide_p)
less = _binary("less", np.less, E.lt_p)
less_equal = _binary("less_equal", np.less_equal, E.le_p)
equal = _binary("equal", np.equal, E.eq_p)
not_equal = _binary("not_equal", np.not_equal, E.ne_p)
greater = _binary("greater", np.greater, E.gt_p)
greater_equal = _binary("greater_equal", np.greater_equal, E.ge_p)
logical_and = _binary("logical_and", np.logical_and, E.logical_and_p)
logical_or = _binary("logical_or", np.logical_or, E.logical_or_p)
logical_xor = _binary("logical_xor", np.logical_xor, E.logical_xor_p)
remainder = _binary("remainder", np.remainder, E.rem_p)
bitwise_and = _binary("bitwise_and", np.bitwise_and, E.bitwise_and_p)
bitwise_or = _binary("bitwise_or", np.bitwise_or, E.bitwise_or_p)
bitwise_xor = _binary("bitwise_xor", np.bitwise_xor, E.bitwise_xor_p)
left_shift = _binary("left_shift", np.left_shift, E.left_shift_p)
right_shift = _binary("right_shift", np.right_shift, E.right_shift_p)
# (issue 11) more ufuncs; fabs / rint / fix reuse abs / round / trunc
fabs = _unary("fabs", np.fabs, E.abs_p)
rint = _unary("rint", np.rint, E.round_p)
trunc = _unary("trunc", np.trunc, E.trunc_p)
fix = _unary("fix", np.fix, E.trunc_p)
cbrt = _unary("cbrt", np.cbrt, E.cbrt_p)
spacing = _unary("spacing", np.spacing, E.spacing_p)
signbit = _unary("signbit", np.signbit, E.signbit_p)
isinf = _unary("isinf", np.isinf, E.isinf_p)
i0 = _unary("i0", np.i0, E.i0_p)
fmod = _binary("fmod", np.fmod, E.fmod_p)
fmax = _binary("fmax", np.fmax, E.fmax_p)
fmin = _binary("fmin", np.fmin, E.fmin_p)
copysign = _binary("copysign", np.copysign, E.copysign_p)
nextafter = _binary("nextafter", np.nextafter, E.nextafter_p)
logaddexp2 = _binary("logaddexp2", np.logaddexp2, E.logaddexp2_p)
gcd = _binary("gcd", np.gcd, E.gcd_p)
lcm = _binary("lcm", np.lcm, E.lcm_p)

true_divide = divide
absolute = abs
pow = power
mod = remainder
bitwise_not = invert
bitwise_invert = invert
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift
# NumPy 2's array-API names
acos, asin, atan, atan2 = arccos, arcsin, arctan, arctan2
acosh, asinh, atanh = arccosh, arcsinh, arctanh


def where(condition, x=None, y=None):
    """`numpy.where(condition, x, y)`, differentiable in x and y, with broadcasting.

    Example:
        >>> x = np.array([-1.0, 2.0])
        >>> fnp.where(x > 0, x, 0.0)
        array([0., 2.])
        >>> fg.grad(lambda x: fnp.sum(fnp.where(x > 0, x, 0.0)))(x)
        array([0., 1.])
    """
    if x is None and y is None:
        if is_traced(condition):
            raise TypeError("where(condition) with one argument returns data-dependent shapes "
                            "and is not supported on traced values; use where(c, x, y)")
        return np.where(condition)
    if x is None or y is None:
        raise TypeError("where: either both or neither of x and y must be given")
    condition, x, y = lift(condition), lift(x), lift(y)
    if not is_traced(condition, x, y) and not _weak_meets_narrow(x, y):
        try:
            return np.where(condition, x, y)
        except (TypeError, AttributeError):  # CuPy: NumPy arrays or a bool condition mixed in
            return call_on_one_device(np.where, np.asarray(condition) if isinstance(
                condition, (bool, np.bool_)) else condition, x, y)
    dt = result_type(x, y)
    x, y = cast(x, dt), cast(y, dt)
    if is_traced(condition) and dtype_of(condition) != np.bool_:
        condition = E.ne(condition, 0)
    elif not is_traced(condition):
        condition = _asarray(condition, np.bool_)  # (a CuPy array stays one)
    shape = broadcast_shapes("where", ("condition", shape_of(condition)), ("x", shape_of(x)),
                             ("y", shape_of(y)))
    if is_weak(x) and is_weak(y):
        x = np.asarray(x, dt)
    c = broadcast_to_shape(condition, shape)
    return E.select(c, broadcast_to_shape(x, shape), broadcast_to_shape(y, shape))


def clip(a, a_min=None, a_max=None):
    """`numpy.clip`: elementwise min(max(a, a_min), a_max); gradient 1 strictly inside.

    Example:
        >>> x = np.array([-2.0, 0.5, 3.0])
        >>> fnp.clip(x, -1.0, 1.0)
        array([-1. ,  0.5,  1. ])
        >>> fg.grad(lambda x: fnp.sum(fnp.clip(x, -1.0, 1.0)))(x)
        array([0., 1., 0.])
    """
    if a_min is None and a_max is None:
        raise ValueError("clip: one of a_min and a_max must be given")
    a = lift(a)
    if not is_traced(a, a_min, a_max) and not (_weak_meets_narrow(a, a_min)
                                               or _weak_meets_narrow(a, a_max)):
        return np.clip(a, a_min, a_max)
    out = a
    if a_min is not None:
        out = maximum(out, _bound_in_range(a_min, a))
    if a_max is not None:
        out = minimum(out, _bound_in_range(a_max, a))
    return out


def _bound_in_range(bound, a):
    """A traced Python int bound of clip, for an integer `a`, moved into `a`'s dtype's range
    first: NumPy clips with an out-of-range Python int (uint8 values clipped to [-1, 3])."""
    dt = dtype_of(a)
    if type(bound) is int and dt.kind in "iu":  # (a traced `a`: minimum(x_i32, 2**31) raises)
        info = np.iinfo(dt)
        return min(max(bound, int(info.min)), int(info.max))
    if not (isinstance(bound, Tracer) and _is_traced_int(bound.aval)) or dt.kind not in "iu" \
            or dt == bound.aval.dtype:
        return bound
    info = np.iinfo(dt)
    return cast(minimum(maximum(bound, max(int(info.min), -2 ** 63)),
                        min(int(info.max), 2 ** 63 - 1)), dt)


def round(a, decimals: int = 0):
    """`numpy.round`; zero derivative (piecewise constant).

    Example:
        >>> fnp.round(np.array([0.5, 1.5, 3.14159]), 2)
        array([0.5 , 1.5 , 3.14])
        >>> fnp.round(np.array([0.5, 1.5, 2.5]))  # halves round to the even neighbor
        array([0., 2., 2.])
        >>> fg.grad(fnp.round)(1.3)
        array(0.)
    """
    a = lift(a)
    if not is_traced(a):
        return np.round(a, decimals)
    decimals = operator.index(decimals)  # (as NumPy: 1.5 decimals would scale by 10**1.5)
    dt = a.aval.dtype
    if dt == np.bool_ and decimals != 0:
        raise TypeError(f"round: bool arrays cannot be rounded to decimals={decimals} (NumPy "
                        "cannot cast the scaled float values back to bool); use "
                        "fnp.round(x.astype(float), decimals)")
    if dt == np.bool_:  # NumPy rounds bools to float16 (0 and 1 stay themselves)
        return cast(a, np.float16)
    if dt.kind in "iu":  # integers keep their dtype (NumPy): unchanged unless decimals < 0
        if decimals >= 0:
            return a
        scale = 10.0 ** -decimals  # (halves to even, on the integer as NumPy does)
        return cast(multiply(E.round_p.bind(divide(cast(a, np.float64), scale)), scale), dt)
    if dt.kind == "c":  # the parts one by one, as NumPy (a complex product by the scale
        # would mix them: inf + 0j times 10 is inf + nan j)
        return E.make_complex(round(E.real(a), decimals), round(E.imag(a), decimals))
    if decimals == 0:
        return E.round_p.bind(a)
    scale = 10.0 ** decimals
    return divide(E.round_p.bind(multiply(a, scale)), scale)


around = round


def real(val):
    """`numpy.real`: the real part (a real array is returned as is); its cotangent is the
    real cotangent as a complex one.

    Example:
        >>> fnp.real(np.array([1 + 2j, 3 - 1j]))
        array([1., 3.])
        >>> fg.grad(lambda x: fnp.real(x * (3 + 4j)))(1.0)
        array(3.)
    """
    if not is_traced(val):
        return np.real(val)
    return E.real(val) if val.aval.dtype.kind == "c" else val


def imag(val):
    """`numpy.imag`: the imaginary part (zeros for a real array).

    Example:
        >>> fnp.imag(np.array([1 + 2j, 3 - 1j]))
        array([ 2., -1.])
        >>> fg.grad(lambda x: fnp.imag(x * (3 + 4j)))(1.0)
        array(4.)
    """
    if not is_traced(val):
        return np.imag(val)
    a = val.aval
    return E.imag(val) if a.dtype.kind == "c" else array_module(val).zeros(a.shape, a.dtype)


def conj(x):
    """`numpy.conj`: the complex conjugate (a real array is returned as is).

    Example:
        >>> fnp.conj(np.array([1 + 2j, 3 - 1j]))
        array([1.-2.j, 3.+1.j])
        >>> fg.grad(lambda z: fnp.real(fnp.conj(z) * z))(1 + 2j)  # |z|^2: 2 conj(z)
        array(2.-4.j)
    """
    if not is_traced(x):
        return np.conj(x)
    if x.aval.dtype == np.bool_:  # (NumPy's conjugate has no bool loop: it gives int8)
        return cast(x, np.int8)
    return E.conj(x) if x.aval.dtype.kind == "c" else x


conjugate = conj


def conj_if_complex(x):
    """conj for products that conjugate (vdot, vecdot, correlate): other dtypes unchanged
    (NumPy's conj of bool is int8, which would change a boolean product's dtype)."""
    return conj(x) if dtype_of(x).kind == "c" else x


def divmod(x, y):
    """`numpy.divmod`: `(x // y, x % y)`; the remainder is differentiable.

    Example:
        >>> fnp.divmod(np.array([7.0, -7.0]), 2.0)
        (array([ 3., -4.]), array([1., 1.]))
        >>> fg.grad(lambda x: fnp.divmod(x, 2.0)[1])(7.0)
        array(1.)
    """
    return floor_divide(x, y), remainder(x, y)
