"""jax.lax's array functions (`fg.lax.reshape`, `reduce_sum`, `top_k`, `clamp`, `div`, ...):
thin, checked front ends over the primitives with JAX's `lax` semantics: no promotion and
no broadcasting (operands must agree in dtype and shape; a Python scalar is weak and takes
the other operand's dtype), static shape arguments checked here, eagerly and under every
transform alike, with messages naming the argument and the fix. Results are arrays (never
NumPy scalars), as jax.lax returns.
"""
from __future__ import annotations

import operator as _operator

import numpy as _np

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
    if not 0 <= dimension < max(nd, 1) or nd == 0:
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
                 for k in range(max(dims) + 1))
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
    if y == 0:
        return _np.ones(a.shape, a.dtype)
    n, acc, base = abs(y), None, x
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


ARRAY_FUNCTIONS = ["stop_gradient", "broadcast_in_dim", "broadcast", "reshape", "transpose",
                  "concatenate", "squeeze", "expand_dims", "rev", "slice", "slice_in_dim",
                  "index_in_dim", "iota", "broadcasted_iota", "convert_element_type",
                  "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "argmax", "argmin",
                  "cumsum", "cumprod", "cummax", "cummin", "clamp", "integer_pow", "rsqrt",
                  "dot_general", "top_k", "div", "rem"]



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
