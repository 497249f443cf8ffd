"""Shared helpers of the NumPy namespace: tracer tests, NEP 50 promotion, broadcasting."""
from __future__ import annotations

import sys

import numpy as np

from ..backend import array_module, asarray as _asarray
from ..core import dtypes as _dtypes
from ..core.ir import PY_SCALARS, aval_of
from ..core.trace import Tracer
from ..lax.elementwise import convert_element_type
from ..lax.shape import broadcast_in_dim, concatenate, reshape



def is_traced(*xs) -> bool:
    for x in xs:
        if isinstance(x, Tracer):
            return True
    return False


def traced_or_narrow(*xs) -> bool:
    """Whether a function with an eager NumPy shortcut takes its traced composition: a
    tracer among `xs`, or an array of an ml_dtypes float (bfloat16), which NumPy's
    functions that are not ufuncs (linspace, i0, matmul, ...) compute and return in float32 or
    float64, where fungrad keeps bfloat16 as under jit (as NumPy keeps float16)."""
    for x in xs:
        if isinstance(x, Tracer):
            return True
        dt = getattr(x, "dtype", None)
        if dt is not None and dt.kind == "V" and _dtypes.is_inexact(dt):
            return True
    return False


def has_tracer(obj) -> bool:
    """Whether `obj` is a tracer or a (nested) list/tuple holding one."""
    if isinstance(obj, Tracer):
        return True
    if type(obj) in SEQUENCES:
        return any(has_tracer(o) for o in obj)
    return False


SEQUENCES = (list, tuple)


def lift(x):
    """A list/tuple holding traced values as one traced array (as `fnp.array(x)`), so every
    fnp function accepts `fnp.mean([x, x + 2])`; anything else unchanged."""
    if type(x) in SEQUENCES and has_tracer(x):
        return _stack_list(x)
    return x


def _stack_list(items):
    """`np.array(items)` for a (nested) list holding traced values: promote the elements
    (NEP 50), then stack them along a new leading axis."""
    parts = [_stack_list(o) if type(o) in SEQUENCES else o for o in items]
    parts = [p if isinstance(p, Tracer) or is_weak(p) else np.asarray(p) for p in parts]
    shapes = {shape_of(p) for p in parts}
    if len(shapes) != 1:
        raise ValueError(f"setting an array element with a sequence: the elements have "
                         f"different shapes {[shape_of(p) for p in parts]} (an array needs "
                         "equal ones; broadcast them first)")
    shape, dt = shapes.pop(), result_type(*parts)
    rows = [reshape(np.asarray(p, dt) if is_weak(p) else cast(p, dt), (1,) + shape)
            for p in parts]
    return concatenate(rows, 0)


def is_weak(x) -> bool:
    """A Python scalar: it takes the dtype of the arrays it meets (NEP 50)."""
    return type(x) in PY_SCALARS


def shape_of(x) -> tuple:
    return aval_of(x).shape if not is_weak(x) else ()


def dtype_of(x):
    return aval_of(x).dtype


# the Python type a weak-typed traced value stands for, by dtype kind
WEAK_KIND_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _promotion_operand(x):
    if is_weak(x):
        return x
    a = aval_of(x)
    return WEAK_KIND_TYPE[a.dtype.kind](0) if a.weak_type else a.dtype


def result_type(*xs):
    """NumPy 2 promotion: Python scalars (and traced weak values) are weak; bfloat16
    promotes like float16 (`core.dtypes.result_type`). A traced computation that meets
    None, a str or an object / datetime64 array raises a TypeError naming it (its object
    or str dtype would reach the primitives), where NumPy on concrete arrays is left be."""
    try:
        dt = _dtypes.result_type(*[_promotion_operand(x) for x in xs])
    except TypeError:  # no common dtype (a datetime64 with a float)
        _check_traced_numbers(xs)
        raise
    if _dtypes.kind(dt) not in "biufc":
        _check_traced_numbers(xs)
    return dt


def _check_traced_numbers(xs):
    if has_tracer(xs):
        check_numbers(_public_caller(), **{f"operand {i}": x for i, x in enumerate(xs)})


def _public_caller() -> str:
    """The name of the innermost public fnp function on the stack (for error messages of
    shared helpers), skipping private helpers such as `_conv1d`."""
    frame = sys._getframe(1)
    while frame is not None:
        name, module = frame.f_code.co_name, frame.f_globals.get("__name__", "")
        if not name.startswith("_") and module.startswith("fungrad.numpy") and \
                module != __name__:
            return name
        frame = frame.f_back
    return "fungrad.numpy"


def _is_number(x) -> bool:
    """A value fnp computes with: a Python number, a tracer, or an array of a bool,
    integer, float (ml_dtypes' too) or complex dtype."""
    if is_weak(x) or isinstance(x, Tracer):
        return True
    try:
        return _dtypes.kind(aval_of(x).dtype) in "biufc"
    except Exception:  # (a ragged list: NumPy names that itself)
        return True


def check_numbers(fname, **operands):
    """Raise a TypeError naming each operand of `fname` that is not a number (None, a str,
    a dict, an object or datetime64 array), which NumPy's ufuncs reject too: without it a
    traced call would promote to NumPy's object or str dtype and compute garbage. Call it
    where a traced call's promotion fails or leaves the numbers, not on every call."""
    bad = [f"{name} is {_describe(x)}" for name, x in operands.items() if not _is_number(x)]
    if bad:
        raise TypeError(f"{fname}: {'; '.join(bad)}: fungrad computes with bool, integer, "
                        "float and complex arrays and Python numbers only; convert it "
                        "(np.asarray(v, dtype=float)) or keep it out of the computation")


def _describe(x) -> str:
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, np.dtype):
        return f"an array of dtype {dtype}"
    name, text = type(x).__name__, repr(x)
    article = "an" if name[0] in "aeiou" else "a"
    return f"{article} {name} ({text if len(text) <= 40 else text[:37] + '...'})"


def cast(x, dtype, weak: bool = False):
    """`x` as `dtype`; Python scalars stay weak scalars (NumPy casts them at use), and with
    `weak` a traced weak value stays weak (promotion among weak operands)."""
    if is_weak(x):
        # keep it a weak Python scalar, but of the computing kind (True * 1.5 -> 1.0 * 1.5),
        # so derivative rules never apply bool arithmetic to it
        kind = _dtypes.kind(dtype)
        return float(x) if kind == "f" else complex(x) if kind == "c" else (
            int(x) if kind in "iu" else x)
    if isinstance(x, Tracer):
        if x.aval.dtype == dtype:
            return x
        return convert_element_type(x, dtype, weak and x.aval.weak_type)
    x = _asarray(x)  # (a CuPy array stays one)
    return x if x.dtype == dtype else x.astype(dtype)


COMPOSE = object()  # numpy_or_compose's answer where CuPy lacks the function


def numpy_or_compose(np_fn, *args, **kwargs):
    """`np_fn(*args, **kwargs)` on concrete values, or `COMPOSE` where that fails for CuPy
    arrays (CuPy lacks the function or one of its arguments): the caller then computes it
    the way it does for traced values, with fnp's own functions."""
    try:
        return np_fn(*args, **kwargs)
    except TypeError:
        if array_module(*args) is np:
            raise
        return COMPOSE


def _broadcast_pair(a: tuple, b: tuple):
    """NumPy's broadcast of two shapes in plain Python (np.broadcast_shapes costs
    microseconds); None if they do not broadcast."""
    if len(a) < len(b):
        a, b = b, a
    out = list(a)
    for i, d in enumerate(b, len(a) - len(b)):
        if d != out[i]:
            if out[i] == 1:
                out[i] = d
            elif d != 1:
                return None
    return tuple(out)


def broadcast_shapes(fname, *named_shapes):
    """`np.broadcast_shapes`, with an error that names the function and each argument."""
    out: tuple | None = ()
    for _, shape in named_shapes:
        out = _broadcast_pair(out, tuple(shape))
        if out is None:
            desc = ", ".join(f"{n} has shape {s}" for n, s in named_shapes)
            raise ValueError(f"{fname}: operands could not be broadcast together: {desc}")
    return out


def broadcast_to_shape(x, shape):
    """Broadcast an array or tracer to `shape` with a `broadcast_in_dim` (no-op if equal)."""
    if is_weak(x):
        return x
    xs = shape_of(x)
    if xs == tuple(shape):
        return x
    nd = len(shape)
    return broadcast_in_dim(x, shape, tuple(range(nd - len(xs), nd)))


def single_axis(fname, axis, ndim) -> int:
    """One `axis` (an int: functions of one axis reject a tuple, as NumPy's do, rather than
    use its first entry) as a non-negative int."""
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{fname}: axis must be an int, got {axis!r} ('{type(axis).__name__}' "
                        f"object cannot be interpreted as an integer)")
    return normalize_axis(fname, axis, ndim)[0]


def strict_axis(fname, axis, ndim) -> int:
    """`single_axis` for functions that take no axis of a 0-d array (moveaxis, split, roll,
    partition...: NumPy's AxisError; single_axis lets reductions read 0-d as 1-d)."""
    if not ndim and isinstance(axis, (int, np.integer)):
        raise np.exceptions.AxisError(f"{fname}: axis {axis} is out of bounds for array of "
                                      "dimension 0")
    return single_axis(fname, axis, ndim)


def normalize_axis(fname, axis, ndim):
    """`axis` (None, int or tuple) as a sorted tuple of non-negative ints; clear errors."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        if not isinstance(a, (int, np.integer)):
            raise TypeError(f"{fname}: axis must be an int or a tuple of ints, got {axis!r}")
        # (a 0-d array takes axis 0 or -1 in NumPy's ufunc reductions: sum, max, any)
        if (ndim == 0 and a not in (0, -1)) or (ndim and not -ndim <= a < ndim):
            raise np.exceptions.AxisError(  # (NumPy's: a ValueError and an IndexError)
                f"{fname}: axis {a} is out of bounds for an array of dimension {ndim}")
        a = int(a) % max(ndim, 1)
        if a in out:
            raise ValueError(f"{fname}: repeated axis {a} in axis={axis!r}")
        out.append(a)
    return tuple(sorted(out)) if ndim else ()
