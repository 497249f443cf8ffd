"""Shape functions: reshape, transpose, moveaxis, swapaxes, expand_dims, squeeze,
broadcast_to, concatenate, stack, split, flip, ravel."""
from __future__ import annotations

import operator

import numpy as np

from ..backend import asarray as _asarray, call_on_one_device
from ..lax import shape as S
from ..lax.indexing import getitem_p
from ._base import (broadcast_shapes, broadcast_to_shape, cast, is_traced, lift,
                    normalize_axis, result_type, shape_of, strict_axis)


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _resolve_shape(fname, shape, size, old_shape):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(operator.index(d) for d in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"{fname}: can only specify one unknown dimension (-1), got {shape}")
    if -1 in shape:
        known = _size([d for d in shape if d != -1])
        if known == 0 or size % known:
            raise ValueError(f"{fname}: cannot reshape array of shape {old_shape} (size {size}) "
                             f"into shape {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    if _size(shape) != size:
        raise ValueError(f"{fname}: cannot reshape array of shape {old_shape} (size {size}) "
                         f"into shape {shape}")
    return shape


def _traced_order(fname, order):
    """The element order 'C' or 'F' of a traced reshape / ravel. A traced value has no memory
    layout, so 'A' and 'K' (the order of the input's memory) have no meaning there: they
    raise rather than silently read the array in C order where NumPy would not."""
    if order is None or order == "C":
        return "C"
    if order == "F":
        return "F"
    if order in ("A", "K"):
        raise NotImplementedError(f"{fname}: order={order!r} follows the memory layout of the "
                                  "input, which a traced value does not have; pass order='C' "
                                  "or order='F'")
    raise ValueError(f"{fname}: order must be one of 'C', 'F', 'A' or 'K', got {order!r}")


def reshape(a, shape=None, order="C", *, copy=None):
    """`numpy.reshape` in C or Fortran (`order='F'`) order; one dimension may be -1.
    `copy` applies to concrete arrays (a traced value is immutable).

    Example:
        >>> fnp.reshape(np.arange(6.0), (2, -1))
        array([[0., 1., 2.],
               [3., 4., 5.]])
        >>> fnp.reshape(np.arange(6.0), (2, 3), order="F")
        array([[0., 2., 4.],
               [1., 3., 5.]])
    """
    a = lift(a)
    if shape is None:
        raise TypeError("reshape: the new shape is required, e.g. fnp.reshape(a, (2, 3))")
    if not is_traced(a):
        return np.reshape(a, shape, order=order) if copy is None else np.reshape(
            a, shape, order=order, copy=copy)
    if order == "K":  # (NumPy's own error: there is no memory order to reshape in)
        raise ValueError("reshape: order 'K' is not permitted for reshaping")
    old = a.aval.shape
    new = _resolve_shape("reshape", shape, a.aval.size, old)
    if _traced_order("reshape", order) == "F":
        # Fortran order reads and writes with the first index fastest: C order on the
        # reversed axes
        flat = a if len(old) < 2 else S.transpose(a, tuple(range(len(old) - 1, -1, -1)))
        out = flat if new[::-1] == shape_of(flat) else S.reshape(flat, new[::-1])
        return out if len(new) < 2 else S.transpose(out, tuple(range(len(new) - 1, -1, -1)))
    return a if new == old else S.reshape(a, new)


def ravel(a, order="C"):
    """`numpy.ravel`: the flattened array (C or Fortran order).

    Example:
        >>> fnp.ravel(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([1., 2., 3., 4.])
        >>> fnp.ravel(np.array([[1.0, 2.0], [3.0, 4.0]]), order="F")
        array([1., 3., 2., 4.])
    """
    a = lift(a)
    if not is_traced(a):
        return np.ravel(a, order=order)
    return reshape(a, (-1,), order=_traced_order("ravel", order))


def transpose(a, axes=None):
    """`numpy.transpose`; reverses the axes by default.

    Example:
        >>> fnp.transpose(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        array([[1., 4.],
               [2., 5.],
               [3., 6.]])
        >>> fnp.transpose(np.zeros((2, 3, 4)), (1, 0, 2)).shape
        (3, 2, 4)
    """
    a = lift(a)
    if not is_traced(a):
        return np.transpose(a, axes)
    nd = a.ndim
    if axes is None:
        axes = tuple(range(nd - 1, -1, -1))
    axes = tuple(operator.index(i) % nd if nd else operator.index(i) for i in axes)
    if sorted(axes) != list(range(nd)):
        raise ValueError(f"transpose: axes {axes} are not a permutation of the {nd} axes of an "
                         f"array of shape {a.shape}")
    return a if axes == tuple(range(nd)) else S.transpose(a, axes)


def moveaxis(a, source, destination):
    """`numpy.moveaxis`.

    Example:
        >>> fnp.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    a = lift(a)
    if not is_traced(a):
        return np.moveaxis(a, source, destination)
    nd = a.ndim
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of "
                         f"elements, got {src} and {dst}")
    src = [strict_axis("moveaxis", s, nd) for s in src]
    dst = [strict_axis("moveaxis", d, nd) for d in dst]
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(a, order)


def swapaxes(a, axis1, axis2):
    """`numpy.swapaxes`.

    Example:
        >>> fnp.swapaxes(np.array([[1.0, 2.0, 3.0]]), 0, 1)
        array([[1.],
               [2.],
               [3.]])
    """
    a = lift(a)
    if not is_traced(a):
        return np.swapaxes(a, axis1, axis2)
    nd = a.ndim
    i, = normalize_axis("swapaxes", axis1, nd)
    j, = normalize_axis("swapaxes", axis2, nd)
    perm = list(range(nd))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(a, perm)


def expand_dims(a, axis):
    """`numpy.expand_dims` (int or tuple axis).

    Example:
        >>> fnp.expand_dims(np.array([1.0, 2.0]), 0)
        array([[1., 2.]])
        >>> fnp.expand_dims(np.array([1.0, 2.0]), (0, 2)).shape
        (1, 2, 1)
    """
    a = lift(a)
    if not is_traced(a):
        return np.expand_dims(a, axis)
    # (as NumPy: a tuple or list of axes, else one axis; a set or an array is no axis)
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)
    nd = a.ndim + len(axes)
    axes = normalize_axis("expand_dims", axes, nd)
    it = iter(a.shape)
    return S.reshape(a, tuple(1 if i in axes else next(it) for i in range(nd)))


def squeeze(a, axis=None):
    """`numpy.squeeze`: drop size-1 axes (all, or those in `axis`).

    Example:
        >>> fnp.squeeze(np.array([[[1.0], [2.0]]]))
        array([1., 2.])
        >>> fnp.squeeze(np.zeros((1, 3, 1)), axis=0).shape
        (3, 1)
    """
    a = lift(a)
    if not is_traced(a):
        return np.squeeze(a, axis)
    shape = a.shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    elif not isinstance(axis, (int, np.integer, tuple)):  # (NumPy's: a list is no axis)
        raise TypeError(f"squeeze: axis must be an int or a tuple of ints, got "
                        f"{type(axis).__name__} {axis!r}")
    else:
        axes = normalize_axis("squeeze", axis, len(shape))
        bad = [i for i in axes if shape[i] != 1]
        if bad:
            raise ValueError(f"squeeze: cannot select axis {bad[0]} of shape {shape}: its size "
                             "is not 1")
    if not axes:
        return a
    return S.reshape(a, tuple(d for i, d in enumerate(shape) if i not in axes))


def broadcast_to(array, shape):
    """`numpy.broadcast_to`; the gradient sums over the broadcast axes.

    Example:
        >>> fnp.broadcast_to(np.array([1.0, 2.0]), (2, 2))
        array([[1., 2.],
               [1., 2.]])
        >>> fg.grad(lambda b: fnp.sum(fnp.broadcast_to(b, (3, 2))))(np.array([1.0, 2.0]))
        array([3., 3.])
    """
    array = lift(array)
    if not is_traced(array):
        return np.broadcast_to(array, shape)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    got = broadcast_shapes("broadcast_to", ("array", array.shape), ("shape", shape))
    if got != shape:
        raise ValueError(f"broadcast_to: cannot broadcast an array of shape {array.shape} to "
                         f"shape {shape}")
    return broadcast_to_shape(array, shape)


def _reject_out(fname, out):
    if out is not None:
        raise TypeError(f"{fname}: out= is not supported on traced values (arrays are "
                        f"immutable); write `y = fnp.{fname}(...)` instead")


def cast_for_join(fname, arrays, dtype, casting):
    """`arrays` cast to `dtype` (None: unchanged) under NumPy's `casting` rule: joining float
    arrays as integers raises under the default "same_kind", as NumPy's does."""
    if dtype is None:
        return arrays
    dtype = np.dtype(dtype)
    for a in arrays:
        if not np.can_cast(np.dtype(result_type(a)), dtype, casting):
            raise TypeError(f"{fname}: Cannot cast array data from {np.dtype(result_type(a))!r} "
                            f"to {dtype!r} according to the rule {casting!r}")
    return [cast(np.asarray(a) if isinstance(a, (int, float, bool, complex)) else a, dtype)
            for a in arrays]


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """`numpy.concatenate` along `axis` (None flattens first); `dtype` / `casting` as NumPy's.

    Example:
        >>> fnp.concatenate([np.array([1.0, 2.0]), np.array([3.0])])
        array([1., 2., 3.])
        >>> fnp.concatenate([np.ones((2, 1)), np.zeros((2, 2))], axis=1)
        array([[1., 0., 0.],
               [1., 0., 0.]])
    """
    arrays = [lift(a) for a in arrays]
    if not arrays:
        raise ValueError("concatenate: need at least one array to concatenate")
    if not is_traced(*arrays):
        # (the keywords passed only when given: CuPy's concatenate has no casting=)
        kw = {k: v for k, v in (("out", out), ("dtype", dtype)) if v is not None}
        if casting != "same_kind":
            kw["casting"] = casting
        return call_on_one_device(np.concatenate, arrays, axis=axis, **kw)
    _reject_out("concatenate", out)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    arrays = cast_for_join("concatenate", arrays, dtype, casting)
    dt = result_type(*arrays)
    arrays = [cast(np.asarray(a) if isinstance(a, (int, float, bool, complex)) else a, dt)
              for a in arrays]
    nd = len(shape_of(arrays[0]))
    if nd == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    for i, a in enumerate(arrays):
        s = shape_of(a)
        if len(s) != nd:
            raise ValueError(f"concatenate: all inputs must have the same number of dimensions, "
                             f"but array 0 has shape {shape_of(arrays[0])} and array {i} has "
                             f"shape {s}")
    ax, = normalize_axis("concatenate", axis, nd)
    first = shape_of(arrays[0])
    for i, a in enumerate(arrays[1:], 1):
        s = shape_of(a)
        if any(d != e for k, (d, e) in enumerate(zip(s, first)) if k != ax):
            raise ValueError(f"concatenate: all input shapes must match except along axis {ax}, "
                             f"but array 0 has shape {first} and array {i} has shape {s}")
    if len(arrays) == 1:
        return arrays[0]
    return S.concatenate(arrays, ax)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """`numpy.stack`: join along a new axis; `dtype` / `casting` as NumPy's.

    Example:
        >>> fnp.stack([np.array([1.0, 2.0]), np.array([3.0, 4.0])], axis=1)
        array([[1., 3.],
               [2., 4.]])
    """
    if not hasattr(arrays, "__getitem__"):  # (NumPy's check: a set has no order)
        raise TypeError(f"stack: arrays must be passed as a sequence (a list or tuple), got "
                        f"a {type(arrays).__name__}")
    arrays = [lift(a) for a in arrays]
    if not arrays:
        raise ValueError("stack: need at least one array to stack")
    if not is_traced(*arrays):
        kw = {k: v for k, v in (("out", out), ("dtype", dtype)) if v is not None}
        if casting != "same_kind":
            kw["casting"] = casting
        return np.stack(arrays, axis=axis, **kw)
    _reject_out("stack", out)
    shapes = {shape_of(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"stack: all input arrays must have the same shape, got "
                         f"{[shape_of(a) for a in arrays]}")
    nd = len(shapes.pop()) + 1
    ax = strict_axis("stack", axis, nd)
    arrays = cast_for_join("stack", arrays, dtype, casting)
    return concatenate([expand_dims(_asarray(a) if not is_traced(a) else a, ax)
                        for a in arrays], axis=ax)


def split(ary, indices_or_sections, axis=0):
    """`numpy.split`: a list of sub-arrays (equal sections, or split points).

    Example:
        >>> fnp.split(np.arange(6.0), 3)
        [array([0., 1.]), array([2., 3.]), array([4., 5.])]
        >>> fnp.split(np.arange(6.0), [1, 4])
        [array([0.]), array([1., 2., 3.]), array([4., 5.])]
    """
    ary = lift(ary)
    if not is_traced(ary):
        return np.split(ary, indices_or_sections, axis)
    shape = ary.shape
    ax = strict_axis("split", axis, len(shape))
    n = shape[ax]
    if np.ndim(indices_or_sections) == 0:  # a count (NumPy's: anything without a len())
        sections = indices_or_sections
        if sections == 0 or n % sections:
            raise ValueError(f"split: array split does not result in an equal division: axis "
                             f"{ax} of shape {shape} has size {n}, sections={sections}")
        k = int(sections)  # (as NumPy's array_split: 2.0 sections are 2)
        if k <= 0:
            raise ValueError(f"split: the number of sections must be larger than 0, got {k}")
        points = [n // k * i for i in range(1, k)]
    else:
        points = [operator.index(p) for p in indices_or_sections]
    bounds = [0] + points + [n]
    head = (("slice", None, None, None),) * ax
    return [getitem_p.bind(ary, spec=head + (("slice", lo, hi, None),))
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def flip(m, axis=None):
    """`numpy.flip`: reverse the order along `axis` (all axes by default).

    Example:
        >>> fnp.flip(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)
        array([[3., 4.],
               [1., 2.]])
        >>> fnp.flip(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[4., 3.],
               [2., 1.]])
    """
    m = lift(m)
    if not is_traced(m):
        return np.flip(m, axis)
    nd = m.ndim
    if not nd and axis is not None and not (type(axis) is tuple and not axis):
        # (normalize_axis lets reductions read 0-d as 1-d; an empty tuple flips nothing)
        raise np.exceptions.AxisError(f"flip: axis {axis} is out of bounds for array of "
                                      "dimension 0")
    axes = normalize_axis("flip", axis, nd)
    if not axes:
        return m
    spec = tuple(("slice", None, None, -1 if i in axes else None) for i in range(nd))
    return getitem_p.bind(m, spec=spec)


def atleast_1d(*arys):
    """`numpy.atleast_1d`: each argument with at least 1 dim (a tuple for several).

    Example:
        >>> fnp.atleast_1d(2.0)
        array([2.])
        >>> fnp.atleast_1d(1.0, np.array([2.0, 3.0]))
        (array([1.]), array([2., 3.]))
    """
    out = tuple(_atleast_1d(lift(x)) for x in arys)
    return out[0] if len(out) == 1 else out


def _atleast_1d(x):
    return reshape(x, (1,)) if is_traced(x) and x.ndim == 0 else (
        x if is_traced(x) else np.atleast_1d(x))


def shape(a) -> tuple:
    """`numpy.shape`, also of traced values and of lists holding them.

    Example:
        >>> fnp.shape(np.zeros((2, 3)))
        (2, 3)
        >>> fnp.shape([[1.0, 2.0, 3.0]])
        (1, 3)
    """
    a = lift(a)
    return shape_of(a) if is_traced(a) else np.shape(a)


def ndim(a) -> int:
    """`numpy.ndim`, also of traced values.

    Example:
        >>> fnp.ndim(np.zeros((2, 3)))
        2
        >>> fnp.ndim(5.0)
        0
    """
    return len(shape(a))


def size(a, axis: int | tuple[int, ...] | None = None) -> int:
    """`numpy.size`, also of traced values.

    Example:
        >>> fnp.size(np.zeros((2, 3)))
        6
        >>> fnp.size(np.zeros((2, 3)), axis=0)
        2
    """
    s = shape(a)
    if axis is not None:  # (an int or, as NumPy 2.x, a tuple of axes)
        return _size(tuple(s[i] for i in normalize_axis("size", axis, len(s))))
    return _size(s)
