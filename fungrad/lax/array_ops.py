"""jax.lax's array functions (`fg.lax.reshape`, `reduce_sum`, `top_k`, `clamp`, `div`, ...):
thin, checked front ends over the primitives with JAX's `lax` semantics: no promotion and
no broadcasting (operands must agree in dtype and shape; a Python scalar is weak and takes
the other operand's dtype), static shape arguments checked here, eagerly and under every
transform alike, with messages naming the argument and the fix. Results are arrays (never
NumPy scalars), as jax.lax returns.
"""
from __future__ import annotations

import builtins as _builtins
import enum as _enum
import operator as _operator

import numpy as _np

from ..backend import array_module as _array_module
from ..core.ir import aval_of as _aval_of
from ..core.trace import Tracer as _Tracer
from . import elementwise as _E
from . import reduce as _R
from . import shape as _S
from .indexing import getitem_p as _getitem_p
from .misc import stop_gradient

_PY_SCALARS = (bool, int, float, complex)


def _operand(name, x):
    if isinstance(x, _Tracer) or hasattr(x, "dtype") and hasattr(x, "shape"):
        return x
    try:
        return _np.asarray(x)
    except Exception:
        raise TypeError(f"{name}: the operand must be an array or a Python scalar, got "
                        f"{type(x).__name__}") from None


def _ints(name, arg, values):
    try:
        return tuple(_operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{name}: {arg} must be a sequence of Python ints known at trace time, "
                        f"got {values!r}") from None


def _axes(name, arg, axes, ndim, negative=False):
    """Validated distinct axes in [0, ndim) (in [-ndim, ndim) if `negative`)."""
    axes = _ints(name, arg, axes)
    lo = -ndim if negative else 0
    for a in axes:
        if not lo <= a < ndim:
            what = f"{arg} {a}" if len(axes) == 1 and arg in ("axis", "dimension") else \
                f"{arg} {axes} holds {a}, which"
            raise ValueError(f"{name}: {what} is out of range for an operand with {ndim} dims; "
                             f"pass {'an axis' if arg in ('axis', 'dimension') else 'axes'} in "
                             f"[{lo}, {ndim})")
    if len({a % ndim for a in axes}) != len(axes):
        raise ValueError(f"{name}: {arg} {axes} repeats an axis; pass each axis once")
    return tuple(a % ndim for a in axes) if negative else axes


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """JAX's `lax.broadcast_in_dim`: `operand` placed along `broadcast_dimensions` of `shape`.

    Each operand dimension has size 1 or the size of the output dimension it maps to;
    `broadcast_dimensions` are distinct (in any order: out of order, they transpose).

    Example:
        >>> fg.lax.broadcast_in_dim(np.array([1., 2.]), (3, 2), (1,))
        array([[1., 2.],
               [1., 2.],
               [1., 2.]])
    """
    x = _operand("broadcast_in_dim", operand)
    a = _aval_of(x)
    shape = _ints("broadcast_in_dim", "shape", shape)
    dims = _ints("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
    ok = (len(dims) == a.ndim and all(0 <= d < len(shape) for d in dims)
          and len(set(dims)) == len(dims)
          and all(n == 1 or n == shape[d] for n, d in zip(a.shape, dims))
          and all(n >= 0 for n in shape))
    if not ok:
        raise TypeError(f"broadcast_in_dim: cannot broadcast {a.str_short()} to shape {shape} "
                        f"along broadcast_dimensions {dims}; pass one distinct output axis per "
                        f"operand dimension, each of size 1 or the output's size")
    if list(dims) != sorted(dims):  # (the primitive wants them increasing: transpose first)
        order = sorted(range(len(dims)), key=dims.__getitem__)
        x, dims = _S.transpose(x, tuple(order)), tuple(sorted(dims))
    return _S.broadcast_in_dim(x, shape, dims)


def broadcast(operand, sizes):
    """JAX's `lax.broadcast`: `operand` with leading dimensions `sizes` added.

    Example:
        >>> fg.lax.broadcast(np.array([1., 2.]), (2,)).shape
        (2, 2)
    """
    x = _operand("broadcast", operand)
    sizes = _ints("broadcast", "sizes", sizes)
    nd = _aval_of(x).ndim
    return broadcast_in_dim(x, sizes + tuple(_aval_of(x).shape),
                            tuple(range(len(sizes), len(sizes) + nd)))


def reshape(operand, new_sizes, dimensions=None):
    """JAX's `lax.reshape`: `operand` (transposed by `dimensions` first, if given) in the shape
    `new_sizes`, which holds every size explicitly (no -1).

    Example:
        >>> fg.lax.reshape(np.arange(6.), (2, 3), dimensions=None)
        array([[0., 1., 2.],
               [3., 4., 5.]])
    """
    x = _operand("reshape", operand)
    a = _aval_of(x)
    new_sizes = _ints("reshape", "new_sizes", new_sizes)
    if any(n < 0 for n in new_sizes) or _np.prod(new_sizes, dtype=_np.int64) != a.size:
        raise TypeError(f"reshape: new_sizes {new_sizes} does not hold the {a.size} elements of "
                        f"{a.str_short()}; pass every size explicitly (lax.reshape has no -1)")
    if dimensions is not None:
        dims = _ints("reshape", "dimensions", dimensions)
        if sorted(dims) != list(range(a.ndim)):
            raise TypeError(f"reshape: dimensions {dims} must be a permutation of the axes of "
                            f"{a.str_short()}")
        if dims != tuple(range(a.ndim)):
            x = _S.transpose(x, dims)
    if new_sizes == tuple(a.shape):
        return x
    return _S.reshape(x, new_sizes)


def transpose(operand, permutation):
    """JAX's `lax.transpose`: axis `i` of the result is axis `permutation[i]` of `operand`.

    Example:
        >>> fg.lax.transpose(np.ones((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    x = _operand("transpose", operand)
    a = _aval_of(x)
    perm = _ints("transpose", "permutation", permutation)
    if sorted(perm) != list(range(a.ndim)):
        raise TypeError(f"transpose: permutation {perm} must be a permutation of the axes of "
                        f"{a.str_short()} (negative axes are not accepted)")
    return _S.transpose(x, perm)


def concatenate(operands, dimension):
    """JAX's `lax.concatenate`: `operands` (one dtype, equal shapes but along `dimension`)
    joined along `dimension`.

    Example:
        >>> fg.lax.concatenate([np.zeros(2), np.ones(1)], 0)
        array([0., 0., 1.])
    """
    xs = [_operand("concatenate", x) for x in operands]
    if not xs:
        raise TypeError("concatenate: operands must hold at least one array")
    avals = [_aval_of(x) for x in xs]
    nd = avals[0].ndim
    dimension = _operator.index(dimension)
    if not 0 <= dimension < _builtins.max(nd, 1) or nd == 0:
        raise TypeError(f"concatenate: dimension {dimension} is out of range for operands of "
                        f"{nd} dims; pass a dimension in [0, {nd})")
    for i, b in enumerate(avals):
        if b.dtype != avals[0].dtype:
            raise TypeError(f"concatenate: every operand must have the dtype of operand 0 "
                            f"({avals[0].dtype}), but operand {i} is {b.str_short()}; cast it "
                            f"with fg.lax.convert_element_type first (lax does not promote)")
        if b.ndim != nd or any(m != n for k, (m, n) in enumerate(zip(b.shape, avals[0].shape))
                               if k != dimension):
            raise TypeError(f"concatenate: operands must have equal shapes except along "
                            f"dimension {dimension}; got {', '.join(v.str_short() for v in avals)}")
    if len(xs) == 1:
        return xs[0]
    return _S.concatenate(xs, dimension)


def squeeze(array, dimensions):
    """JAX's `lax.squeeze`: `array` without the size-1 axes `dimensions` (negative ok).

    Example:
        >>> fg.lax.squeeze(np.ones((1, 3, 1)), (0, -1)).shape
        (3,)
    """
    x = _operand("squeeze", array)
    a = _aval_of(x)
    dims = _axes("squeeze", "dimensions", dimensions, a.ndim, negative=True)
    for d in dims:
        if a.shape[d] != 1:
            raise ValueError(f"squeeze: dimensions {tuple(dimensions)} must name axes of size 1, "
                             f"but axis {d} of {a.str_short()} has size {a.shape[d]}")
    if not dims:
        return x
    return _S.reshape(x, tuple(n for k, n in enumerate(a.shape) if k not in dims))


def expand_dims(array, dimensions):
    """JAX's `lax.expand_dims`: `array` with size-1 axes inserted at `dimensions` (positions
    in the result; negative ok).

    Example:
        >>> fg.lax.expand_dims(np.ones(3), (0, -1)).shape
        (1, 3, 1)
    """
    x = _operand("expand_dims", array)
    a = _aval_of(x)
    dims = _axes("expand_dims", "dimensions", dimensions, a.ndim + len(tuple(dimensions)),
                 negative=True)
    shape = list(a.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    if not dims:
        return x
    return _S.reshape(x, tuple(shape))


def rev(operand, dimensions):
    """JAX's `lax.rev`: `operand` reversed along `dimensions` (non-negative axes).

    Example:
        >>> fg.lax.rev(np.arange(3.), (0,))
        array([2., 1., 0.])
    """
    x = _operand("rev", operand)
    a = _aval_of(x)
    dims = _axes("rev", "dimensions", dimensions, a.ndim)
    if not dims:
        return x
    spec = tuple(("slice", None, None, -1 if k in dims else None)
                 for k in range(_builtins.max(dims) + 1))
    return _getitem_p.bind(x, spec=spec)


def slice(operand, start_indices, limit_indices, strides=None):
    """JAX's `lax.slice`: `operand[start:limit:stride, ...]` with static, in-range bounds
    (`0 <= start <= limit <= size`, strides >= 1; nothing is clamped or wrapped).

    Example:
        >>> fg.lax.slice(np.arange(10.), (1,), (8,), (3,))
        array([1., 4., 7.])
    """
    x = _operand("slice", operand)
    a = _aval_of(x)
    starts = _ints("slice", "start_indices", start_indices)
    limits = _ints("slice", "limit_indices", limit_indices)
    steps = (1,) * a.ndim if strides is None else _ints("slice", "strides", strides)
    if not len(starts) == len(limits) == len(steps) == a.ndim:
        raise TypeError(f"slice: start_indices {starts}, limit_indices {limits} and strides "
                        f"{steps} need one entry per dimension of {a.str_short()}")
    for s, l, st, n in zip(starts, limits, steps, a.shape):
        if not 0 <= s <= l <= n or st < 1:
            raise ValueError(f"slice: bounds start_indices {starts}, limit_indices {limits}, "
                             f"strides {steps} do not fit {a.str_short()}; each needs "
                             f"0 <= start <= limit <= size and stride >= 1 (lax.slice neither "
                             f"wraps negative indices nor clamps)")
    spec = tuple(("slice", s, l, st) for s, l, st in zip(starts, limits, steps))
    if all(s == 0 and l == n and st == 1 for s, l, st, n in zip(starts, limits, steps, a.shape)):
        return x
    return _getitem_p.bind(x, spec=spec)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """JAX's `lax.slice_in_dim`: `lax.slice` along `axis`; `start_index` / `limit_index` may
    be negative (counted from the end) or None (the ends).

    Example:
        >>> fg.lax.slice_in_dim(np.arange(6.).reshape(2, 3), -2, None, axis=1)
        array([[1., 2.],
               [4., 5.]])
    """
    x = _operand("slice_in_dim", operand)
    a = _aval_of(x)
    axis, = _axes("slice_in_dim", "axis", (axis,), a.ndim, negative=True)
    n = a.shape[axis]
    start = 0 if start_index is None else _operator.index(start_index)
    limit = n if limit_index is None else _operator.index(limit_index)
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts, limits, strides = [0] * a.ndim, list(a.shape), [1] * a.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, stride
    return slice(x, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """JAX's `lax.index_in_dim`: element `index` (static; negative counts from the end) along
    `axis`, keeping that axis (size 1) unless `keepdims=False`.

    Example:
        >>> fg.lax.index_in_dim(np.arange(6.).reshape(2, 3), -1, axis=1, keepdims=False)
        array([2., 5.])
    """
    x = _operand("index_in_dim", operand)
    a = _aval_of(x)
    axis, = _axes("index_in_dim", "axis", (axis,), a.ndim, negative=True)
    index = _operator.index(index)
    n = a.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"index_in_dim: index {index} is out of bounds for axis {axis} of "
                         f"{a.str_short()}; pass an index in [{-n}, {n})")
    index = index + n if index < 0 else index
    out = slice_in_dim(x, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def iota(dtype, size):
    """JAX's `lax.iota`: `[0, 1, ..., size - 1]` of `dtype`.

    Example:
        >>> fg.lax.iota(np.int32, 4)
        array([0, 1, 2, 3], dtype=int32)
    """
    size = _operator.index(size)
    if _np.dtype(dtype) == _np.bool_:
        raise TypeError("iota: dtype must be an integer, floating or complex dtype, got bool")
    if size < 0:
        raise ValueError(f"iota: size must be >= 0, got {size}")
    return _np.arange(size, dtype=_np.dtype(dtype))


def broadcasted_iota(dtype, shape, dimension):
    """JAX's `lax.broadcasted_iota`: an array of `shape` counting along `dimension`.

    Example:
        >>> fg.lax.broadcasted_iota(np.int32, (2, 3), 1)
        array([[0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    if _np.dtype(dtype) == _np.bool_:
        raise TypeError("broadcasted_iota: dtype must be an integer, floating or complex "
                        "dtype, got bool")
    shape = _ints("broadcasted_iota", "shape", shape)
    dimension, = _axes("broadcasted_iota", "dimension", (dimension,), len(shape), negative=True)
    one = [1] * len(shape)
    one[dimension] = shape[dimension]
    return _np.ascontiguousarray(_np.broadcast_to(
        _np.arange(shape[dimension], dtype=_np.dtype(dtype)).reshape(one), shape))


def convert_element_type(operand, new_dtype):
    """JAX's `lax.convert_element_type`: `operand` cast to `new_dtype`.

    Float to integer truncates toward zero and saturates as XLA does (out-of-range values
    become the integer type's min / max, NaN becomes 0); complex to real keeps the real part.

    Example:
        >>> fg.lax.convert_element_type(np.array([1e10, -3.7, np.nan]), np.int8)
        array([127,  -3,   0], dtype=int8)
    """
    x = _operand("convert_element_type", operand)
    new_dtype = _np.dtype(new_dtype)
    src = _aval_of(x).dtype
    if src == new_dtype:
        return x
    if new_dtype.kind in "iu" and src.kind not in "biu":
        if src.kind == "c":
            x = _E.real(x)
        info = _np.iinfo(new_dtype)
        lo, hi = float(info.min), float(info.max)  # (hi rounds up to 2**k for wide types)
        inside = _E.logical_and(_E.gt(x, lo), _E.lt(x, hi))
        cast = _E.convert_element_type(_E.select(inside, x, 0.0), new_dtype)
        return _E.select(_E.ge(x, hi), int(info.max),
                         _E.select(_E.le(x, lo), int(info.min), cast))
    return _E.convert_element_type(x, new_dtype)


def _identity(dtype, for_max):
    if dtype == _np.bool_:
        return not for_max
    if dtype.kind in "iu":
        info = _np.iinfo(dtype)
        return info.min if for_max else info.max
    return -_np.inf if for_max else _np.inf


def _reducer(name, internal, doc_example):
    def fn(operand, axes):
        x = _operand(name, operand)
        a = _aval_of(x)
        axes = _axes(name, "axes", axes, a.ndim)
        if a.dtype == _np.bool_ and name in ("reduce_sum", "reduce_prod"):
            raise TypeError(f"{name}: the operand is bool[...]; {name} takes numbers (cast with "
                            f"fg.lax.convert_element_type, or use reduce_or / reduce_and)")
        if name in ("reduce_max", "reduce_min") and any(a.shape[k] == 0 for k in axes):
            # an empty reduction is the identity (XLA's init value): -inf / +inf, int min / max
            return _np.full(tuple(n for k, n in enumerate(a.shape) if k not in axes),
                            _identity(a.dtype, name == "reduce_max"), a.dtype)
        if not axes:
            return x
        return internal(x, axes)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"JAX's `lax.{name}`: the {name[7:]} of `operand` over `axes` (non-negative, "
                  f"distinct); the result keeps the operand's dtype.\n\n    Example:\n"
                  f"        >>> fg.lax.{name}(np.array([[1., 2.], [3., 4.]]), (0,))\n"
                  f"        {doc_example}\n    ")
    return fn


reduce_sum = _reducer("reduce_sum", _R.reduce_sum, "array([4., 6.])")
reduce_prod = _reducer("reduce_prod", _R.reduce_prod, "array([3., 8.])")
reduce_max = _reducer("reduce_max", _R.reduce_max, "array([3., 4.])")
reduce_min = _reducer("reduce_min", _R.reduce_min, "array([1., 2.])")


def _arg(name, prim):
    def fn(operand, axis, index_dtype):
        x = _operand(name, operand)
        a = _aval_of(x)
        axis, = _axes(name, "axis", (axis,), a.ndim)
        index_dtype = _np.dtype(index_dtype)
        if index_dtype.kind not in "iu":
            raise TypeError(f"{name}: index_dtype must be an integer dtype, got {index_dtype}")
        if a.shape[axis] == 0:
            raise ValueError(f"{name}: axis {axis} of {a.str_short()} is empty; it has no "
                             f"{name[3:]}imum")
        return prim.bind(x, axis=axis, index_dtype=index_dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"JAX's `lax.{name}`: the index of the {name[3:]}imum along `axis` (the first "
                  f"one on ties; NaN counts as the {name[3:]}imum), as `index_dtype`.\n\n"
                  f"    Example:\n        >>> fg.lax.{name}(np.array([1., 3., 0.]), 0, np.int32)"
                  f"\n        array({1 if name == 'argmax' else 2}, dtype=int32)\n    ")
    return fn


argmax = _arg("argmax", _R.argmax_p)
argmin = _arg("argmin", _R.argmin_p)


def _cumulative(name, build):
    def fn(operand, axis=0, reverse=False):
        x = _operand(name, operand)
        a = _aval_of(x)
        axis, = _axes(name, "axis", (axis,), a.ndim, negative=True)
        if a.dtype == _np.bool_:
            raise TypeError(f"{name}: the operand is {a.str_short()}; cast it to a number "
                            f"dtype with fg.lax.convert_element_type first")
        if a.shape[axis] <= 1:
            return x
        return build(x, axis, bool(reverse))
    fn.__name__ = fn.__qualname__ = name
    return fn


def _scan_with(combine):
    def build(x, axis, reverse):
        from .associative import associative_scan
        return associative_scan(combine, x, reverse=reverse, axis=axis)
    return build


cumsum = _cumulative("cumsum", _R.cumsum)
cumprod = _cumulative("cumprod", _R.cumprod)
cummax = _cumulative("cummax", _scan_with(_E.maximum))
cummin = _cumulative("cummin", _scan_with(_E.minimum))
for _f, _ex in ((cumsum, "array([1., 3., 6.])"), (cumprod, "array([1., 2., 6.])"),
                (cummax, "array([1., 2., 3.])"), (cummin, "array([1., 1., 1.])")):
    _f.__doc__ = (f"JAX's `lax.{_f.__name__}`: the running {_f.__name__[3:]} along `axis` "
                  f"(from the end if `reverse`).\n\n    Example:\n"
                  f"        >>> fg.lax.{_f.__name__}(np.array([1., 2., 3.]))\n"
                  f"        {_ex}\n    ")


def _same_dtype(name, x, others):
    """Each of `others` (Python scalars pass: they are weak) has `x`'s dtype."""
    dt = _aval_of(x).dtype
    for arg, v in others:
        if type(v) in _PY_SCALARS:
            continue
        if _aval_of(v).dtype != dt:
            raise TypeError(f"{name}: {arg} is {_aval_of(v).str_short()} but the operand is "
                            f"{_aval_of(x).str_short()}; lax does not promote: cast with "
                            f"fg.lax.convert_element_type or pass a Python scalar")


def clamp(min, x, max):
    """JAX's `lax.clamp`: `x` limited to `[min, max]` (note the argument order); `min` and
    `max` are scalars or have `x`'s shape, and every argument has `x`'s dtype.

    The derivative follows JAX: `x`'s where `min < x < max`, `min`'s where `min > x` (and
    `min < max`), `max`'s where `max < x`.

    Example:
        >>> fg.lax.clamp(0., np.array([-1., 0.5, 2.]), 1.)
        array([0. , 0.5, 1. ])
    """
    x = _operand("clamp", x)
    lo = min if type(min) in _PY_SCALARS else _operand("clamp", min)
    hi = max if type(max) in _PY_SCALARS else _operand("clamp", max)
    _same_dtype("clamp", x, [("min", lo), ("max", hi)])
    shape = tuple(_aval_of(x).shape)
    for arg, v in (("min", lo), ("max", hi)):
        if type(v) not in _PY_SCALARS and _aval_of(v).shape not in ((), shape):
            raise TypeError(f"clamp: {arg} has shape {_aval_of(v).shape}; it must be a scalar "
                            f"or have x's shape {shape}")
    dtype = _aval_of(x).dtype
    lo, hi = [_full(v, dtype, shape) for v in (lo, hi)]
    value = stop_gradient(_E.minimum(_E.maximum(x, lo), hi))  # (NaN anywhere: NaN)
    inside = _E.logical_and(_E.gt(x, lo), _E.lt(x, hi))
    lo_wins = _E.logical_and(_E.gt(lo, x), _E.lt(lo, hi))
    hi_wins = _E.logical_and(_E.lt(hi, x), _E.eq(value, hi))
    return _E.select(inside, x, _E.select(lo_wins, lo, _E.select(hi_wins, hi, value)))


def _full(v, dtype, shape):
    """`v` (a weak Python scalar, a scalar or an array of `shape`) as an array of `shape`."""
    if type(v) in _PY_SCALARS:
        try:
            v = _np.asarray(v, dtype)
        except (OverflowError, TypeError, ValueError):
            raise TypeError(f"clamp: the bound {v!r} does not fit x's dtype {dtype}; pass a "
                            f"bound of dtype {dtype}") from None
    if _aval_of(v).shape != shape:
        v = _S.broadcast_in_dim(v, shape, ())
    return v


def integer_pow(x, y):
    """JAX's `lax.integer_pow`: `x ** y` for a static Python int `y`, by repeated squaring
    (exact for integers; a negative `y` takes the reciprocal, for inexact `x` only).

    Example:
        >>> fg.lax.integer_pow(np.array([2., -3.]), 3)
        array([  8., -27.])
    """
    x = _operand("integer_pow", x)
    try:
        y = int(y) if isinstance(y, float) and y.is_integer() else _operator.index(y)
    except TypeError:
        raise TypeError(f"integer_pow: the exponent y must be a Python int known at trace "
                        f"time, got {y!r}; for an array exponent use fg.numpy.power") from None
    a = _aval_of(x)
    if a.dtype == _np.bool_ or y < 0 and a.dtype.kind in "iu":
        raise TypeError(f"integer_pow: x is {a.str_short()}; "
                        + ("bool has no powers" if a.dtype == _np.bool_ else
                           f"a negative exponent {y} needs an inexact x (cast it first)"))
    if y == 0:  # (on x's device: CuPy for a CuPy x, also looking through tracers)
        return _array_module(x).ones(a.shape, a.dtype)
    n, acc, base = _builtins.abs(y), None, x
    while True:  # (XLA's order: the low bits' powers multiply first)
        if n & 1:
            acc = base if acc is None else _E.mul(acc, base)
        n >>= 1
        if not n:
            break
        base = _E.mul(base, base)
    return _E.div(1, acc) if y < 0 else acc


def rsqrt(x):
    """JAX's `lax.rsqrt`: `1 / sqrt(x)`, for inexact `x`.

    Example:
        >>> fg.lax.rsqrt(np.array([4., 0.25]))
        array([0.5, 2. ])
    """
    x = _operand("rsqrt", x)
    a = _aval_of(x)
    if a.dtype.kind in "biu":
        raise TypeError(f"rsqrt: x is {a.str_short()}; rsqrt takes floating or complex values "
                        f"(cast with fg.lax.convert_element_type)")
    if a.dtype.kind in "fV" and a.dtype.itemsize < 4:  # (float16 / bfloat16: one rounding,
        wide = _E.convert_element_type(x, _np.float32)  # as XLA, not two)
        return _E.convert_element_type(_E.div(1, _E.sqrt(wide)), a.dtype)
    return _E.div(1, _E.sqrt(x))


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """JAX's `lax.dot_general`: contract `lhs` and `rhs` over the dimensions
    `((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`; the result's axes are the batch
    axes, then lhs's free axes, then rhs's. Operands of one dtype (lax does not promote);
    `preferred_element_type` computes and returns in that dtype (int8 operands accumulating
    in int32, float16 in float32). `precision` is accepted and ignored (NumPy computes at
    full precision).

    Example:
        >>> fg.lax.dot_general(np.ones((2, 3)), np.ones((3, 4)), (((1,), (0,)), ((), ()))).shape
        (2, 4)
    """
    x, y = _operand("dot_general", lhs), _operand("dot_general", rhs)
    a, b = _aval_of(x), _aval_of(y)
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"dot_general: dimension_numbers must be ((lhs_contracting, "
                        f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}") from None
    lc, lb = (_axes("dot_general", arg, v, a.ndim) for arg, v in
              (("lhs contracting dimensions", lc), ("lhs batch dimensions", lb)))
    rc, rb = (_axes("dot_general", arg, v, b.ndim) for arg, v in
              (("rhs contracting dimensions", rc), ("rhs batch dimensions", rb)))
    if len(lc) != len(rc) or len(lb) != len(rb) or set(lc) & set(lb) or set(rc) & set(rb):
        raise TypeError(f"dot_general: dimension_numbers {dimension_numbers!r} must pair as many "
                        f"lhs as rhs dimensions, and no dimension may be both contracting and "
                        f"batch")
    for kind, ls, rs in (("contracting", lc, rc), ("batch", lb, rb)):
        for i, j in zip(ls, rs):
            if a.shape[i] != b.shape[j]:
                raise TypeError(f"dot_general: {kind} dimension {i} of lhs {a.str_short()} and "
                                f"{j} of rhs {b.str_short()} differ in size")
    if preferred_element_type is not None:
        out = _np.dtype(preferred_element_type)
    else:  # (JAX's dot_general promotes mixed operands, unlike the elementwise functions)
        from ..core.dtypes import result_type
        out = a.dtype if a.dtype == b.dtype else _np.dtype(result_type(a.dtype, b.dtype))
    x = x if a.dtype == out else _E.convert_element_type(x, out)
    y = y if b.dtype == out else _E.convert_element_type(y, out)
    from .dot import dot_general as _dot_general
    return _dot_general(x, y, ((lc, rc), (lb, rb)))


def top_k(operand, k, *, axis=-1):
    """JAX's `lax.top_k`: the `k` largest entries along `axis` (last by default), largest
    first, and their indices (int32); among equal values the lower index comes first.

    Example:
        >>> values, indices = fg.lax.top_k(np.array([1., 4., 2., 4.]), 2)
        >>> values, indices
        (array([4., 4.]), array([1, 3], dtype=int32))
    """
    from .reduce import argsort_p
    x = _operand("top_k", operand)
    a = _aval_of(x)
    if a.ndim == 0:
        raise TypeError("top_k: the operand must have at least one dimension, got a scalar")
    axis, = _axes("top_k", "axis", (axis,), a.ndim, negative=True)
    k = _operator.index(k)
    if not 0 <= k <= a.shape[axis]:
        raise ValueError(f"top_k: k = {k} must be in [0, {a.shape[axis]}] for axis {axis} of "
                         f"{a.str_short()}")
    if a.dtype.kind == "c":
        raise TypeError(f"top_k: the operand is {a.str_short()}; complex values have no order")
    last = a.ndim - 1
    if axis != last:
        perm = tuple(i for i in range(a.ndim) if i != axis) + (axis,)
        values, indices = top_k(_S.transpose(x, perm), k)
        back = tuple(range(axis)) + (last,) + tuple(range(axis, last))
        return _S.transpose(values, back), _S.transpose(indices, back)
    grids = [_np.arange(n).reshape((-1,) + (1,) * (last - i)) for i, n in
             enumerate(a.shape[:last])]
    spec = tuple(("array", i) for i in range(a.ndim))

    def take(v, idx):  # v[..., idx] along the last axis
        return _getitem_p.bind(v, *grids, idx, spec=spec)

    def then_by(order, key):  # stable sort of `order` by key (ascending): radix-style passes
        key = stop_gradient(key)
        if order is not None:
            key = take(key, order)
        o = argsort_p.bind(key, axis=last, kind="stable", index_dtype=_np.dtype(_np.int32))
        return o if order is None else take(order, o)

    # descending and stable, in XLA's total order: sort order-reversing keys ascending, the
    # least significant first (floats: +0.0 above -0.0, then the value, then NaN above all)
    if a.dtype == _np.bool_:
        order = then_by(None, _E.logical_not(x))
    elif a.dtype.kind in "iu":
        order = then_by(None, _E.invert(x))  # (~x reverses the order, without overflow)
    else:
        nan = _E.isnan(x)
        order = then_by(None, _E.signbit(x))
        order = then_by(order, _E.select(nan, 0.0, _E.neg(x)))
        order = then_by(order, _E.logical_not(nan))
    indices = slice_in_dim(order, 0, k, 1, last)
    return take(x, indices), indices


def _binary_operands(name, x, y):
    """x and y as operands of one dtype and shape (a Python scalar is weak: it takes the
    other's dtype)."""
    if type(x) in _PY_SCALARS and type(y) in _PY_SCALARS:
        x = _np.asarray(x)
    if type(x) in _PY_SCALARS:
        x, y = _full_like_weak(name, x, _operand(name, y)), _operand(name, y)
    elif type(y) in _PY_SCALARS:
        x = _operand(name, x)
        y = _full_like_weak(name, y, x)
    else:
        x, y = _operand(name, x), _operand(name, y)
    a, b = _aval_of(x), _aval_of(y)
    if a.dtype != b.dtype or a.shape != b.shape:
        raise TypeError(f"{name}: x is {a.str_short()} and y {b.str_short()}; lax.{name} needs "
                        f"one dtype and one shape (it neither promotes nor broadcasts): cast "
                        f"with fg.lax.convert_element_type, broadcast with "
                        f"fg.lax.broadcast_in_dim, or use fungrad.numpy")
    return x, y


def _full_like_weak(name, v, like):
    dtype, shape = _aval_of(like).dtype, tuple(_aval_of(like).shape)
    kind = _np.dtype(type(v)).kind
    if dtype.kind not in {"b": "biufcV", "i": "iufcV", "f": "fcV", "c": "c"}[kind]:
        raise TypeError(f"{name}: the Python {type(v).__name__} {v!r} cannot take the other "
                        f"operand's dtype {dtype} without changing its value; pass an array "
                        f"of dtype {dtype}")
    try:
        c = _np.asarray(v, dtype)
    except OverflowError:
        raise TypeError(f"{name}: {v!r} is out of range for the other operand's dtype "
                        f"{dtype}") from None
    return _np.broadcast_to(c, shape) if shape else c


def _trunc_div(x, y, dtype):
    """Integer division rounding toward zero, as XLA: x / 0 is -1 (all bits set), and
    INT_MIN / -1 wraps to INT_MIN."""
    zero = _E.eq(y, 0)
    bad = zero
    if dtype.kind == "i":
        bad = _E.logical_or(zero, _E.logical_and(_E.eq(x, int(_np.iinfo(dtype).min)),
                                                 _E.eq(y, -1)))
    safe = _E.select(bad, 1, y)
    q = _E.floor_divide(x, safe)
    if dtype.kind == "i":  # floor -> toward zero where the signs differ and it is inexact
        r = _E.sub(x, _E.mul(q, safe))
        up = _E.logical_and(_E.ne(r, 0), _E.ne(_E.lt(x, 0), _E.lt(safe, 0)))
        q = _E.add(q, _E.convert_element_type(up, dtype))
        q = _E.select(bad, _E.neg(x), q)  # (INT_MIN / -1: -INT_MIN wraps to INT_MIN)
    return _E.select(zero, -1 if dtype.kind == "i" else int(_np.iinfo(dtype).max), q)


def div(x, y):
    """JAX's `lax.div`: `x / y` for one dtype; integers round toward zero (C's division, not
    NumPy's floor: `div(-7, 2) == -3`), `x / 0` is -1 (all bits set) and INT_MIN / -1 wraps.

    Example:
        >>> fg.lax.div(np.array([7, -7]), np.array([2, 2]))
        array([ 3, -3])
    """
    x, y = _binary_operands("div", x, y)
    dtype = _aval_of(x).dtype
    if dtype == _np.bool_:
        raise TypeError("div: the operands are bool; cast them to a number dtype")
    if dtype.kind in "iu":
        return _trunc_div(x, y, dtype)
    return _E.div(x, y)


def rem(x, y):
    """JAX's `lax.rem`: the remainder of `div`, with the sign of `x` (C's fmod, not NumPy's
    `%`: `rem(-7, 2) == -1`); for integers `x % 0` is `x`.

    Example:
        >>> fg.lax.rem(np.array([7., -7., 5.5]), np.array([2., 2., -2.]))
        array([ 1. , -1. ,  1.5])
    """
    x, y = _binary_operands("rem", x, y)
    dtype = _aval_of(x).dtype
    if dtype == _np.bool_ or dtype.kind == "c":
        raise TypeError(f"rem: the operands are {dtype}; rem takes integer or floating values")
    if dtype.kind in "iu":
        return _E.sub(x, _E.mul(_trunc_div(x, y, dtype), y))
    return _E.fmod(x, y)


# ----------------------------------------------------------------------------- elementwise
# jax.lax's elementwise functions, one table: name -> (what it computes over primitives, the
# dtype kinds it takes, a doc line, a doc example's argument(s) and result). Kinds: b bool,
# i / u signed / unsigned integers, f floats (V: bfloat16), c complex.

_KIND_WORDS = {"iufVc": "numeric", "ifVc": "signed numeric", "fVc": "floating or complex",
               "fV": "floating", "biufV": "real (non-complex)", "biufVc": "any",
               "iu": "integer", "biu": "bool or integer", "c": "complex",
               "32c": "float32, float64 or complex", "f32": "float32 or float64"}


def _kind_ok(dtype, kinds):
    if kinds == "32c":
        return dtype.kind == "c" or dtype in (_np.float32, _np.float64)
    if kinds == "f32":
        return dtype in (_np.float32, _np.float64)
    return dtype.kind in kinds


def _check_kind(name, x, kinds, arg="x"):
    a = _aval_of(x)
    if not _kind_ok(a.dtype, kinds):
        raise TypeError(f"{name}: {arg} is {a.str_short()}, but lax.{name} takes "
                        f"{_KIND_WORDS[kinds]} values; cast with fg.lax.convert_element_type "
                        f"(lax does not promote)")


def _zeros_like(x, value=0):
    a = _aval_of(x)
    return _np.full(a.shape, value, a.dtype)


def _logistic(x):
    if _aval_of(x).dtype.kind == "c":
        return _E.div(1, _E.add(1, _E.exp(_E.neg(x))))
    pos = _E.ge(x, 0)
    z = _E.exp(_E.select(pos, _E.neg(x), x))  # (exp of a non-positive value: no overflow)
    one_plus = _E.add(z, 1)
    return _E.select(pos, _E.div(1, one_plus), _E.div(z, one_plus))


def _digamma(x):
    from .special import digamma as _digamma_p
    # XLA: NaN at every pole (SciPy gives -inf at 0)
    return _E.select(_E.eq(x, 0), _np.full(_aval_of(x).shape, _np.nan, _aval_of(x).dtype),
                     _digamma_p(x))


def _special(fname):
    def f(x):
        from . import special
        return getattr(special, fname)(x)
    return f


def _conj(x):
    dt = _aval_of(x).dtype
    if dt.kind != "c":
        from .elementwise import complex_dtype
        x = _E.convert_element_type(x, complex_dtype(dt))
    return _E.conj(x)


def _unsigned(dtype):
    return _np.dtype(f"uint{dtype.itemsize * 8}")


def _signed(dtype):
    return _np.dtype(f"int{dtype.itemsize * 8}")


def _convert(x, dtype):
    return x if _aval_of(x).dtype == dtype else _E.convert_element_type(x, dtype)


def _population_count(x):
    dt = _aval_of(x).dtype
    bits = dt.itemsize * 8
    ones = (1 << bits) - 1
    m1, m2, m4 = (ones // 3, ones // 5, ones // 17)  # 0x55.., 0x33.., 0x0f..
    rs, band = _E.right_shift, _E.bitwise_and
    # SWAR, with masks that clear what an arithmetic shift drags in
    x = _E.sub(x, band(rs(x, 1), m1))
    x = _E.add(band(x, m2), band(rs(x, 2), m2))
    x = band(_E.add(x, rs(x, 4)), m4)
    s = 8
    while s < bits:
        x = _E.add(x, rs(x, s))
        s *= 2
    return band(x, 0x7f)


def _clz(x):
    bits = _aval_of(x).dtype.itemsize * 8
    s = 1
    while s < bits:  # smear the highest set bit down (a negative value: all ones, clz 0)
        x = _E.bitwise_or(x, _E.right_shift(x, s))
        s *= 2
    return _E.sub(bits, _population_count(x))


def _shift(kind):
    def f(x, y):
        dt = _aval_of(x).dtype
        bits = dt.itemsize * 8
        # XLA reads the shift amount as unsigned: a negative or >= bits amount is out of range
        out = _E.ge(_convert(y, _unsigned(dt)), bits)
        y = _E.select(out, _zeros_like(y, bits - 1 if kind == "arithmetic" else 0), y)
        if kind == "left":
            r = _E.left_shift(x, y)
        else:
            work = _unsigned(dt) if kind == "logical" else _signed(dt)
            r = _convert(_E.right_shift(_convert(x, work), _convert(y, work)), dt)
            if kind == "arithmetic":
                return r
        return _E.select(out, _zeros_like(x), r)
    return f


def _pow(x, y):
    return _E.pow(x, y)


_UNARY = {  # name: (function of the checked operand, kinds, takes `accuracy`, what, example)
    "neg": (_E.neg, "iufVc", False, "`-x` (integers wrap)", "np.array([1., -2.])",
            "array([-1.,  2.])"),
    "abs": (_E.abs, "ifVc", False, "`|x|` (complex: the real modulus)",
            "np.array([-1.5, 2.])", "array([1.5, 2. ])"),
    "sign": (_E.sign, "iufVc", False, "-1, 0 or 1 by the sign of `x` (complex: `x / |x|`)",
             "np.array([-3., 0., 2.])", "array([-1.,  0.,  1.])"),
    "exp": (_E.exp, "fVc", True, "`e ** x`", "np.array([0., 1.])", "array([1.        , 2.71828183])"),
    "exp2": (_E.exp2, "fVc", True, "`2 ** x`", "np.array([0., 3.])", "array([1., 8.])"),
    "log": (_E.log, "fVc", True, "the natural logarithm", "np.array([1., np.e])",
            "array([0., 1.])"),
    "log1p": (_E.log1p, "fVc", True, "`log(1 + x)`, accurate near 0", "np.array([0., 1e-20])",
              "array([0.e+00, 1.e-20])"),
    "expm1": (_E.expm1, "fVc", True, "`exp(x) - 1`, accurate near 0", "np.array([0., 1e-20])",
              "array([0.e+00, 1.e-20])"),
    "sin": (_E.sin, "fVc", True, "the sine", "np.array([0., np.pi / 2])", "array([0., 1.])"),
    "cos": (_E.cos, "fVc", True, "the cosine", "np.array([0., np.pi])", "array([ 1., -1.])"),
    "tan": (_E.tan, "fVc", True, "the tangent", "np.array([0., np.pi / 4])",
            "array([0., 1.])"),
    "asin": (_E.arcsin, "fVc", False, "the inverse sine", "np.array([0., 1.])",
             "array([0.        , 1.57079633])"),
    "acos": (_E.arccos, "fVc", False, "the inverse cosine", "np.array([1., 0.])",
             "array([0.        , 1.57079633])"),
    "atan": (_E.arctan, "fVc", False, "the inverse tangent", "np.array([0., 1.])",
             "array([0.        , 0.78539816])"),
    "sinh": (_E.sinh, "fVc", False, "the hyperbolic sine", "np.array([0., 1.])",
             "array([0.        , 1.17520119])"),
    "cosh": (_E.cosh, "fVc", False, "the hyperbolic cosine", "np.array([0., 1.])",
             "array([1.        , 1.54308063])"),
    "tanh": (_E.tanh, "fVc", True, "the hyperbolic tangent", "np.array([0., 1.])",
             "array([0.        , 0.76159416])"),
    "asinh": (_E.arcsinh, "fVc", False, "the inverse hyperbolic sine", "np.array([0., 1.])",
              "array([0.        , 0.88137359])"),
    "acosh": (_E.arccosh, "fVc", False, "the inverse hyperbolic cosine", "np.array([1., 2.])",
              "array([0.        , 1.3169579])"),
    "atanh": (_E.arctanh, "fVc", False, "the inverse hyperbolic tangent",
              "np.array([0., 0.5])", "array([0.        , 0.54930614])"),
    "sqrt": (_E.sqrt, "fVc", True, "the square root", "np.array([4., 2.])",
             "array([2.        , 1.41421356])"),
    "cbrt": (_E.cbrt, "fV", True, "the real cube root", "np.array([-8., 27.])",
             "array([-2.,  3.])"),
    "square": (_E.square, "iufVc", False, "`x * x` (integers wrap)", "np.array([3, -4])",
               "array([ 9, 16])"),
    "reciprocal": (_E.reciprocal, "fVc", False, "`1 / x`", "np.array([2., -0.5])",
                   "array([ 0.5, -2. ])"),
    "floor": (_E.floor, "fV", False, "the largest integer <= `x`", "np.array([-1.5, 1.5])",
              "array([-2.,  1.])"),
    "ceil": (_E.ceil, "fV", False, "the smallest integer >= `x`", "np.array([-1.5, 1.5])",
             "array([-1.,  2.])"),
    "is_finite": (_E.isfinite, "fV", False, "whether `x` is neither infinite nor NaN (bool)",
                  "np.array([1., np.inf, np.nan])", "array([ True, False, False])"),
    "logistic": (_logistic, "fVc", True, "the sigmoid `1 / (1 + exp(-x))`, without overflow",
                 "np.array([0., -800.])", "array([0.5, 0. ])"),
    "erf": (_E.erf, "fV", False, "the error function", "np.array([0., 1.])",
            "array([0.        , 0.84270079])"),
    "erfc": (_special("erfc"), "fV", False, "`1 - erf(x)`", "np.array([0., 1.])",
             "array([1.        , 0.15729921])"),
    "erf_inv": (_special("erfinv"), "fV", False, "the inverse of erf (+-inf at +-1)",
                "np.array([0., 0.5])", "array([0.        , 0.47693628])"),
    "lgamma": (_special("gammaln"), "fV", False, "`log |Gamma(x)|`", "np.array([1., 0.5])",
               "array([0.        , 0.57236494])"),
    "digamma": (_digamma, "fV", False, "the digamma function (NaN at 0 and the negative "
                "integers, as XLA)", "np.array([1., 0.])", "array([-0.57721566,         nan])"),
    "real": (_E.real, "c", False, "the real part (of a complex `x`)", "np.array([1. + 2.j])",
             "array([1.])"),
    "imag": (_E.imag, "c", False, "the imaginary part (of a complex `x`)",
             "np.array([1. + 2.j])", "array([2.])"),
    "conj": (_conj, "32c", False, "the complex conjugate (a float32 / float64 `x` becomes "
             "complex)", "np.array([1. + 2.j])", "array([1.-2.j])"),
    "bitwise_not": (_E.invert, "biu", False, "`~x` (bool: logical not)",
                    "np.array([0, 5], np.int8)", "array([-1, -6], dtype=int8)"),
    "population_count": (_population_count, "iu", False, "the number of set bits, in "
                         "`x`'s dtype", "np.array([-1, 5], np.int8)",
                         "array([8, 2], dtype=int8)"),
    "clz": (_clz, "iu", False, "the number of leading zero bits, in `x`'s dtype",
            "np.array([1, 0, -1], np.int8)", "array([7, 8, 0], dtype=int8)"),
}

_BINARY = {  # name: (function of the checked operands, kinds, what, example args, result)
    "add": (_E.add, "iufVc", "`x + y` (integers wrap)", "np.array([1., 2.]), 3.",
            "array([4., 5.])"),
    "sub": (_E.sub, "iufVc", "`x - y` (integers wrap)", "np.array([1., 2.]), 3.",
            "array([-2., -1.])"),
    "mul": (_E.mul, "iufVc", "`x * y` (integers wrap; `out_dtype` converts both operands "
            "first)", "np.array([1., 2.]), 3.", "array([3., 6.])"),
    "max": (_E.maximum, "biufVc", "the elementwise maximum (NaN propagates; complex: by real "
            "part, then imaginary; at ties each operand gets half the derivative)",
            "np.array([1., 5.]), np.array([3., 2.])", "array([3., 5.])"),
    "min": (_E.minimum, "biufVc", "the elementwise minimum (NaN propagates; complex: by real "
            "part, then imaginary; at ties each operand gets half the derivative)",
            "np.array([1., 5.]), np.array([3., 2.])", "array([1., 2.])"),
    "pow": (_pow, "fVc", "`x ** y`; `y` has `x`'s dtype or is an integer array",
            "np.array([2., 4.]), 0.5", "array([1.41421356, 2.        ])"),
    "atan2": (_E.arctan2, "fV", "the angle of the point `(y, x)`: `atan(x / y)` in the "
              "right quadrant (note: the first argument is the ordinate)",
              "np.array([1., -1.]), np.array([1., 1.])",
              "array([ 0.78539816, -0.78539816])"),
    "nextafter": (_E.nextafter, "fV", "the next representable value after `x1` toward `x2`",
                  "np.float32(1.), np.float32(2.)", "array(1.0000001, dtype=float32)"),
    "complex": (_E.make_complex, "f32", "`x + i y` from float32 / float64 parts",
                "np.array([1.]), np.array([2.])", "array([1.+2.j])"),
    "eq": (_E.eq, "biufVc", "`x == y` (bool)", "np.array([1., 2.]), 2.",
           "array([False,  True])"),
    "ne": (_E.ne, "biufVc", "`x != y` (bool)", "np.array([1., 2.]), 2.",
           "array([ True, False])"),
    "lt": (_E.lt, "biufV", "`x < y` (bool)", "np.array([1., 2.]), 2.",
           "array([ True, False])"),
    "le": (_E.le, "biufV", "`x <= y` (bool)", "np.array([1., 2.]), 2.",
           "array([ True,  True])"),
    "gt": (_E.gt, "biufV", "`x > y` (bool)", "np.array([1., 2.]), 2.",
           "array([False, False])"),
    "ge": (_E.ge, "biufV", "`x >= y` (bool)", "np.array([1., 2.]), 2.",
           "array([False,  True])"),
    "bitwise_and": (_E.bitwise_and, "biu", "`x & y` (bool: logical and)",
                    "np.array([6, 3]), np.array([3, 5])", "array([2, 1])"),
    "bitwise_or": (_E.bitwise_or, "biu", "`x | y` (bool: logical or)",
                   "np.array([6, 3]), np.array([3, 5])", "array([7, 7])"),
    "bitwise_xor": (_E.bitwise_xor, "biu", "`x ^ y` (bool: logical xor)",
                    "np.array([6, 3]), np.array([3, 5])", "array([5, 6])"),
    "shift_left": (_shift("left"), "iu", "`x << y`; a shift amount `y` out of [0, bits) "
                   "gives 0, as XLA", "np.array([1, 1], np.int8), np.array([3, 8], np.int8)",
                   "array([8, 0], dtype=int8)"),
    "shift_right_logical": (_shift("logical"), "iu", "`x >> y` filling with zeros (the bits "
                            "of a signed `x` read as unsigned); an amount out of [0, bits) "
                            "gives 0", "np.array([-128, 64], np.int8), np.array([7, 9], "
                            "np.int8)", "array([1, 0], dtype=int8)"),
    "shift_right_arithmetic": (_shift("arithmetic"), "iu", "`x >> y` filling with the sign "
                               "bit (the top bit, also for unsigned `x`); an amount out of "
                               "[0, bits) shifts every bit out",
                               "np.array([-128, -1], np.int8), np.array([2, 9], np.int8)",
                               "array([-32,  -1], dtype=int8)"),
}


def _make_unary(name, impl, kinds, accuracy, what, arg, result):
    def fn(x, **kwargs):
        extra = set(kwargs) - ({"accuracy"} if accuracy else set())
        if extra:
            raise TypeError(f"{name}() got an unexpected keyword argument {sorted(extra)[0]!r}")
        x = _operand(name, x)
        _check_kind(name, x, kinds)
        return impl(x)
    if accuracy:  # (accepted and ignored: NumPy computes at full precision)
        def with_accuracy(x, *, accuracy=None):
            return fn(x)
        out = with_accuracy
    else:
        def plain(x):
            return fn(x)
        out = plain
    out.__name__ = out.__qualname__ = name
    out.__doc__ = (f"JAX's `lax.{name}`: {what}, for {_KIND_WORDS[kinds]} `x`"
                   + (" (`accuracy` is accepted and ignored)" if accuracy else "")
                   + f".\n\n    Example:\n        >>> fg.lax.{name}({arg})\n        {result}\n"
                   f"    ")
    return out


def _make_binary(name, impl, kinds, what, args, result):
    def fn(x, y):
        x, y = _binary_operands(name, x, y)
        _check_kind(name, x, kinds)
        return impl(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"JAX's `lax.{name}`: {what}, for {_KIND_WORDS[kinds]} operands of one "
                  f"dtype and shape (a Python scalar takes the other's dtype).\n\n    Example:"
                  f"\n        >>> fg.lax.{name}({args})\n        {result}\n    ")
    return fn


for _name, _row in _UNARY.items():
    globals()[_name] = _make_unary(_name, *_row)
for _name, _row in _BINARY.items():
    globals()[_name] = _make_binary(_name, *_row)

_mul = globals()["mul"]
_pow_checked = globals()["pow"]


def mul(x, y, *, out_dtype=None):
    if out_dtype is not None:
        out_dtype = _np.dtype(out_dtype)
        x = convert_element_type(x, out_dtype) if type(x) not in _PY_SCALARS else x
        y = convert_element_type(y, out_dtype) if type(y) not in _PY_SCALARS else y
    return _mul(x, y)


mul.__doc__ = _mul.__doc__


def pow(x, y):
    if type(y) not in _PY_SCALARS and type(x) not in _PY_SCALARS:
        xa, ya = _aval_of(_operand("pow", x)), _aval_of(_operand("pow", y))
        if ya.dtype.kind in "iu" and xa.dtype.kind in "fVc":
            if xa.shape != ya.shape:
                raise TypeError(f"pow: x is {xa.str_short()} and y {ya.str_short()}; lax.pow "
                                f"needs one shape (it does not broadcast)")
            y = _E.convert_element_type(_operand("pow", y), xa.dtype)
    return _pow_checked(x, y)


pow.__doc__ = _pow_checked.__doc__


class RoundingMethod(_enum.IntEnum):
    """JAX's `lax.RoundingMethod`: how `lax.round` rounds halfway cases.

    Example:
        >>> int(fg.lax.RoundingMethod.TO_NEAREST_EVEN)
        1
    """
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """JAX's `lax.round`: `x` rounded to an integer value, halfway cases away from zero
    (`rounding_method=RoundingMethod.AWAY_FROM_ZERO`, the default; not NumPy's rule) or to
    the even neighbour (`TO_NEAREST_EVEN`), for floating `x`.

    Example:
        >>> fg.lax.round(np.array([0.5, 1.5, -2.5]))
        array([ 1.,  2., -3.])
        >>> fg.lax.round(np.array([0.5, 1.5, -2.5]), fg.lax.RoundingMethod.TO_NEAREST_EVEN)
        array([ 0.,  2., -2.])
    """
    try:
        method = RoundingMethod(rounding_method)
    except ValueError:
        raise ValueError(f"round: rounding_method {rounding_method!r} is not a "
                         f"fg.lax.RoundingMethod; pass RoundingMethod.AWAY_FROM_ZERO or "
                         f"RoundingMethod.TO_NEAREST_EVEN") from None
    x = _operand("round", x)
    _check_kind("round", x, "fV")
    if method == RoundingMethod.TO_NEAREST_EVEN:
        return _E.round(x)
    t = _E.trunc(x)
    finite = _E.select(_E.isfinite(x), x, _zeros_like(x))  # (inf - inf would warn)
    half = _E.ge(_E.abs(_E.sub(finite, _E.trunc(finite))), 0.5)  # (x - trunc(x) is exact)
    return _E.select(half, _E.select(_E.signbit(x), _E.sub(t, 1), _E.add(t, 1)), t)


# ----------------------------------------------------------------------------- the rest
def select(pred, on_true, on_false):
    """JAX's `lax.select`: `on_true` where `pred`, else `on_false`; the cases have one dtype
    and shape, `pred` (bool) is a scalar or has their shape.

    Example:
        >>> fg.lax.select(np.array([True, False]), np.array([1., 2.]), np.array([3., 4.]))
        array([1., 4.])
    """
    for arg, v, other in (("on_true", on_true, on_false), ("on_false", on_false, on_true)):
        if type(v) in _PY_SCALARS and type(other) not in _PY_SCALARS and \
                _aval_of(_operand("select", other)).shape != ():
            raise TypeError(f"select: {arg} is a Python scalar but the other case has shape "
                            f"{_aval_of(_operand('select', other)).shape}; select does not "
                            f"broadcast: pass an array of that shape")
    a, b = _binary_operands("select", on_true, on_false)
    p = _operand("select", pred)
    pa, shape = _aval_of(p), tuple(_aval_of(a).shape)
    if pa.dtype.kind not in "biu":
        raise TypeError(f"select: pred is {pa.str_short()}; it must be bool")
    if pa.dtype != _np.bool_:
        p = _E.ne(p, 0)
    if pa.shape not in ((), shape):
        raise TypeError(f"select: pred has shape {pa.shape}; it must be a scalar or have the "
                        f"cases' shape {shape}")
    if pa.shape != shape:
        p = _S.broadcast_in_dim(p, shape, ())
    return _E.select(p, a, b)


def _total_order_keys(k):
    """Sub-keys (most significant first) whose lexicographic order is XLA's sort order of
    `k`: -0.0 ties with 0.0, NaN after everything; complex by real part, then imaginary."""
    k = stop_gradient(k)
    dt = _aval_of(k).dtype
    if dt.kind not in "fVc":
        return [k]
    parts = [_E.real(k), _E.imag(k)] if dt.kind == "c" else [k]
    keys = []
    for v in parts:
        nan = _E.isnan(v)
        keys += [nan, _E.select(nan, _zeros_like(v), v)]
    return keys


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """JAX's `lax.sort`: `operand` (an array, or a sequence of arrays of one shape) sorted
    along `dimension`; with a sequence, the first `num_keys` arrays are the keys
    (lexicographically) and every array is permuted alike, returned as a tuple. Floats sort
    in XLA's order (-0.0 ties with 0.0, NaN last), complex by real part then imaginary. The
    sort is always stable (`is_stable` is accepted).

    Example:
        >>> fg.lax.sort(np.array([3., np.nan, 1.]))
        array([ 1.,  3., nan])
        >>> fg.lax.sort((np.array([2, 1, 2]), np.array([10., 20., 30.])), num_keys=1)
        (array([1, 2, 2]), array([20., 10., 30.]))
    """
    single = not isinstance(operand, (list, tuple))
    xs = [_operand("sort", operand)] if single else [_operand("sort", x) for x in operand]
    if not xs:
        raise TypeError("sort: operand must hold at least one array")
    num_keys = _operator.index(num_keys)
    if not 1 <= num_keys <= len(xs):
        raise ValueError(f"sort: num_keys={num_keys} must be between 1 and the number of "
                         f"operands, {len(xs)}")
    avals = [_aval_of(x) for x in xs]
    shape = tuple(avals[0].shape)
    for i, a in enumerate(avals):
        if tuple(a.shape) != shape:
            raise TypeError(f"sort: every operand must have the shape of operand 0 {shape}, "
                            f"but operand {i} is {a.str_short()}")
    if not shape:
        raise ValueError(f"sort: dimension {dimension} is out of range for a scalar operand; "
                         f"sort arrays of at least one dimension")
    nd = len(shape)
    dim, = _axes("sort", "dimension", (dimension,), nd, negative=True)
    last = nd - 1
    if dim != last:
        perm = tuple(i for i in range(nd) if i != dim) + (dim,)
        back = tuple(range(dim)) + (last,) + tuple(range(dim, last))
        out = sort([_S.transpose(x, perm) for x in xs], last, is_stable, num_keys)
        out = tuple(_S.transpose(v, back) for v in out)
        return out[0] if single else out
    if shape[last] <= 1:
        return xs[0] if single else tuple(xs)
    from .reduce import argsort_p
    grids = [_np.arange(n).reshape((-1,) + (1,) * (last - i)) for i, n in
             enumerate(shape[:last])]
    spec = tuple(("array", i) for i in range(nd))

    def take(v, idx):  # v[..., idx] along the last axis
        return _getitem_p.bind(v, *grids, idx, spec=spec)

    order = None
    for key in reversed(xs[:num_keys]):  # least significant first: stable passes
        for sub in reversed(_total_order_keys(key)):
            k = sub if order is None else take(sub, order)
            o = argsort_p.bind(k, axis=last, kind="stable", index_dtype=_np.dtype(_np.int32))
            order = o if order is None else take(order, o)
    out = tuple(take(x, order) for x in xs)
    return out[0] if single else out


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """JAX's `lax.sort_key_val`: `keys` sorted along `dimension`, and `values` permuted
    alike.

    Example:
        >>> fg.lax.sort_key_val(np.array([3., 1., 2.]), np.array([0, 1, 2]))
        (array([1., 2., 3.]), array([1, 2, 0]))
    """
    return sort((keys, values), dimension, is_stable, 1)


def _logical_reducer(name, combine, identity):
    def fn(operand, axes):
        x = _operand(name, operand)
        a = _aval_of(x)
        _check_kind(name, x, "biu", "operand")
        axes = _axes(name, "axes", axes, a.ndim)
        if not axes:
            return x
        keep = tuple(k for k in range(a.ndim) if k not in axes)
        kept = tuple(a.shape[k] for k in keep)
        n = int(_np.prod([a.shape[k] for k in axes], dtype=_np.int64))
        if n == 0:
            return _np.full(kept, identity(a.dtype), a.dtype)
        if keep + axes != tuple(range(a.ndim)):
            x = _S.transpose(x, keep + axes)
        if len(axes) != 1:
            x = _S.reshape(x, kept + (n,))
        last = len(kept)
        while n > 1:  # fold halves together: log2(n) bitwise ops
            h = n // 2
            r = combine(slice_in_dim(x, 0, h, 1, last), slice_in_dim(x, h, 2 * h, 1, last))
            if n % 2:
                r = _S.concatenate([r, slice_in_dim(x, 2 * h, n, 1, last)], last)
            x, n = r, n - h
        return _S.reshape(x, kept)
    fn.__name__ = fn.__qualname__ = name
    return fn


reduce_and = _logical_reducer("reduce_and", _E.bitwise_and,
                              lambda dt: True if dt == _np.bool_ else -1 if dt.kind == "i"
                              else _np.iinfo(dt).max)
reduce_or = _logical_reducer("reduce_or", _E.bitwise_or, lambda dt: 0)
reduce_xor = _logical_reducer("reduce_xor", _E.bitwise_xor, lambda dt: 0)
for _f, _ex in ((reduce_and, "array([False,  True])"), (reduce_or, "array([ True,  True])"),
                (reduce_xor, "array([ True, False])")):
    _f.__doc__ = (f"JAX's `lax.{_f.__name__}`: the bitwise {_f.__name__[7:]} of `operand` (bool "
                  f"or integer) over `axes`; over no elements it is the identity.\n\n"
                  f"    Example:\n        >>> fg.lax.{_f.__name__}(np.array([[True, False], "
                  f"[True, True]]), (1,))\n        {_ex}\n    ")


def cumlogsumexp(operand, axis=0, reverse=False):
    """JAX's `lax.cumlogsumexp`: the running `log(sum(exp(x)))` along `axis` (from the end
    if `reverse`), for floating `operand`.

    Example:
        >>> fg.lax.cumlogsumexp(np.array([0., 0., np.log(2.)]))
        array([0.        , 0.69314718, 1.38629436])
    """
    x = _operand("cumlogsumexp", operand)
    _check_kind("cumlogsumexp", x, "fV", "operand")
    return _cumulative("cumlogsumexp", _scan_with(_E.logaddexp))(x, axis, reverse)


def _fill_value(name, fill_value, dtype):
    v = fill_value if type(fill_value) in _PY_SCALARS else _operand(name, fill_value)
    if type(v) not in _PY_SCALARS and _aval_of(v).shape != ():
        raise TypeError(f"{name}: fill_value must be a scalar, got one of shape "
                        f"{_aval_of(v).shape}; use fg.lax.broadcast_in_dim for arrays")
    if type(v) in _PY_SCALARS:
        v = _np.asarray(v)
    if dtype is not None:
        v = convert_element_type(v, _np.dtype(dtype))
    return v


def _filled(v, shape):
    if isinstance(v, _Tracer):
        return _S.broadcast_in_dim(v, shape, ()) if shape else v
    xp = _array_module(v)  # (a CuPy fill value fills a CuPy array)
    return xp.full(shape, v, _aval_of(v).dtype)


def full(shape, fill_value, dtype=None, *, sharding=None):
    """JAX's `lax.full`: an array of `shape` holding the scalar `fill_value`, of `dtype`
    (by default the fill value's: int64 / float64 / complex128 for Python numbers).

    Example:
        >>> fg.lax.full((2, 2), 3, np.float32)
        array([[3., 3.],
               [3., 3.]], dtype=float32)
    """
    shape = _ints("full", "shape", (shape,) if isinstance(shape, int) else shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"full: shape {shape} has a negative size")
    return _filled(_fill_value("full", fill_value, dtype), shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """JAX's `lax.full_like`: an array like `x` (its shape and dtype, unless `shape` /
    `dtype` are given) holding the scalar `fill_value`.

    Example:
        >>> fg.lax.full_like(np.zeros(3, np.int8), 3.7)
        array([3, 3, 3], dtype=int8)
    """
    a = _aval_of(_operand("full_like", x))
    dtype = a.dtype if dtype is None else dtype
    shape = tuple(a.shape) if shape is None else shape
    return full(shape, fill_value, dtype)


def tile(operand, reps):
    """JAX's `lax.tile`: `operand` repeated `reps[i]` times along each axis `i` (one entry
    per dimension).

    Example:
        >>> fg.lax.tile(np.array([1., 2.]), (2,))
        array([1., 2., 1., 2.])
    """
    x = _operand("tile", operand)
    a = _aval_of(x)
    reps = _ints("tile", "reps", reps)
    if len(reps) != a.ndim:
        raise TypeError(f"tile: reps {reps} must have one entry per dimension of "
                        f"{a.str_short()}")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps {reps} must be >= 0")
    if all(r == 1 for r in reps):
        return x
    big = tuple(v for r, n in zip(reps, a.shape) for v in (r, n))
    x = _S.broadcast_in_dim(x, big, tuple(range(1, 2 * a.ndim, 2)))
    return _S.reshape(x, tuple(r * n for r, n in zip(reps, a.shape)))


def split(operand, sizes, axis=0):
    """JAX's `lax.split`: `operand` cut along `axis` into pieces of `sizes` (which add up to
    the axis's size), as a list.

    Example:
        >>> fg.lax.split(np.arange(5.), (2, 3))
        [array([0., 1.]), array([2., 3., 4.])]
    """
    x = _operand("split", operand)
    a = _aval_of(x)
    axis, = _axes("split", "axis", (axis,), a.ndim, negative=True)
    sizes = _ints("split", "sizes", sizes)
    if any(s < 0 for s in sizes) or sum(sizes) != a.shape[axis]:
        raise ValueError(f"split: sizes {sizes} must be >= 0 and add up to the size "
                         f"{a.shape[axis]} of axis {axis} of {a.str_short()}")
    out, start = [], 0
    for s in sizes:
        out.append(slice_in_dim(x, start, start + s, 1, axis))
        start += s
    return out


def collapse(operand, start_dimension, stop_dimension=None):
    """JAX's `lax.collapse`: the axes `start_dimension:stop_dimension` (negative ok; stop
    None: to the end) merged into one.

    Example:
        >>> fg.lax.collapse(np.zeros((2, 3, 4)), 1).shape
        (2, 12)
    """
    x = _operand("collapse", operand)
    a = _aval_of(x)
    nd = a.ndim
    lo = _operator.index(start_dimension)
    hi = nd if stop_dimension is None else _operator.index(stop_dimension)
    lo, hi = lo + nd if lo < 0 else lo, hi + nd if hi < 0 else hi
    if not 0 <= lo <= hi <= nd:
        raise ValueError(f"collapse: the dimension range [{start_dimension}, "
                         f"{stop_dimension}) does not fit {a.str_short()}; pass "
                         f"start <= stop within [-{nd}, {nd}]")
    shape = tuple(a.shape)
    new = shape[:lo] + (int(_np.prod(shape[lo:hi], dtype=_np.int64)),) + shape[hi:]
    return reshape(x, new)


_MANTISSA_BITS = {"float16": (5, 10), "bfloat16": (8, 7), "float32": (8, 23),
                  "float64": (11, 52)}


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """JAX's `lax.reduce_precision`: `operand` rounded (to nearest, ties to even) to a float
    format with `exponent_bits` and `mantissa_bits`, in its own dtype: values beyond that
    format's range become +-inf, values below its smallest subnormal +-0. The derivative is
    the identity's, as JAX's.

    Example:
        >>> fg.lax.reduce_precision(np.array([1.0 + 2 ** -20, 1e300, 3e-40]), 8, 7)
        array([ 1., inf,  0.])
    """
    x = _operand("reduce_precision", operand)
    _check_kind("reduce_precision", x, "fV", "operand")
    E, M = _operator.index(exponent_bits), _operator.index(mantissa_bits)
    if E < 1 or M < 0:
        raise ValueError(f"reduce_precision: exponent_bits ({E}) must be >= 1 and "
                         f"mantissa_bits ({M}) >= 0")
    dt = _aval_of(x).dtype
    own_e, own_m = _MANTISSA_BITS[dt.name]
    if E >= own_e and M >= own_m:
        return x
    own_emax = 2 ** (own_e - 1) - 1
    emax = _builtins.min(2 ** (E - 1) - 1, own_emax)
    emin = 1 - emax
    w = _convert(stop_gradient(x), _np.dtype(_np.float64))  # (exact for every float dtype)
    a = _E.abs(w)
    regular = _E.logical_and(_E.isfinite(a), _E.gt(a, 0))
    a = _E.select(regular, a, _zeros_like(a, 1.0))
    e = _E.floor(_E.log2(a))  # (corrected below where log2 rounded across a power of two)
    e = _E.sub(e, _E.convert_element_type(_E.lt(a, _E.exp2(e)), _np.float64))
    up = _E.logical_and(_E.le(e, 1022), _E.ge(a, _E.exp2(_E.minimum(_E.add(e, 1), 1023))))
    e = _E.add(e, _E.convert_element_type(up, _np.float64))
    # XLA rounds the mantissa's bits: the operand's own subnormals at their fixed step
    scale = _E.exp2(_E.sub(_E.maximum(e, float(1 - own_emax)), float(M)))
    r = _E.mul(_E.round(_E.div(w, scale)), scale)  # (exact: scale is a power of two)
    if emax < 1023:  # rounded beyond the largest finite value: inf
        inf = _E.select(_E.signbit(r), _zeros_like(r, -_np.inf), _zeros_like(r, _np.inf))
        r = _E.select(_E.ge(_E.abs(r), float(2.0 ** (emax + 1))), inf, r)
    if E < own_e:  # a narrower exponent has no subnormals: below its smallest normal, +-0
        r = _E.select(_E.lt(_E.abs(r), float(2.0 ** emin)), 
                      _E.select(_E.signbit(w), _zeros_like(w, -0.0), _zeros_like(w)), r)
    r = _convert(_E.select(regular, r, w), dt)
    # the identity's derivative, without touching r's value (nor the sign of a zero): r minus
    # a zero that carries x's tangent (where x is finite)
    xs = _E.select(_E.isfinite(x), x, _zeros_like(x))
    return _E.sub(r, _E.sub(stop_gradient(xs), xs))


def batch_matmul(lhs, rhs, precision=None):
    """JAX's `lax.batch_matmul`: matrix products over the last two axes, batched over the
    leading ones (equal in both; operands of equal ndim >= 2).

    Example:
        >>> fg.lax.batch_matmul(np.ones((2, 3, 4)), np.ones((2, 4, 5))).shape
        (2, 3, 5)
    """
    x, y = _operand("batch_matmul", lhs), _operand("batch_matmul", rhs)
    a, b = _aval_of(x), _aval_of(y)
    if a.ndim != b.ndim or a.ndim < 2:
        raise ValueError(f"batch_matmul: lhs {a.str_short()} and rhs {b.str_short()} must "
                         f"have the same ndim, at least 2")
    if tuple(a.shape[:-2]) != tuple(b.shape[:-2]):
        raise TypeError(f"batch_matmul: the batch dimensions of lhs {a.str_short()} and rhs "
                        f"{b.str_short()} differ")
    nd = a.ndim
    batch = tuple(range(nd - 2))
    return dot_general(x, y, (((nd - 1,), (nd - 2,)), (batch, batch)), precision)


ARRAY_FUNCTIONS = ["stop_gradient", "broadcast_in_dim", "broadcast", "reshape", "transpose",
                  "concatenate", "squeeze", "expand_dims", "rev", "slice", "slice_in_dim",
                  "index_in_dim", "iota", "broadcasted_iota", "convert_element_type",
                  "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "argmax", "argmin",
                  "cumsum", "cumprod", "cummax", "cummin", "clamp", "integer_pow", "rsqrt",
                  "dot_general", "top_k", "div", "rem"]
ARRAY_FUNCTIONS += list(_UNARY) + list(_BINARY) + [
    "round", "select", "sort", "sort_key_val", "reduce_and", "reduce_or", "reduce_xor",
    "cumlogsumexp", "full", "full_like", "tile", "split", "collapse", "batch_matmul",
    "reduce_precision"]



def _arrays_out(fn):
    """`fn` returning 0-d arrays where NumPy would give scalars (np.float64(1.0)), as jax.lax
    returns arrays."""
    import functools

    def fix(v):
        return _np.asarray(v) if isinstance(v, _np.generic) else v

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return tuple(map(fix, out)) if type(out) is tuple else fix(out)
    return wrapper


for _name in ARRAY_FUNCTIONS[1:]:  # (not stop_gradient: it maps over a pytree)
    globals()[_name] = _arrays_out(globals()[_name])
del _name
