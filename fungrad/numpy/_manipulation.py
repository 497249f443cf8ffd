"""Array manipulation: tiling, rolling, rotating, triangles and diagonals, joining and
splitting, padding, selection, functional in-place updates (put, place, fill_diagonal...).

Everything is composed of existing primitives (getitem slices, concatenate, broadcast_in_dim,
reshape, select, the `pad` primitive, scatter_add for functional puts), so derivatives of every
order, vmap and jit come from their rules. Index arguments (shifts, positions, masks) are
concrete NumPy values where the output shape depends on them; integer index inputs are never
differentiated. On plain arrays every function is NumPy's own.
"""
from __future__ import annotations

import functools
import operator
import warnings
import numpy as np

from ..backend import array_module, asarray as _asarray, call_on_one_device, is_cupy, one_device
from ..core.trace import Tracer
from ..errors import ConcretizationError
from ..lax import shape as S
from ..lax.indexing import getitem_p
from ..lax.scatter import scatter_p
from ..lax.slicing import dynamic_slice_in_dim, select_n
from ._base import (broadcast_shapes as _broadcast_shapes, broadcast_to_shape, cast, dtype_of,
                    has_tracer, is_traced, is_weak, lift, normalize_axis, result_type, shape_of,
                    strict_axis)
from ._elementwise import (add, less, multiply, negative, remainder, subtract,
                           where, clip)
from ._indexing import getitem, take
from ._reductions import cumsum
from ._shape import (concatenate, expand_dims, flip, moveaxis, ravel, reshape, split,
                     transpose, atleast_1d, broadcast_to)

_FULL = ("slice", None, None, None)


# =========================================================================== helpers
def _traced(*xs) -> bool:
    return any(has_tracer(x) for x in xs)


def _arr(x):
    """A traced value as is, anything else as an array (a CuPy array stays one)."""
    x = lift(x)
    return x if isinstance(x, Tracer) else _asarray(x)


def _ndim(x) -> int:
    return len(shape_of(x))


def _slice_axis(x, axis, start=None, stop=None, step=None):
    """x[..., start:stop:step, ...] along `axis` (a getitem: its transpose is a scatter)."""
    return getitem_p.bind(x, spec=(_FULL,) * axis + (("slice", start, stop, step),))


def _runs(idx):
    """`idx` (a list of ints) as maximal runs `(start, length, step)` with step -1, 0 or 1."""
    runs, i, n = [], 0, len(idx)
    while i < n:
        j, d = i + 1, 1
        if j < n and idx[j] - idx[i] in (-1, 0, 1):
            d = idx[j] - idx[i]
            while j < n and idx[j] - idx[j - 1] == d:
                j += 1
        runs.append((idx[i], j - i, d))
        i = j
    return runs


_MAX_RUNS = 8  # beyond this many pieces one gather is cheaper than slices + concatenate


def _gather_axis(x, idx, axis):
    """`take(x, idx, axis)` for a concrete index vector; as a few slices (reversed ones and
    broadcast repeats included) joined by one concatenate when `idx` is made of runs, so the
    gradient is slices instead of `np.add.at`."""
    idx = [int(i) for i in np.asarray(idx).ravel()]
    shape = shape_of(x)
    if idx == list(range(shape[axis])):
        return x
    if not idx:
        return _slice_axis(x, axis, 0, 0)
    runs = _runs(idx)
    if len(runs) > _MAX_RUNS:
        return take(x, np.asarray(idx, np.intp), axis)
    pieces = []
    for start, length, step in runs:
        if step == 0 or length == 1:
            piece = _slice_axis(x, axis, start, start + 1)
            if length > 1:
                target = shape[:axis] + (length,) + shape[axis + 1:]
                piece = S.broadcast_in_dim(piece, target, tuple(range(len(shape))))
        elif step == 1:
            piece = _slice_axis(x, axis, start, start + length)
        else:
            stop = start - length
            piece = _slice_axis(x, axis, start, None if stop < 0 else stop, -1)
        pieces.append(piece)
    return pieces[0] if len(pieces) == 1 else S.concatenate(pieces, axis)


def _scalar(value, dtype):
    """A 0-d padding value of `dtype`: traced values cast, others converted as NumPy's pad
    assigns them (`padded[...] = value`): 1.7 into an int array is 1, but NaN, infinity or an
    integer out of the dtype's range raise, as they do there."""
    if isinstance(value, Tracer):
        value = reshape(value, ()) if value.aval.shape != () else value
        return cast(value, dtype)
    out = np.empty((), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        out[...] = value
    return out


def _assigned(values, dtype):
    """Concrete `values` as the array NumPy's put / place / putmask / fill_diagonal write into
    an array of `dtype`: Python numbers and lists of them are converted with range checks
    (300 into int8, NaN into an int array and a complex into a real array raise), NumPy arrays
    and scalars cast unsafely (np.int64(300) into int8 wraps), as NumPy's own conversion."""
    if isinstance(values, (np.ndarray, np.generic)) or array_module(values) is not np:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            return values.astype(dtype)
    return np.array(values, dtype=dtype)


def _pad_axis_const(x, axis, before, after, value):
    nd = _ndim(x)
    config = tuple((before, after, 0) if d == axis else (0, 0, 0) for d in range(nd))
    return S.pad_p.bind(x, _scalar(value, dtype_of(x)), padding_config=config)


def _in_place_error(fname, fix):
    return TypeError(f"fnp.{fname} writes into its argument in place, which fungrad arrays do "
                     f"not support (they are values under every transform); use {fix}, which "
                     "returns a new array")


def _flat_set(a_flat, idx, vals):
    """`a_flat` with `vals[j]` at position `idx[j]` (a new array); repeated positions keep
    the last write, as NumPy's (concrete or traced `idx`: the `scatter` primitive)."""
    vals = cast(vals, dtype_of(a_flat))
    return scatter_p.bind(a_flat, vals, idx, spec=(("array", 0),), unique=False)


def _check_inplace(fname, inplace, fix):
    if inplace:
        raise _in_place_error(fname, fix)


def _eager_update(np_fn, a, *args, **kwargs):
    """A copy of the concrete `a` updated in place by NumPy's `np_fn(copy, *args)` (put,
    place, ...): CuPy's own for a CuPy `a`, with the other arguments moved to its device."""
    xp = array_module(a)
    if xp is np:
        out = np.array(a, copy=True)
    else:
        out, np_fn = a.copy(), getattr(xp, np_fn.__name__)
        args = [x if is_weak(x) else xp.asarray(x) for x in args]
    np_fn(out, *args, **kwargs)
    return out


# =========================================================================== tiling, rolling
def tile(A, reps):
    """`numpy.tile`: `A` repeated `reps` times along each axis (a broadcast and a reshape;
    the gradient sums the copies).

    Example:
        >>> fnp.tile(np.array([1.0, 2.0]), 2)
        array([1., 2., 1., 2.])
        >>> fnp.tile(np.array([1.0, 2.0]), (2, 1))
        array([[1., 2.],
               [1., 2.]])
        >>> fg.grad(lambda a: fnp.sum(fnp.tile(a, 3)))(np.array([1.0, 2.0]))
        array([3., 3.])
    """
    A = _arr(A)
    if not is_traced(A):
        return np.tile(A, reps)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(map(operator.index, reps))
    shape = shape_of(A)
    d = max(len(reps), len(shape))
    shape = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    if all(r == 1 for r in reps):
        return reshape(A, shape)
    x = reshape(A, shape)
    wide = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    x = S.broadcast_in_dim(x, wide, tuple(range(1, 2 * d, 2)))
    return S.reshape(x, tuple(r * n for r, n in zip(reps, shape)))


def roll(a, shift, axis=None):
    """`numpy.roll`: elements shifted along `axis` (flattened when None), wrapping around.

    A concrete shift is two slices and a concatenate; a traced (integer) shift is a dynamic
    slice of the axis repeated twice.

    Example:
        >>> fnp.roll(np.array([1.0, 2.0, 3.0, 4.0]), 1)
        array([4., 1., 2., 3.])
        >>> fnp.roll(np.array([[1.0, 2.0], [3.0, 4.0]]), -1, axis=1)
        array([[2., 1.],
               [4., 3.]])
    """
    a = _arr(a)
    if not _traced(a, shift):
        return np.roll(a, shift, axis)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), shape_of(a))
    nd = _ndim(a)
    if isinstance(shift, Tracer):
        if shift.ndim != 0 or not isinstance(axis, (int, np.integer)):
            raise TypeError("roll: a traced shift must be a scalar with an int axis; roll one "
                            "axis at a time: fnp.roll(fnp.roll(x, s0, 0), s1, 1)")
        ax = strict_axis("roll", axis, nd)
        return _roll_traced(_arr(a), shift, ax)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    total = [0] * nd
    for s, ax in zip(shifts.ravel(), axes.ravel()):
        # (NumPy's int(): a float shift is truncated, an axis must be an integer)
        total[strict_axis("roll", operator.index(ax), nd)] += int(s)
    x = a
    for ax, s in enumerate(total):
        n = shape_of(x)[ax]
        k = s % n if n else 0
        if k:
            x = S.concatenate([_slice_axis(x, ax, n - k, n), _slice_axis(x, ax, 0, n - k)], ax)
    return x


def _roll_traced(a, shift, ax):
    n = shape_of(a)[ax]
    if n == 0:
        return a
    start = remainder(negative(shift), n)
    return dynamic_slice_in_dim(S.concatenate([a, a], ax), start, n, ax)


def _axis_permutation(fn, nd, *args):
    """The permutation NumPy's `fn` (rollaxis, ...) applies to an `nd`-dim array, read off a
    zero-memory array whose dims are all different (NumPy's own checks raise its errors)."""
    probe = np.broadcast_to(np.empty((), np.int8), tuple(range(2, nd + 2)))
    return [d - 2 for d in fn(probe, *args).shape]


def rollaxis(a, axis, start=0):
    """`numpy.rollaxis`: move `axis` until it lies before position `start`.

    Example:
        >>> fnp.rollaxis(np.zeros((2, 3, 4)), 2).shape
        (4, 2, 3)
        >>> fnp.rollaxis(np.zeros((2, 3, 4)), 0, 2).shape
        (3, 2, 4)
    """
    a = _arr(a)
    if not is_traced(a):
        return np.rollaxis(a, axis, start)
    return transpose(a, _axis_permutation(np.rollaxis, a.ndim, axis, start))


def rot90(m, k=1, axes=(0, 1)):
    """`numpy.rot90`: rotate by 90 degrees `k` times in the plane of `axes` (flips and a
    transpose).

    Example:
        >>> fnp.rot90(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[2., 4.],
               [1., 3.]])
    """
    m = _arr(m)
    if not is_traced(m):
        return np.rot90(m, k, axes)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: len(axes) must be 2, got axes={axes}")
    nd = m.ndim
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == nd:
        raise ValueError(f"rot90: the two axes must be different, got axes={axes}")
    if not all(-nd <= ax < nd for ax in axes):  # (NumPy's error, a 0-d array included)
        raise ValueError(f"rot90: Axes={axes} out of range for array of ndim={nd}")
    i, j = strict_axis("rot90", axes[0], nd), strict_axis("rot90", axes[1], nd)
    k = k % 4  # (NumPy's reading of a float k: 1.5 is none of 0, 1, 2, so it turns as 3)
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, i), j)
    perm = list(range(nd))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(flip(m, j), perm) if k == 1 else flip(transpose(m, perm), j)


def flipud(m):
    """`numpy.flipud`: reverse axis 0.

    Example:
        >>> fnp.flipud(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[3., 4.],
               [1., 2.]])
    """
    m = _arr(m)
    if not is_traced(m):
        return np.flipud(m)
    if m.ndim < 1:
        raise ValueError("flipud: the input must be at least 1-d, got a 0-d array")
    return flip(m, 0)


def fliplr(m):
    """`numpy.fliplr`: reverse axis 1.

    Example:
        >>> fnp.fliplr(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[2., 1.],
               [4., 3.]])
    """
    m = _arr(m)
    if not is_traced(m):
        return np.fliplr(m)
    if m.ndim < 2:
        raise ValueError(f"fliplr: the input must be at least 2-d, got shape {m.shape}")
    return flip(m, 1)


# =========================================================================== triangles, diagonals
def _triangle(fname, m, k):
    m = _arr(m)
    if not is_traced(m):
        return getattr(np, fname)(m, k)
    if m.ndim == 0:
        raise ValueError(f"{fname}: the input must be at least 1-d, got a 0-d array")
    return None


def tril(m, k=0):
    """`numpy.tril`: zeros above the k-th diagonal of the last two axes (a select with a
    constant mask).

    Example:
        >>> fnp.tril(np.ones((3, 3)))
        array([[1., 0., 0.],
               [1., 1., 0.],
               [1., 1., 1.]])
        >>> fnp.tril(np.ones((3, 3)), -1)
        array([[0., 0., 0.],
               [1., 0., 0.],
               [1., 1., 0.]])
    """
    out = _triangle("tril", m, k)
    if out is not None:
        return out
    m = _arr(m)
    mask = np.tri(*m.shape[-2:], k=k, dtype=bool)
    return where(mask, m, np.zeros(1, m.dtype))


def triu(m, k=0):
    """`numpy.triu`: zeros below the k-th diagonal of the last two axes.

    Example:
        >>> fnp.triu(np.ones((3, 3)))
        array([[1., 1., 1.],
               [0., 1., 1.],
               [0., 0., 1.]])
        >>> fnp.triu(np.ones((3, 3)), 1)
        array([[0., 1., 1.],
               [0., 0., 1.],
               [0., 0., 0.]])
    """
    out = _triangle("triu", m, k)
    if out is not None:
        return out
    m = _arr(m)
    mask = ~np.tri(*m.shape[-2:], k=k - 1, dtype=bool)
    return where(mask, m, np.zeros(1, m.dtype))


def diag(v, k=0):
    """`numpy.diag`: the k-th diagonal of a 2-d array, or a 2-d array with the 1-d `v` on
    its k-th diagonal (one strided `pad` of `v`: its gradient is a strided slice).

    Example:
        >>> fnp.diag(np.array([1.0, 2.0]))
        array([[1., 0.],
               [0., 2.]])
        >>> fnp.diag(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([1., 4.])
        >>> fg.grad(lambda m: fnp.sum(fnp.diag(m)))(np.ones((2, 2)))
        array([[1., 0.],
               [0., 1.]])
    """
    v = _arr(v)
    if not is_traced(v):
        return np.diag(v, k)
    k = operator.index(k)
    if v.ndim == 2:
        from ._indexing import diagonal
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: the input must be 1-d or 2-d, got shape {v.shape}")
    n = v.shape[0]
    size = n + abs(k)
    lo = k if k >= 0 else -k * size
    used = (n - 1) * (size + 1) + 1 if n else 0
    flat = S.pad_p.bind(v, np.zeros((), v.dtype),
                        padding_config=((lo, size * size - lo - used, size),))
    return S.reshape(flat, (size, size))


def diagflat(v, k=0):
    """`numpy.diagflat`: a 2-d array with the flattened `v` on its k-th diagonal.

    Example:
        >>> fnp.diagflat(np.array([[1.0, 2.0]]))
        array([[1., 0.],
               [0., 2.]])
        >>> fnp.diagflat(np.array([1.0, 2.0]), k=1)
        array([[0., 1., 0.],
               [0., 0., 2.],
               [0., 0., 0.]])
    """
    v = _arr(v)
    if not is_traced(v):
        return np.diagflat(v, k)
    return diag(ravel(v), k)


def _diagonal_positions(shape, wrap):
    """NumPy's flat positions of the main diagonal (`fill_diagonal`'s start, stop, step)."""
    if len(shape) < 2:
        raise ValueError(f"fill_diagonal: the array must be at least 2-d, got shape {shape}")
    if len(shape) == 2:
        step = shape[1] + 1
        stop = int(np.prod(shape)) if wrap else min(shape[1] * shape[1], shape[0] * shape[1])
    else:
        if len(set(shape)) != 1:
            raise ValueError(f"fill_diagonal: all dimensions of the input must have equal "
                             f"length, got shape {shape}")
        step = 1 + int(np.cumprod(shape[:-1]).sum())
        stop = int(np.prod(shape))
    return step, stop


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """`numpy.fill_diagonal`, functional (JAX's signature): a new array with `val` on the main
    diagonal (cycled if shorter). Pass `inplace=False`; the default `inplace=True` (NumPy's
    in-place write) raises.

    Example:
        >>> fnp.fill_diagonal(np.ones((3, 3)), 0.0, inplace=False)
        array([[0., 1., 1.],
               [1., 0., 1.],
               [1., 1., 0.]])
    """
    _check_inplace("fill_diagonal", inplace,
                   "a = fnp.fill_diagonal(a, val, inplace=False)")
    a = _arr(a)
    if not _traced(a, val):
        return _eager_update(np.fill_diagonal, a, val, wrap=wrap)
    shape = shape_of(a)
    step, stop = _diagonal_positions(shape, wrap)
    size = int(np.prod(shape))
    count = len(range(0, stop, step))
    if not has_tracer(val):
        val = _assigned(val, dtype_of(a))  # (NumPy's errors: 300 into int8, NaN into ints)
        if val.size == 0:  # (NumPy's flat assignment of no values writes nothing)
            return a
    if count == 0:
        return a
    vals = _cycled(ravel(_arr(val)), count, dtype_of(a))
    hi = size - ((count - 1) * step + 1)
    placed = S.pad_p.bind(vals, np.zeros((), dtype_of(a)), padding_config=((0, hi, step - 1),))
    mask = np.zeros(size, bool)
    mask[0:stop:step] = True
    return reshape(where(mask, placed, ravel(a)), shape)


def _cycled(v, n, dtype):
    """The first `n` values of 1-d `v` repeated cyclically (NumPy's flat assignment), cast
    to `dtype`."""
    m = shape_of(v)[0]
    if m == 0:
        raise ValueError("cannot assign from an empty array of values")
    v = cast(v, dtype) if isinstance(v, Tracer) else np.asarray(v).astype(dtype)
    if m == n:
        return v
    return _gather_axis(tile(v, -(-n // m)), list(range(n)), 0) if m < n else _slice_axis(
        v, 0, 0, n) if isinstance(v, Tracer) else v[:n]


def diag_indices(n, ndim=2):
    """`numpy.diag_indices` (integer arrays).

    Example:
        >>> fnp.diag_indices(3)
        (array([0, 1, 2]), array([0, 1, 2]))
        >>> np.arange(9).reshape(3, 3)[fnp.diag_indices(3)]
        array([0, 4, 8])
    """
    return np.diag_indices(n, ndim)


def diag_indices_from(arr):
    """`numpy.diag_indices_from` (reads only the shape).

    Example:
        >>> fnp.diag_indices_from(np.zeros((2, 2)))
        (array([0, 1]), array([0, 1]))
    """
    shape = shape_of(_arr(arr))
    if len(shape) < 2:
        raise ValueError(f"diag_indices_from: input array must be at least 2-d, got {shape}")
    if len(set(shape)) != 1:
        raise ValueError(f"diag_indices_from: all dimensions of input must be of equal length, "
                         f"got shape {shape}")
    return np.diag_indices(shape[0], len(shape))


def tril_indices(n, k=0, m=None):
    """`numpy.tril_indices` (integer arrays).

    Example:
        >>> fnp.tril_indices(3)
        (array([0, 1, 1, 2, 2, 2]), array([0, 0, 1, 0, 1, 2]))
        >>> np.arange(9).reshape(3, 3)[fnp.tril_indices(3)]
        array([0, 3, 4, 6, 7, 8])
    """
    return np.tril_indices(n, k, m)


def triu_indices(n, k=0, m=None):
    """`numpy.triu_indices` (integer arrays).

    Example:
        >>> fnp.triu_indices(3, 1)
        (array([0, 0, 1]), array([1, 2, 2]))
        >>> np.arange(9).reshape(3, 3)[fnp.triu_indices(3, 1)]
        array([1, 2, 5])
    """
    return np.triu_indices(n, k, m)


def _indices_from(fname, arr, k):
    shape = shape_of(_arr(arr))
    if len(shape) != 2:
        raise ValueError(f"{fname}: input array must be 2-d, got shape {shape}")
    return getattr(np, fname.split("_from")[0])(shape[-2], k=k, m=shape[-1])


def tril_indices_from(arr, k=0):
    """`numpy.tril_indices_from` (reads only the shape).

    Example:
        >>> fnp.tril_indices_from(np.zeros((2, 2)))
        (array([0, 1, 1]), array([0, 0, 1]))
    """
    return _indices_from("tril_indices_from", arr, k)


def triu_indices_from(arr, k=0):
    """`numpy.triu_indices_from` (reads only the shape).

    Example:
        >>> fnp.triu_indices_from(np.zeros((2, 2)))
        (array([0, 0, 1]), array([0, 1, 1]))
    """
    return _indices_from("triu_indices_from", arr, k)


def mask_indices(n, mask_func, k=0):
    """`numpy.mask_indices`: the indices where `mask_func(ones((n, n)), k)` is nonzero.

    Example:
        >>> fnp.mask_indices(3, fnp.triu, 1)
        (array([0, 0, 1]), array([1, 2, 2]))
    """
    return np.mask_indices(n, mask_func, k)


# =========================================================================== joining, splitting
def atleast_2d(*arys):
    """`numpy.atleast_2d`: each argument with at least 2 dims (a tuple for several).

    Example:
        >>> fnp.atleast_2d(np.array([1.0, 2.0]))
        array([[1., 2.]])
    """
    arys = [_arr(a) for a in arys]
    if not is_traced(*arys):
        return np.atleast_2d(*arys)
    out = tuple(a if not is_traced(a) or a.ndim >= 2 else
                reshape(a, (1,) * (2 - a.ndim) + a.shape) for a in
                (np.atleast_2d(a) if not is_traced(a) else a for a in arys))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """`numpy.atleast_3d`: 0-d -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1).

    Example:
        >>> fnp.atleast_3d(np.array([1.0, 2.0])).shape
        (1, 2, 1)
        >>> fnp.atleast_3d(np.zeros((2, 3))).shape
        (2, 3, 1)
    """
    arys = [_arr(a) for a in arys]
    if not is_traced(*arys):
        return np.atleast_3d(*arys)

    def one(a):
        if not is_traced(a):
            return np.atleast_3d(a)
        s = a.shape
        new = {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}.get(len(s), s)
        return a if new == s else reshape(a, new)
    out = tuple(one(a) for a in arys)
    return out[0] if len(out) == 1 else out


def _joined(fname, tup):
    if not hasattr(tup, "__getitem__"):  # (NumPy's check: a generator or a set has no order)
        raise TypeError(f"{fname}: arrays to stack must be passed as a sequence (a list or "
                        f"tuple), e.g. fnp.{fname}([x, y]), got a {type(tup).__name__}")
    if isinstance(tup, Tracer):
        return list(tup)  # a traced array: its rows
    return [_arr(a) for a in tup]  # (a NumPy array: its rows too)


def _concat_as(fname, arrays, axis, dtype, casting):
    """concatenate after casting to `dtype` under NumPy's `casting` rule (a float array is
    not joined as integers under the default "same_kind": NumPy raises)."""
    if dtype is not None:
        dtype = np.dtype(dtype)
        for a in arrays:
            if not np.can_cast(dtype_of(a), dtype, casting):
                raise TypeError(f"{fname}: Cannot cast array data from {dtype_of(a)!r} to "
                                f"{dtype!r} according to the rule {casting!r}")
        arrays = [cast(a, dtype) for a in arrays]
    return concatenate(arrays, axis=axis)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """`numpy.hstack`: join along axis 1 (axis 0 for 1-d inputs).

    Example:
        >>> fnp.hstack([np.array([1.0, 2.0]), np.array([3.0])])
        array([1., 2., 3.])
        >>> fnp.hstack([np.ones((2, 1)), np.zeros((2, 1))])
        array([[1., 0.],
               [1., 0.]])
    """
    arrs = _joined("hstack", tup)
    if not is_traced(*arrs):
        return np.hstack(arrs, dtype=dtype, casting=casting)
    arrs = [atleast_1d(a) for a in arrs]
    return _concat_as("hstack", arrs, 0 if _ndim(arrs[0]) == 1 else 1, dtype, casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """`numpy.vstack`: join along axis 0 after `atleast_2d`.

    Example:
        >>> fnp.vstack([np.array([1.0, 2.0]), np.array([3.0, 4.0])])
        array([[1., 2.],
               [3., 4.]])
    """
    arrs = _joined("vstack", tup)
    if not is_traced(*arrs):
        return np.vstack(arrs, dtype=dtype, casting=casting)
    return _concat_as("vstack", [atleast_2d(a) for a in arrs], 0, dtype, casting)


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """`numpy.row_stack` (deprecated in NumPy 2.0): `vstack`.

    Example:
        >>> fnp.row_stack([np.array([1.0, 2.0]), np.array([3.0, 4.0])])
        array([[1., 2.],
               [3., 4.]])
    """
    return vstack(tup, dtype=dtype, casting=casting)


def dstack(tup):
    """`numpy.dstack`: join along axis 2 after `atleast_3d`.

    Example:
        >>> fnp.dstack([np.array([1.0, 2.0]), np.array([3.0, 4.0])])
        array([[[1., 3.],
                [2., 4.]]])
    """
    arrs = _joined("dstack", tup)
    if not is_traced(*arrs):
        return np.dstack(arrs)
    return concatenate([atleast_3d(a) for a in arrs], axis=2)


def column_stack(tup):
    """`numpy.column_stack`: 1-d inputs become columns, then join along axis 1.

    Example:
        >>> fnp.column_stack([np.array([1.0, 2.0]), np.array([3.0, 4.0])])
        array([[1., 3.],
               [2., 4.]])
    """
    arrs = _joined("column_stack", tup)
    if not is_traced(*arrs) and not any(is_cupy(a) for a in arrs):  # (CuPy's: 1-d/2-d only)
        return np.column_stack(arrs)
    cols = [reshape(a, (-1, 1)) if _ndim(a) < 2 else a for a in arrs]
    return concatenate(cols, axis=1)


def block(arrays):
    """`numpy.block`: assemble an array from nested lists of blocks (the innermost lists
    join along the last axis, the next ones along the one before, ...).

    Example:
        >>> fnp.block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.array([[5.0]])]])
        array([[1., 0., 0.],
               [0., 1., 0.],
               [1., 1., 5.]])
    """
    if not _traced(arrays) and array_module(*_block_leaves(arrays)) is np:  # (CuPy has none)
        return np.block(arrays)
    depth = _block_depth(arrays, ())
    leaves = [_arr(a) for a in _block_leaves(arrays)]  # (Python scalars are float64 here)
    nd = max([depth] + [_ndim(a) for a in leaves])
    dt = result_type(*leaves)
    return _block_join(arrays, depth, nd, dt, 0)


def _block_depth(x, index):
    if isinstance(x, tuple):
        raise TypeError(f"block: arrays{''.join(f'[{i}]' for i in index)} is a tuple; only lists "
                        "can be used to arrange blocks")
    if not isinstance(x, list):
        return 0
    if not x:
        raise ValueError(f"block: arrays{''.join(f'[{i}]' for i in index)} is an empty list")
    depths = [_block_depth(e, index + (i,)) for i, e in enumerate(x)]
    if len(set(depths)) != 1:
        raise ValueError(f"block: list depths are mismatched (the elements of "
                         f"arrays{''.join(f'[{i}]' for i in index)} have depths {depths})")
    return depths[0] + 1


def _block_leaves(x):
    return [leaf for e in x for leaf in _block_leaves(e)] if isinstance(x, list) else [x]


def _block_join(x, depth, nd, dt, level):
    if not isinstance(x, list):
        x = cast(_arr(x), dt)
        s = shape_of(x)
        return reshape(x, (1,) * (nd - len(s)) + s) if len(s) < nd else x
    parts = [_block_join(e, depth, nd, dt, level + 1) for e in x]
    return concatenate(parts, axis=nd - (depth - level))


def array_split(ary, indices_or_sections, axis=0):
    """`numpy.array_split`: like `split`, but `n` sections need not divide the axis evenly
    (the first ones get one element more).

    Example:
        >>> fnp.array_split(np.arange(5.0), 2)
        [array([0., 1., 2.]), array([3., 4.])]
    """
    ary = _arr(ary)
    if not is_traced(ary):
        return np.array_split(ary, indices_or_sections, axis)
    ax = strict_axis("array_split", axis, ary.ndim)
    n = ary.shape[ax]
    if np.ndim(indices_or_sections) == 0:
        k = int(indices_or_sections)  # (NumPy's: a float count is truncated)
        if k <= 0:
            raise ValueError(f"array_split: the number of sections must be larger than 0, got "
                             f"{k}")
        each, extra = divmod(n, k)
        sizes = [0] + extra * [each + 1] + (k - extra) * [each]
        bounds = list(np.cumsum(sizes))
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    return [_slice_axis(ary, ax, int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _split_dims(fname, ary, min_nd, axis_of):
    ary = _arr(ary)
    if _ndim(ary) < min_nd:
        raise ValueError(f"{fname} only works on arrays of {min_nd} or more dimensions, got "
                         f"shape {shape_of(ary)}")
    return ary, axis_of(_ndim(ary))


def hsplit(ary, indices_or_sections):
    """`numpy.hsplit`: split along axis 1 (axis 0 for 1-d).

    Example:
        >>> fnp.hsplit(np.array([[1.0, 2.0], [3.0, 4.0]]), 2)
        [array([[1.],
               [3.]]), array([[2.],
               [4.]])]
    """
    ary, ax = _split_dims("hsplit", ary, 1, lambda nd: 1 if nd > 1 else 0)
    return split(ary, indices_or_sections, ax)


def vsplit(ary, indices_or_sections):
    """`numpy.vsplit`: split along axis 0.

    Example:
        >>> fnp.vsplit(np.array([[1.0, 2.0], [3.0, 4.0]]), 2)
        [array([[1., 2.]]), array([[3., 4.]])]
    """
    ary, ax = _split_dims("vsplit", ary, 2, lambda nd: 0)
    return split(ary, indices_or_sections, ax)


def dsplit(ary, indices_or_sections):
    """`numpy.dsplit`: split along axis 2.

    Example:
        >>> [a.shape for a in fnp.dsplit(np.zeros((2, 3, 4)), 2)]
        [(2, 3, 2), (2, 3, 2)]
    """
    ary, ax = _split_dims("dsplit", ary, 3, lambda nd: 2)
    return split(ary, indices_or_sections, ax)


def unstack(x, /, *, axis=0):
    """`numpy.unstack`: the slices of `x` along `axis`, as a tuple.

    Example:
        >>> fnp.unstack(np.array([[1.0, 2.0], [3.0, 4.0]]))
        (array([1., 2.]), array([3., 4.]))
        >>> fnp.unstack(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1)
        (array([1., 3.]), array([2., 4.]))
    """
    x = _arr(x)
    if not is_traced(x) and not is_cupy(x):  # (CuPy has no unstack: the slices below)
        return np.unstack(x, axis=axis)
    if x.ndim == 0:
        raise ValueError("unstack: the input array must be at least 1-d, got a 0-d array")
    ax = strict_axis("unstack", axis, x.ndim)
    return tuple(getitem_p.bind(x, spec=(_FULL,) * ax + (("int", i),))
                 for i in range(x.shape[ax]))


def append(arr, values, axis=None):
    """`numpy.append`: `values` joined to the end of `arr` (both flattened when axis is None).

    Example:
        >>> fnp.append(np.array([1.0, 2.0]), [3.0, 4.0])
        array([1., 2., 3., 4.])
        >>> fnp.append(np.ones((1, 2)), np.zeros((1, 2)), axis=0)
        array([[1., 1.],
               [0., 0.]])
    """
    arr, values = _arr(arr), _arr(values)
    if not is_traced(arr, values):
        return np.append(arr, values, axis)
    if axis is None:
        if _ndim(arr) != 1:
            arr = ravel(arr)
        values = ravel(values)
        axis = _ndim(arr) - 1
    return concatenate([arr, values], axis=axis)


def _codes(shape, offset=0):
    return np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape) + offset


def insert(arr, obj, values, axis=None):
    """`numpy.insert` with concrete positions `obj`: NumPy's own `insert` is run on integer
    codes of `arr`'s and `values`' elements, and the result gathers them (so every NumPy
    rule of broadcasting `values` holds; values are cast to `arr`'s dtype).

    Example:
        >>> fnp.insert(np.array([1.0, 2.0, 3.0]), 1, 0.0)
        array([1., 0., 2., 3.])
        >>> fnp.insert(np.array([1.0, 2.0, 3.0]), [0, 3], [-1.0, 9.0])
        array([-1.,  1.,  2.,  3.,  9.])
    """
    arr, values = _arr(arr), _arr(values) if not is_weak(values) else values
    if not is_traced(arr, values) and array_module(arr, values) is np:  # (CuPy has none)
        return np.insert(arr, obj, values, axis)
    if isinstance(obj, Tracer):
        raise ConcretizationError("fnp.insert: the positions `obj` decide the output shape, so "
                                  "they must be concrete (not traced); pass a Python int, "
                                  "slice or NumPy array")
    a_shape, v_shape = shape_of(arr), shape_of(values)
    a_size = int(np.prod(a_shape))
    codes = np.insert(_codes(a_shape), obj, _codes(v_shape, a_size), axis)
    vals = np.asarray(values, dtype_of(arr)) if is_weak(values) else cast(values, dtype_of(arr))
    source = concatenate([ravel(arr), ravel(vals)], axis=0)
    return reshape(_gather_axis(source, codes.ravel(), 0), codes.shape)


def delete(arr, obj, axis=None):
    """`numpy.delete` with concrete positions `obj` (the kept slices are joined).

    Example:
        >>> fnp.delete(np.array([1.0, 2.0, 3.0, 4.0]), [0, 2])
        array([2., 4.])
        >>> fnp.delete(np.arange(6.0).reshape(2, 3), 1, axis=1)
        array([[0., 2.],
               [3., 5.]])
    """
    arr = _arr(arr)
    if not is_traced(arr):
        return np.delete(arr, obj, axis)
    if isinstance(obj, Tracer):
        raise ConcretizationError("fnp.delete: the positions `obj` decide the output shape, so "
                                  "they must be concrete (not traced); pass a Python int, "
                                  "slice or NumPy array")
    if axis is None:
        arr, axis = ravel(arr), 0
    ax = strict_axis("delete", axis, arr.ndim)
    keep = np.delete(np.arange(arr.shape[ax]), obj)
    return _gather_axis(arr, keep, ax)


def resize(a, new_shape):
    """`numpy.resize`: the flattened `a` repeated (or cut) to fill `new_shape`.

    Example:
        >>> fnp.resize(np.array([1.0, 2.0, 3.0]), (2, 4))
        array([[1., 2., 3., 1.],
               [2., 3., 1., 2.]])
    """
    a = _arr(a)
    if not is_traced(a):
        return np.resize(a, new_shape)
    shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else \
        tuple(map(operator.index, new_shape))
    if any(d < 0 for d in shape):
        raise ValueError(f"resize: all elements of new_shape must be non-negative, got {shape}")
    size = int(np.prod(shape))
    flat = ravel(a)
    n = shape_of(flat)[0]
    if n == 0 or size == 0:
        return np.zeros(shape, dtype_of(a))
    if size != n:
        flat = _slice_axis(tile(flat, -(-size // n)), 0, 0, size)
    return reshape(flat, shape)


def trim_zeros(filt, trim="fb", axis=None):
    """`numpy.trim_zeros`: `filt` without its leading / trailing zeros. The output shape
    depends on the values, so a traced `filt` needs a concrete value (it has one under grad
    and jvp; under jit and vmap this raises ConcretizationError).

    Example:
        >>> fnp.trim_zeros(np.array([0.0, 0.0, 1.0, 2.0, 0.0]))
        array([1., 2.])
        >>> fnp.trim_zeros(np.array([0.0, 0.0, 1.0, 2.0, 0.0]), trim="f")
        array([1., 2., 0.])
    """
    filt = _arr(filt)
    if not is_traced(filt):
        return np.trim_zeros(filt, trim, axis)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"trim_zeros: unexpected character(s) in `trim`: {trim!r}")
    value = np.asarray(filt.to_concrete(
        "fnp.trim_zeros(filt) (its output shape depends on the values)"))
    nd = value.ndim
    axes = range(nd) if axis is None else normalize_axis("trim_zeros", axis, nd)
    nz = np.argwhere(value)
    if nz.size == 0:
        start = stop = [0] * nd
    else:
        start = nz.min(axis=0) if "f" in trim else [None] * nd
        stop = nz.max(axis=0) + 1 if "b" in trim else [None] * nd
    spec = tuple(("slice", None if start[d] is None else int(start[d]),
                  None if stop[d] is None else int(stop[d]), None) if d in axes else _FULL
                 for d in range(nd))
    return getitem_p.bind(filt, spec=spec)


# =========================================================================== padding
_PAD_KWARGS = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
               "linear_ramp": {"end_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}, "maximum": {"stat_length"},
               "minimum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"}}


def _pairs(fname, x, nd, as_index=False):
    """`x` (a scalar, a pair, or per-axis pairs) as `nd` (before, after) pairs (NumPy's
    broadcasting of pad_width, constant_values, ...); traced values give 0-d traced items."""
    if isinstance(x, Tracer) or has_tracer(x):
        x = broadcast_to(_arr(x), (nd, 2))
        return [(getitem(x, (i, 0)), getitem(x, (i, 1))) for i in range(nd)]
    if x is None:
        return [(None, None)] * nd
    x = np.asarray(x)
    if as_index:
        x = np.round(x).astype(np.intp)
        if x.size and x.min() < 0:
            raise ValueError(f"{fname}: index can't contain negative values, got {x.tolist()}")
    # (NumPy's own quirk, kept: one value or one pair stay NumPy scalars, which are strong
    # in promotion; per-axis pairs become Python numbers, which are weak)
    if x.size == 1:
        return [(x.ravel()[0],) * 2] * nd
    if x.size == 2 and x.shape != (2, 1):
        return [(x.ravel()[0], x.ravel()[1])] * nd
    try:
        return [tuple(p) for p in np.broadcast_to(x, (nd, 2)).tolist()]
    except ValueError:
        raise ValueError(f"{fname}: cannot broadcast {x.tolist()} to {nd} (before, after) "
                         "pairs") from None


def pad(array, pad_width, mode="constant", **kwargs):
    """`numpy.pad` for the modes constant, edge, reflect, symmetric (reflect_type 'even' or
    'odd'), wrap, linear_ramp, maximum, minimum, mean, median and empty; `pad_width`,
    `constant_values`, `end_values` and `stat_length` in every NumPy form. Differentiable in
    `array` and in traced `constant_values` / `end_values`.

    Example:
        >>> fnp.pad(np.array([1.0, 2.0, 3.0]), 2)
        array([0., 0., 1., 2., 3., 0., 0.])
        >>> fnp.pad(np.array([1.0, 2.0, 3.0]), (2, 1), mode="reflect")
        array([3., 2., 1., 2., 3., 2.])
        >>> fg.grad(lambda a: fnp.sum(fnp.pad(a, 1, mode="edge")))(np.array([1.0, 2.0, 3.0]))
        array([2., 1., 2.])
    """
    array = _arr(array)
    if not _traced(array, kwargs.get("constant_values"), kwargs.get("end_values")):
        return np.pad(array, pad_width, mode, **kwargs)
    if callable(mode):
        raise TypeError("pad: a callable mode pads vectors in place, which fungrad does not "
                        "support on traced values; use one of the named modes "
                        f"{sorted(_PAD_KWARGS)}")
    if mode not in _PAD_KWARGS:
        raise ValueError(f"pad: mode {mode!r} is not supported; use one of {sorted(_PAD_KWARGS)}")
    bad = set(kwargs) - _PAD_KWARGS[mode]
    if bad:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(bad)}")
    if not isinstance(array, Tracer):
        array = np.asarray(array)
    nd = _ndim(array)
    widths = [(int(b), int(a)) for b, a in _pairs("pad", _pad_widths(pad_width, nd), nd,
                                                  as_index=True)]
    if mode in ("constant", "empty"):
        return _pad_constant(array, widths, kwargs.get("constant_values", 0))
    shape = shape_of(array)
    for ax, (b, a) in enumerate(widths):
        if shape[ax] == 0 and (b or a):
            raise ValueError(f"pad: can't extend empty axis {ax} of shape {shape} using modes "
                             "other than 'constant' or 'empty'")
    if int(np.prod(shape)) == 0:
        return _pad_constant(array, widths, 0)
    x = array
    if mode == "linear_ramp":
        ends = _pairs("pad", kwargs.get("end_values", 0), nd)
        for ax, ((b, a), (e0, e1)) in enumerate(zip(widths, ends)):
            x = _pad_ramp(x, ax, b, a, e0, e1)
        return x
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = _pairs("pad", kwargs.get("stat_length"), nd, as_index=True)
        for ax, ((b, a), lens) in enumerate(zip(widths, lengths)):
            x = _pad_stat(x, ax, b, a, lens, mode)
        return x
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    for ax, (b, a) in enumerate(widths):
        if b or a:
            n = shape_of(x)[ax]
            if reflect_type == "odd" and mode in ("reflect", "symmetric"):
                x = _pad_linear_map(x, ax, b, a, mode)
            else:
                x = _gather_axis(x, np.pad(np.arange(n), (b, a), mode=mode), ax)
    return x


def _pad_widths(pad_width, nd):
    """NumPy's reading of `pad_width` before broadcasting it to pairs: a dict maps axes to a
    width or a (before, after) pair (the other axes get none), and the widths must be
    integers (1.5 or an empty tuple raise a TypeError, they are not rounded)."""
    if has_tracer(pad_width):
        return pad_width
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * nd
        for axis, width in pad_width.items():
            if type(width) is int:
                seq[axis] = (width, width)
            elif (type(width) is tuple and len(width) == 2
                  and all(type(w) is int for w in width)):
                seq[axis] = width
            else:
                raise TypeError(f"pad: a pad_width dict maps an axis to an int or a pair of "
                                f"ints, got {width!r} for axis {axis}")
        pad_width = seq
    if np.asarray(pad_width).dtype.kind != "i":
        raise TypeError(f"pad: `pad_width` must be of integral type, got {pad_width!r}")
    return pad_width


def _pad_constant(x, widths, values):
    dt = dtype_of(x)
    if not _traced(values):
        v = np.asarray(values)
        if v.size == 1 or (v.size and np.all(v == v.ravel()[0])):
            config = tuple((b, a, 0) for b, a in widths)
            return S.pad_p.bind(x, _scalar(v.ravel()[0], dt), padding_config=config)
    for ax, ((b, a), (v0, v1)) in enumerate(zip(widths, _pairs("pad", values, len(widths)))):
        if b or a:
            if not _traced(v0, v1) and np.asarray(v0) == np.asarray(v1):
                x = _pad_axis_const(x, ax, b, a, v0)
            else:
                x = _pad_axis_const(_pad_axis_const(x, ax, b, 0, v0), ax, 0, a, v1)
    return x


def _along(values, ax, nd):
    """A 1-d NumPy vector laid along axis `ax` of an `nd`-dim array."""
    return values.reshape((1,) * ax + (-1,) + (1,) * (nd - ax - 1))


def _pad_ramp(x, ax, b, a, e0, e1):
    """NumPy's linear_ramp: `linspace(end, edge, width, endpoint=False)` on each side,
    computed in the promoted dtype of the end value and the array (floored for integer
    arrays), then cast to the array's dtype."""
    shape, nd, dt = shape_of(x), _ndim(x), dtype_of(x)
    n = shape[ax]
    pieces = []
    for width, edge, end, left in ((b, 0, e0, True), (a, n - 1, e1, False)):
        if not width:
            continue
        edge_v = _slice_axis(x, ax, edge, edge + 1)
        work = result_type(edge_v, end)
        if work.kind not in "fc" and work.name != "bfloat16":
            work = np.dtype(np.float64)
        edge_v = cast(edge_v, work)
        end_v = end if is_weak(end) else cast(end, work)
        k = _along(np.arange(width, dtype=work if work.kind != "V" else np.float32), ax, nd)
        if not left:
            k = np.flip(k, ax)
        ramp = add(multiply(k, _ramp_step(edge_v, end_v, width)), end_v)
        if dt.kind in "iu":  # (NumPy's linspace floors for integer dtypes, not for bool)
            from ._elementwise import floor
            ramp = floor(ramp)
        ramp = broadcast_to_shape(cast(ramp, dt), shape[:ax] + (width,) + shape[ax + 1:])
        pieces.append((left, ramp))
    parts = [p for left, p in pieces if left] + [x] + [p for left, p in pieces if not left]
    return concatenate(parts, axis=ax) if len(parts) > 1 else x


def _ramp_step(edge, end, width):
    from ._elementwise import divide
    return divide(subtract(edge, end), width)


def _pad_stat(x, ax, b, a, lens, mode):
    """NumPy's statistic modes: the max / min / mean / median of the first (last) `stat_length`
    elements along `ax`, repeated over the pad (rounded for integer dtypes)."""
    if not (b or a):
        return x
    shape, dt = shape_of(x), dtype_of(x)
    n = shape[ax]
    l0, l1 = (n if v is None or v > n else int(v) for v in lens)
    if mode in ("maximum", "minimum") and (l0 == 0 or l1 == 0):
        raise ValueError("pad: stat_length of 0 yields no value for padding")
    left = _stat(_slice_axis(x, ax, 0, l0), ax, mode, dt)
    right = left if l0 == l1 == n else _stat(_slice_axis(x, ax, n - l1, n), ax, mode, dt)
    parts = []
    for width, stat in ((b, left), (a, right)):
        parts.append(S.broadcast_in_dim(stat, shape[:ax] + (width,) + shape[ax + 1:],
                                        tuple(range(len(shape)))) if width else None)
    return concatenate([p for p in (parts[0], x, parts[1]) if p is not None], axis=ax)


def _stat(chunk, ax, mode, dt):
    from . import _reductions as R
    if mode == "maximum":
        return R.max(chunk, axis=ax, keepdims=True)
    if mode == "minimum":
        return R.min(chunk, axis=ax, keepdims=True)
    s = R.mean(chunk, axis=ax, keepdims=True) if mode == "mean" else _median(chunk, ax)
    if dt.kind in "iu":
        from ._elementwise import round as _round
        s = cast(_round(s), dt)
    elif dt.kind == "b":  # (NumPy assigns the statistic into the bool array: nonzero)
        s = cast(s, dt)
    return s


def _median(chunk, ax):
    from ._indexing import sort
    from . import _reductions as R
    n = shape_of(chunk)[ax]
    s = sort(chunk, axis=ax)
    mid = _gather_axis(s, [(n - 1) // 2, n // 2], ax)
    return R.mean(mid, axis=ax, keepdims=True)


def _pad_linear_map(x, ax, b, a, mode):
    """Odd reflection: linear in `x` along `ax`, so the padded parts are NumPy's own
    `pad(eye(n))` matrix applied along that axis."""
    from ._contract import tensordot
    n, dt = shape_of(x)[ax], dtype_of(x)
    if dt.kind == "b":
        # NumPy's odd reflection of bools, `2 * edge - chunk` written back as a bool, is
        # `edge or chunk`, chunk by chunk: each padded value is the OR of the elements whose
        # unit vectors NumPy's own pad lights up there (a count > 0 of a 0/1 matrix product)
        m = np.pad(np.eye(n, dtype=bool), ((b, a), (0, 0)), mode=mode,
                   reflect_type="odd").astype(np.int64)
        x_in = cast(x, np.dtype(np.int64))
    else:
        m = np.pad(np.eye(n, dtype=dt), ((b, a), (0, 0)), mode=mode, reflect_type="odd")
        x_in = x

    def side(rows):
        out = moveaxis(tensordot(rows, x_in, axes=([1], [ax])), 0, ax)
        return cast(out, dt) if dt.kind == "b" else out
    parts = [side(m[:b])] if b else []
    parts.append(x)
    if a:
        parts.append(side(m[b + n:]))
    return concatenate(parts, axis=ax)


# =========================================================================== selection
def select(condlist, choicelist, default=0):
    """`numpy.select`: from each position, the choice of the first true condition (else
    `default`); differentiable in the choices and default.

    Example:
        >>> x = np.array([-1.0, 0.5, 2.0])
        >>> fnp.select([x < 0, x > 1], [-x, x ** 2], x)
        array([1. , 0.5, 4. ])
        >>> fg.grad(lambda x: fnp.sum(fnp.select([x < 0, x > 1], [-x, x ** 2], x)))(x)
        array([-1.,  1.,  4.])
    """
    # (CuPy's select differs from NumPy's: scalar defaults only, no promotion with the default;
    # CuPy arrays take the path of traced ones)
    xp = array_module(*condlist, *choicelist, default)
    if not _traced(condlist, choicelist, default) and xp is np:
        return np.select(condlist, choicelist, default)
    condlist, choicelist = list(condlist), [_arr(c) if not is_weak(c) else c
                                            for c in choicelist]
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: list of cases must be same length as list of conditions, "
                         f"got {len(condlist)} conditions and {len(choicelist)} choices")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    conds = [_arr(c) for c in condlist]
    for i, c in enumerate(conds):
        if dtype_of(c) != np.bool_:
            raise TypeError(f"select: invalid entry {i} in condlist: should be boolean ndarray, "
                            f"got dtype {dtype_of(c)}")
    dt = result_type(*choicelist, default)
    out = cast(default, dt) if not is_weak(default) else xp.asarray(default, dt)
    for c, v in zip(reversed(conds), reversed(choicelist)):
        out = where(c, cast(v, dt) if not is_weak(v) else xp.asarray(v, dt), out)
    shape = _broadcast_shapes("select", *[("condition", shape_of(c)) for c in conds],
                              *[("choice", shape_of(v)) for v in choicelist],
                              ("default", shape_of(default)))
    return broadcast_to_shape(out, shape)


def piecewise(x, condlist, funclist, *args, **kw):
    """`numpy.piecewise`: where each condition holds, the value of its function (or
    constant); later conditions win, and one extra function is the 'otherwise' case.

    On traced values every function is evaluated on all of `x` (not on the selected
    elements) and the results are selected, so the functions must be elementwise.

    Example:
        >>> x = np.array([-2.0, 0.5, 3.0])
        >>> fnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])
        array([2.  , 0.25, 9.  ])
        >>> fnp.piecewise(x, [x < 0], [0.0, lambda v: 2 * v])
        array([0., 1., 6.])
    """
    x = _arr(x)
    xp = array_module(x)  # (CuPy's piecewise takes no functions: CuPy arrays go the traced way)
    if not _traced(x, condlist) and xp is np:
        return np.piecewise(x, condlist, funclist, *args, **kw)
    nd = _ndim(x)
    if isinstance(condlist, Tracer):  # (a 0-d one is a scalar condition, as NumPy's bool)
        conds = [condlist] if (condlist.ndim == 0 or (condlist.ndim == 1 and nd != 0)) \
            else list(condlist)
    elif np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray, Tracer))
                                   and not is_cupy(condlist[0]) and nd != 0):
        conds = [condlist]
    else:
        conds = list(condlist)
    conds = [_arr(c) for c in conds]
    conds = [c if is_traced(c) else _asarray(c, np.bool_) for c in conds]
    conds = [_condition_mask(c, shape_of(x)) for c in conds]
    n, n2 = len(conds), len(funclist)
    if n == n2 - 1:
        from ._reductions import any as _any
        conds.append(~_any(_stack_conds(conds, shape_of(x)), axis=0)
                     if not is_traced(*conds) else
                     _not_any(conds, shape_of(x)))
    elif n != n2:
        raise ValueError(f"piecewise: with {n} condition(s), either {n} or {n + 1} functions "
                         f"are expected, got {n2}")
    dt = dtype_of(x)
    out = xp.zeros(shape_of(x), dt)
    for c, f in zip(conds, funclist):
        val = f(x, *args, **kw) if callable(f) else f
        val = xp.asarray(val, dt) if is_weak(val) else cast(_arr(val), dt)
        out = where(c, val, out)
    return broadcast_to_shape(out, shape_of(x))


def _condition_mask(c, shape):
    """A piecewise condition as a mask of `x`'s shape. NumPy indexes `x[c]` with it, so a
    condition of fewer dims selects along the leading axes of `x` (a (3,) condition picks
    rows of a (3, 3) x); it is not broadcast from the right."""
    cs = shape_of(c)
    if cs != shape[:len(cs)]:
        raise IndexError(f"piecewise: boolean index did not match indexed array: a condition "
                         f"of shape {cs} selects the leading axes of x, of shape {shape}")
    if len(cs) < len(shape):
        c = reshape(c, cs + (1,) * (len(shape) - len(cs)))
    return broadcast_to_shape(c, shape)


def _stack_conds(conds, shape):
    xp = array_module(*conds)
    return xp.stack([xp.broadcast_to(c, shape) for c in conds])


def _not_any(conds, shape):
    from ._elementwise import logical_not, logical_or
    acc = conds[0]
    for c in conds[1:]:
        acc = logical_or(acc, c)
    return broadcast_to_shape(logical_not(acc), shape)


def choose(a, choices, out=None, mode="raise"):
    """`numpy.choose`: `choices[a]` elementwise (all broadcast together); mode 'raise',
    'wrap' or 'clip' for indices outside [0, n). Differentiable in the choices.

    Example:
        >>> fnp.choose(np.array([0, 1, 0]), [np.zeros(3), np.ones(3)])
        array([0., 1., 0.])
        >>> fnp.choose(np.array([0, 5]), [np.zeros(2), np.ones(2)], mode="clip")   # 5 -> 1
        array([0., 1.])
    """
    if out is not None:
        raise TypeError("choose: out= is not supported (arrays are values); use "
                        "y = fnp.choose(a, choices)")
    a = _arr(a)
    if not _traced(a, choices):
        a, choices = one_device(a, choices)
        if is_cupy(a) and not is_cupy(choices):  # (CuPy's choose takes one array of choices)
            xp = array_module(a)
            choices = xp.stack(xp.broadcast_arrays(*[xp.asarray(c) for c in choices]))
        return np.choose(a, choices, mode=mode)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    cases = list(choices) if isinstance(choices, Tracer) else [
        c if is_weak(c) else _arr(c) for c in choices]
    n = len(cases)
    if n == 0:
        raise ValueError("choose: choices must not be empty")
    if dtype_of(a).kind not in "iub":
        raise TypeError(f"choose: the index array must be of integer type, got {dtype_of(a)}")
    dt = result_type(*cases)
    shape = _broadcast_shapes("choose", ("a", shape_of(a)),
                              *[(f"choices[{i}]", shape_of(c)) for i, c in enumerate(cases)])
    cases = [broadcast_to_shape(cast(np.asarray(c) if is_weak(c) else c, dt), shape)
             for c in cases]
    which = _choose_index(a, n, mode)
    return select_n(broadcast_to_shape(which, shape), *cases)


def _choose_index(a, n, mode):
    if mode == "raise":
        if isinstance(a, Tracer):
            try:
                value = np.asarray(a.to_concrete("fnp.choose(a, choices, mode='raise')"))
            except ConcretizationError:
                raise ConcretizationError(
                    "fnp.choose(a, choices, mode='raise') checks the index values, but `a` is "
                    "traced (under jit or vmap); use mode='clip' or mode='wrap'") from None
        else:
            value = np.asarray(a)
        if value.size and (value.min() < 0 or value.max() >= n):
            raise ValueError(f"choose: invalid entry in choice array: indices must lie in "
                             f"[0, {n}) for {n} choices (or pass mode='clip' / 'wrap')")
        return cast(a, np.dtype(np.intp))
    a = cast(a, np.dtype(np.intp))
    return remainder(a, n) if mode == "wrap" else clip(a, 0, n - 1)


def extract(condition, arr):
    """`numpy.extract`: the elements of the flattened `arr` where the flattened `condition`
    is true. The output shape depends on `condition`, which must be concrete (under jit and
    vmap a traced one raises ConcretizationError; use fnp.where(condition, arr, 0) there).

    Example:
        >>> x = np.array([1.0, -2.0, 3.0, -4.0])
        >>> fnp.extract(x > 0, x)
        array([1., 3.])
    """
    arr = _arr(arr)
    if not _traced(condition, arr):
        return call_on_one_device(np.extract, condition, arr)
    condition = _arr(condition)
    if isinstance(condition, Tracer):
        condition = condition.to_concrete(
            "fnp.extract(condition, arr) (its output shape depends on the condition; use "
            "fnp.where(condition, arr, 0) for a fixed shape)")
    idx = np.nonzero(np.ravel(condition))[0]
    return take(ravel(arr), idx)


def put(a, ind, v, mode="raise", *, inplace=True):
    """`numpy.put`, functional: a new array with `a.flat[ind] = v` (`v` cycled; repeated
    indices: the last write wins). Pass `inplace=False`; NumPy's in-place default raises.
    Modes 'raise', 'wrap' and 'clip'; traced indices need 'wrap' or 'clip'.

    Example:
        >>> fnp.put(np.zeros(4), [0, 2], [1.0, 2.0], inplace=False)
        array([1., 0., 2., 0.])
        >>> fnp.put(np.zeros((2, 2)), 3, 5.0, inplace=False)
        array([[0., 0.],
               [0., 5.]])
    """
    _check_inplace("put", inplace, "a = fnp.put(a, ind, v, inplace=False)")
    a = _arr(a)
    if not _traced(a, ind, v):
        return _eager_update(np.put, a, ind, v, mode=mode)
    if not has_tracer(v):
        v = _assigned(v, dtype_of(a))
        if v.size == 0:  # (NumPy's put of no values writes nothing, checks no index)
            return a
    n = int(np.prod(shape_of(a)))
    ind = _arr(ind)
    if isinstance(ind, Tracer):
        if mode == "raise":
            raise ConcretizationError("fnp.put(..., mode='raise') checks traced indices, which "
                                      "have no values under jit / vmap; pass mode='wrap' or "
                                      "mode='clip'")
        ind = cast(ravel(ind), np.dtype(np.intp))
        ind = remainder(ind, n) if mode == "wrap" else clip(ind, 0, n - 1)
        count = shape_of(ind)[0]
    else:
        ind = np.asarray(ind, np.intp).ravel()
        if mode == "raise":
            if ind.size and (ind.min() < -n or ind.max() >= n):
                raise IndexError(f"put: index {int(ind.min() if ind.min() < -n else ind.max())} "
                                 f"is out of bounds for size {n}")
            ind = ind % max(n, 1)
        else:
            ind = ind % n if mode == "wrap" else np.clip(ind, 0, n - 1)
        count = ind.size
    if count == 0:
        return a
    vals = _cycled(ravel(_arr(v)), count, dtype_of(a))
    return reshape(_flat_set(ravel(a), ind, vals), shape_of(a))


def put_along_axis(arr, indices, values, axis, inplace=True):
    """`numpy.put_along_axis`, functional (JAX's signature): a new array with `values` put at
    `indices` along `axis` (None: of the flattened array). Pass `inplace=False`.

    Example:
        >>> x = np.array([[3.0, 1.0], [2.0, 5.0]])
        >>> fnp.put_along_axis(x, np.array([[0], [1]]), 0.0, axis=1, inplace=False)
        array([[0., 1.],
               [2., 0.]])
    """
    _check_inplace("put_along_axis", inplace,
                   "arr = fnp.put_along_axis(arr, indices, values, axis, inplace=False)")
    arr, indices = _arr(arr), _arr(indices)
    if not _traced(arr, indices, values):
        return _eager_update(np.put_along_axis, arr, indices, values, axis=axis)
    shape = shape_of(arr)
    if axis is None:
        if _ndim(indices) != 1:
            raise ValueError(f"put_along_axis: with axis=None, indices must be 1-d, got shape "
                             f"{shape_of(indices)}")
        flat_shape, ax = (int(np.prod(shape)),), 0
    else:
        flat_shape = shape
        if _ndim(indices) != len(shape):
            raise ValueError(f"put_along_axis: indices (shape {shape_of(indices)}) and arr "
                             f"(shape {shape}) must have the same number of dimensions")
        ax = strict_axis("put_along_axis", axis, len(shape))
    nd = len(flat_shape)
    full = tuple(d if i == ax else max(d, e) for i, (d, e) in
                 enumerate(zip(shape_of(indices), flat_shape)))
    idx = broadcast_to(indices, full)
    n = flat_shape[ax]
    idx = where(less(idx, 0), add(idx, n), idx) if is_traced(idx) else np.where(idx < 0, idx + n,
                                                                                 idx)
    strides = np.cumprod((flat_shape[1:] + (1,))[::-1])[::-1]
    flat = None
    for d in range(nd):
        part = idx if d == ax else _along(np.arange(full[d]), d, nd)
        term = multiply(part, int(strides[d]))
        flat = term if flat is None else add(flat, term)
    flat = ravel(broadcast_to(flat, full))
    values = cast(_arr(values), dtype_of(arr)) if has_tracer(values) else _assigned(
        values, dtype_of(arr))
    vals = ravel(_setitem_broadcast("put_along_axis", values, full))
    return reshape(_flat_set(ravel(arr), flat, vals), shape)


def _setitem_broadcast(fname, values, shape):
    """`values` broadcast to `shape` as NumPy's `arr[index] = values` does: leading length-1
    axes beyond the indexed shape are dropped first ((1, 2) values fill 2 positions)."""
    vs = shape_of(values)
    drop = 0
    while len(vs) - drop > len(shape) and vs[drop] == 1:
        drop += 1
    if drop:
        values = reshape(values, vs[drop:])
    try:
        return broadcast_to(values, shape)
    except ValueError:
        raise ValueError(f"{fname}: shape mismatch: value array of shape {vs} could not be "
                         f"broadcast to indexing result of shape {shape}") from None


def place(arr, mask, vals, *, inplace=True):
    """`numpy.place`, functional: a new array whose elements where `mask` is true are the
    values of `vals` in order (cycled). Pass `inplace=False`. A traced mask works too (the
    ranks of the true positions come from a cumulative sum).

    Example:
        >>> x = np.array([-1.0, 2.0, -3.0, -4.0])
        >>> fnp.place(x, x < 0, [7.0, 8.0], inplace=False)
        array([7., 2., 8., 7.])
    """
    _check_inplace("place", inplace, "arr = fnp.place(arr, mask, vals, inplace=False)")
    arr, mask = _arr(arr), _arr(mask)
    if not _traced(arr, mask, vals):  # (`vals` as given: NumPy converts a list unlike an array)
        return _eager_update(np.place, arr, mask, vals)
    vals = _masked_values("place", vals, dtype_of(arr))
    flat = ravel(arr)
    vals = ravel(vals)
    m = shape_of(vals)[0]
    if not isinstance(mask, Tracer):
        idx = np.nonzero(np.ravel(mask))[0]
        if idx.size == 0:
            return arr
        if m == 0:
            raise ValueError("place: cannot insert from an empty array (vals is empty)")
        return reshape(_flat_set(flat, idx, _cycled(vals, idx.size, dtype_of(arr))),
                       shape_of(arr))
    if m == 0:
        return arr
    mflat = ravel(mask) if dtype_of(mask) == np.bool_ else ravel(mask != 0)
    rank = subtract(cumsum(cast(mflat, np.dtype(np.intp))), 1)
    picked = take(cast(vals, dtype_of(arr)), remainder(clip(rank, 0, None), m))
    return reshape(where(mflat, picked, flat), shape_of(arr))


def _masked_values(fname, values, dtype):
    """place / putmask values written into an array of `dtype`: an array (traced or not) must
    cast safely, as NumPy's check (a float64 array into a float32 one raises); Python numbers
    and lists convert with NumPy's range checks (`_assigned`)."""
    values = lift(values)
    if isinstance(values, Tracer) or (isinstance(values, np.ndarray) and values.ndim):
        src = dtype_of(values)
        if not np.can_cast(src, dtype, "safe"):
            raise TypeError(f"{fname}: Cannot cast array data from {src!r} to {dtype!r} "
                            "according to the rule 'safe'")
        return cast(values, dtype) if isinstance(values, Tracer) else values.astype(dtype)
    if isinstance(values, np.ndarray) and not np.can_cast(values.dtype, dtype, "safe"):
        raise TypeError(f"{fname}: Cannot cast scalar from {values.dtype!r} to {dtype!r} "
                        "according to the rule 'safe'")
    return _assigned(values, dtype)


def putmask(a, mask, values, *, inplace=True):
    """`numpy.putmask`, functional: a new array with `a.flat[i] = values.flat[i % len]` where
    `mask` is true. Pass `inplace=False`.

    Example:
        >>> x = np.array([-1.0, 2.0, -3.0])
        >>> fnp.putmask(x, x < 0, 0.0, inplace=False)
        array([0., 2., 0.])
    """
    _check_inplace("putmask", inplace, "a = fnp.putmask(a, mask, values, inplace=False)")
    a, mask = _arr(a), _arr(mask)
    if not _traced(a, mask, values):
        return _eager_update(np.putmask, a, mask, values)
    shape = shape_of(a)
    if shape_of(mask) != shape:
        raise ValueError(f"putmask: mask and data must be the same size, got mask shape "
                         f"{shape_of(mask)} and data shape {shape}")
    vals = ravel(_masked_values("putmask", values, dtype_of(a)))
    if shape_of(vals)[0] == 0:
        return a
    full = reshape(_cycled(vals, int(np.prod(shape)), dtype_of(a)), shape)
    return where(mask, full, a)


def copyto(dst, src, casting="same_kind", where=True):
    """`numpy.copyto` writes into `dst` in place, which fungrad does not do: this raises a
    TypeError naming the functional form
    `dst = fnp.where(where, fnp.astype(fnp.broadcast_to(src, dst.shape), dst.dtype), dst)`.

    Example:
        >>> fnp.copyto(np.zeros(2), 1.0)
        Traceback (most recent call last):
            ...
        TypeError: fnp.copyto writes into its argument in place, which fungrad arrays ...
        >>> dst = np.zeros(2)
        >>> fnp.where(True, fnp.astype(fnp.broadcast_to(1.0, fnp.shape(dst)), dst.dtype), dst)
        array([1., 1.])
    """
    raise _in_place_error("copyto", "dst = fnp.where(where, fnp.astype(fnp.broadcast_to(src, "
                          "fnp.shape(dst)), dst.dtype), dst)")


# =========================================================================== products
def kron(a, b):
    """`numpy.kron`: the Kronecker product (one broadcast multiply and a reshape).

    Example:
        >>> fnp.kron(np.array([1.0, 10.0]), np.array([1.0, 2.0, 3.0]))
        array([ 1.,  2.,  3., 10., 20., 30.])
        >>> fnp.kron(np.eye(2), np.array([[1.0, 2.0]]))
        array([[1., 2., 0., 0.],
               [0., 0., 1., 2.]])
    """
    a, b = _arr(a), _arr(b)
    if not is_traced(a, b):
        return np.kron(a, b)
    nb = _ndim(b)
    if _ndim(a) < nb:
        a = reshape(a, (1,) * (nb - _ndim(a)) + shape_of(a))
    na = _ndim(a)
    if na == 0 or nb == 0:
        return multiply(a, b)
    nd = max(na, nb)
    a_s = (1,) * (nd - na) + shape_of(a)
    b_s = (1,) * (nd - nb) + shape_of(b)
    a_x = reshape(a, tuple(v for d in a_s for v in (d, 1)))
    b_x = reshape(b, tuple(v for d in b_s for v in (1, d)))
    return reshape(multiply(a_x, b_x), tuple(p * q for p, q in zip(a_s, b_s)))


@functools.lru_cache(maxsize=None)
def _numpy_crosses_2_vectors() -> bool:
    """Whether the installed NumPy still takes 2-vectors in `cross` (deprecated in 2.0,
    removed later): traced values follow the installed NumPy's eager behaviour."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.ones(2), np.ones(2))
        except ValueError:
            return False
    return True


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """`numpy.cross` of 3-vectors (and of the deprecated 2-vectors) along `axisa` / `axisb`,
    broadcast over the other axes, the result's vectors along `axisc`.

    Example:
        >>> u, v = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
        >>> fnp.cross(u, v)
        array([0., 0., 1.])
        >>> fg.grad(lambda u: fnp.cross(u, v)[2])(np.array([1.0, 2.0, 3.0]))   # d(u0 v1 - u1 v0)/du
        array([1., 0., 0.])
    """
    a, b = _arr(a), _arr(b)
    if not is_traced(a, b):
        return np.cross(a, b, axisa, axisb, axisc, axis)
    if axis is not None:
        axisa = axisb = axisc = axis
    if _ndim(a) < 1 or _ndim(b) < 1:
        raise ValueError("cross: at least one array has zero dimension")
    a = moveaxis(a, strict_axis("cross (axisa)", axisa, _ndim(a)), -1)
    b = moveaxis(b, strict_axis("cross (axisb)", axisb, _ndim(b)), -1)
    na, nb = shape_of(a)[-1], shape_of(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(f"cross: incompatible dimensions for cross product (dimension must "
                         f"be 2 or 3), got vectors of length {na} and {nb}")
    if (na == 2 or nb == 2) and not _numpy_crosses_2_vectors():
        raise ValueError(f"cross: both input arrays must be (arrays of) 3-dimensional "
                         f"vectors, got {na} and {nb} dimensional ones (NumPy "
                         f"{np.__version__} no longer takes 2-dimensional vectors)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    dt = np.promote_types(dtype_of(a), dtype_of(b))
    a, b = cast(a, dt), cast(b, dt)

    def comp(x, i):
        return getitem(x, (Ellipsis, i))
    a0, a1, b0, b1 = comp(a, 0), comp(a, 1), comp(b, 0), comp(b, 1)
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if na == 2 and nb == 2:
        return z
    if na == 2:
        b2 = comp(b, 2)
        c0, c1 = multiply(a1, b2), negative(multiply(a0, b2))
    elif nb == 2:
        a2 = comp(a, 2)
        c0, c1 = negative(multiply(a2, b1)), multiply(a2, b0)
    else:
        a2, b2 = comp(a, 2), comp(b, 2)
        c0 = subtract(multiply(a1, b2), multiply(a2, b1))
        c1 = subtract(multiply(a2, b0), multiply(a0, b2))
    shape = _broadcast_shapes("cross", ("a", shape_of(a0)), ("b", shape_of(b0)))
    parts = [expand_dims(broadcast_to_shape(c, shape), -1) for c in (c0, c1, z)]
    out = concatenate(parts, axis=-1)
    return moveaxis(out, -1, strict_axis("cross (axisc)", axisc, len(shape) + 1))


# =========================================================================== broadcasting, dtypes
def broadcast_arrays(*args):
    """`numpy.broadcast_arrays`: the arguments broadcast to one shape (a tuple).

    Example:
        >>> x, y = fnp.broadcast_arrays(np.array([1.0, 2.0]), np.array([[10.0], [20.0]]))
        >>> x
        array([[1., 2.],
               [1., 2.]])
        >>> y
        array([[10., 10.],
               [20., 20.]])
    """
    args = [_arr(a) for a in args]
    if not is_traced(*args):
        return np.broadcast_arrays(*args)
    shape = _broadcast_shapes("broadcast_arrays",
                              *[(f"argument {i}", shape_of(a)) for i, a in enumerate(args)])
    return tuple(broadcast_to_shape(a, shape) if is_traced(a) else np.broadcast_to(a, shape)
                 for a in args)


def broadcast_shapes(*args) -> tuple:
    """`numpy.broadcast_shapes`: the shape the given shapes broadcast to.

    Example:
        >>> fnp.broadcast_shapes((2, 1), (3,))
        (2, 3)
    """
    return np.broadcast_shapes(*args)


def astype(x, dtype, /, *, copy=True, device=None):
    """`numpy.astype`: `x` converted to `dtype` (differentiable between float and complex
    dtypes; integer results have no derivative).

    Example:
        >>> fnp.astype(np.array([1.5, -2.5]), np.int32)
        array([ 1, -2], dtype=int32)
        >>> fnp.astype(np.array([1.0, 2.0]), np.float32)
        array([1., 2.], dtype=float32)
    """
    x = _arr(x)
    if is_cupy(x) and device is None:  # (the method: NumPy 2's device= is NumPy's own)
        return x.astype(dtype, copy=copy)
    if not is_traced(x):
        return np.astype(x, dtype, copy=copy, device=device)
    return cast(x, np.dtype(dtype))
