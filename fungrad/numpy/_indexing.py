"""`x[idx]` on traced arrays: ints, slices, None, Ellipsis and integer (or concrete boolean)
arrays, lowered to the `getitem` primitive with a static index spec."""
from __future__ import annotations

import numpy as np

from ..backend import asarray, is_cupy, one_device, to_host
from ..core.trace import Tracer
from ..lax.indexing import getitem_p


def same_device(*xs):
    """`xs` for a NumPy function that a CuPy array among them dispatches to CuPy's: the
    NumPy arrays and lists of numbers among them move to its GPU (CuPy's functions take no
    host arrays). Unchanged without a CuPy array."""
    return one_device(*xs, lists_as_arrays=True)


def _index_error(msg, shape):
    return IndexError(f"index: {msg} (array shape {shape})")


class _ScalarBoolIndex(IndexError):
    """A 0-d boolean index (True, np.True_, np.array(False)): `getitem` rewrites it."""


def getitem(x, idx):
    """NumPy indexing for a traced `x`; its gradient scatters (adds) back into place."""
    if not isinstance(x, Tracer):  # a constant indexed with traced index arrays
        x = asarray(x)
    shape = x.aval.shape if isinstance(x, Tracer) else x.shape
    try:
        spec, arrays, _ = parse_index(shape, idx)
    except _ScalarBoolIndex:
        x, idx = _scalar_bools_as_arrays(x, shape, idx)
        shape = x.aval.shape if isinstance(x, Tracer) else x.shape
        spec, arrays, _ = parse_index(shape, idx)
    return getitem_p.bind(x, *arrays, spec=tuple(spec))


def _is_scalar_bool(i):
    return isinstance(i, (bool, np.bool_)) or (
        type(i) is np.ndarray and i.dtype == np.bool_ and i.ndim == 0)


def _scalar_bools_as_arrays(x, shape, idx):
    """NumPy reads a 0-d boolean index as an advanced index of shape (1,) (True) or (0,)
    (False) along a new unit axis: x gets that axis (a reshape) and the boolean becomes an
    index array of zeros, so it broadcasts with (and moves like) the other index arrays."""
    from ._shape import reshape
    idx = idx if isinstance(idx, tuple) else (idx,)
    consumed = [0 if i is None or i is Ellipsis or _is_scalar_bool(i) else
                (len(i.aval.shape) if isinstance(i, Tracer) else np.ndim(i))
                if _is_bool_array(i) else 1 for i in idx]
    dim, new_shape, new_idx, rest = 0, [], [], list(shape)
    for i, n in zip(idx, consumed):
        if i is Ellipsis:
            n = len(shape) - sum(consumed)
        if _is_scalar_bool(i):
            new_shape.append(1)
            new_idx.append(np.zeros(1 if i else 0, np.intp))
            continue
        new_shape += rest[dim:dim + n]
        dim += n
        new_idx.append(i)
    new_shape += rest[dim:]
    return reshape(x, tuple(new_shape)), tuple(new_idx)


def parse_index(shape, idx, check_bounds=True):
    """NumPy index `idx` for an array of `shape` -> (spec, arrays, axes): `getitem`'s static
    spec, its index-array operands, and per spec entry the axis of `shape` it indexes (None
    for None and Ellipsis). Concrete boolean masks become their `nonzero` arrays.
    `check_bounds=False` leaves out-of-bounds ints and concrete arrays to the caller
    (`x.at[idx]`'s `mode=`)."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    spec = []
    axes = []
    arrays = []
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis and not (
        _is_bool_array(i)))
    n_real += sum(len(i.aval.shape) if isinstance(i, Tracer) else np.ndim(i)
                  for i in idx if _is_bool_array(i))
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise _index_error("an index can only have a single ellipsis ('...')", shape)
    if n_real > len(shape) and any(_is_scalar_bool(i) for i in idx):
        raise _ScalarBoolIndex("index: a 0-d boolean index consumes no dimension")
    if n_real > len(shape):
        raise _index_error(f"too many indices: {n_real} given for {len(shape)} dimensions", shape)
    dim = 0
    for i in idx:
        if i is None:
            spec.append(None)
            axes.append(None)
        elif i is Ellipsis:
            spec.append(Ellipsis)
            axes.append(None)
            dim = len(shape) - (n_real - dim)
        elif _is_scalar_bool(i):
            raise _ScalarBoolIndex(f"index: a 0-d boolean index ({i!r}) is not supported "
                                   f"here (array shape {shape}); write x[None] for True, or "
                                   "x[None][:0] for False")
        elif isinstance(i, (int, np.integer)):
            n = shape[dim]
            if check_bounds and not -n <= i < n:
                raise _index_error(f"index {i} is out of bounds for axis {dim} with size {n}",
                                   shape)
            spec.append(("int", int(i)))
            axes.append(dim)
            dim += 1
        elif isinstance(i, slice):
            for v in (i.start, i.stop, i.step):
                if isinstance(v, Tracer):
                    raise _index_error(
                        "slice bounds must be concrete Python ints (the result's shape depends "
                        "on them); for x[i:i + n] with a traced start i, use "
                        "fg.lax.dynamic_slice_in_dim(x, i, n, axis=0) (the start is clamped "
                        "to fit), gather with fnp.take(x, i + fnp.arange(n), axis=0), or mark "
                        "i static (static_argnums)", shape)
            spec.append(("slice", _int(i.start), _int(i.stop), _int(i.step)))
            axes.append(dim)
            dim += 1
        elif _is_bool_array(i):
            if isinstance(i, Tracer):
                raise _index_error("boolean mask indexing with a traced mask has a data-"
                                   "dependent shape; use fnp.where(mask, x, 0) instead", shape)
            mask = asarray(i)
            if mask.shape != shape[dim:dim + mask.ndim]:
                raise _index_error(f"boolean index of shape {mask.shape} does not match the "
                                   f"indexed dimensions {shape[dim:dim + mask.ndim]}", shape)
            for j, nz in enumerate(np.nonzero(mask)):
                spec.append(("array", len(arrays)))
                axes.append(dim + j)
                arrays.append(nz)
            dim += mask.ndim
        else:
            arr = i if isinstance(i, Tracer) else asarray(i)
            if arr.size == 0 and isinstance(i, (list, tuple)):  # (NumPy: [] is an intp index)
                arr = arr.astype(np.intp)
            if not np.issubdtype(arr.dtype, np.integer):
                raise _index_error(f"arrays used as indices must be of integer (or boolean) "
                                   f"type, got {arr.dtype}", shape)
            if check_bounds and not isinstance(arr, Tracer) and arr.size:
                n = shape[dim]
                if arr.max() >= n or arr.min() < -n:
                    raise _index_error(f"index {int(arr.max() if arr.max() >= n else arr.min())} "
                                       f"is out of bounds for axis {dim} with size {n}", shape)
            spec.append(("array", len(arrays)))
            axes.append(dim)
            arrays.append(arr)
            dim += 1
    return tuple(spec), arrays, axes


def _int(v):
    return None if v is None else int(v)


def _is_bool_array(i):
    dt = getattr(i, "dtype", None)
    if dt is None and isinstance(i, list):
        dt = np.asarray(i).dtype
    return dt is not None and dt == np.bool_ and (
        len(i.aval.shape) if isinstance(i, Tracer) else np.ndim(i)) > 0


# --------------------------------------------------------------------------- gathers
def _lifted(a):
    from ._base import lift
    return lift(a)


def _axis(fname, axis, ndim):
    from ._base import single_axis
    return single_axis(fname, axis, ndim)


def _flat(a):
    from ._shape import ravel
    return ravel(a) if isinstance(a, Tracer) else np.ravel(a)


def take_along_axis(arr, indices, axis):
    """`numpy.take_along_axis`: `arr` gathered at `indices` along `axis` (None: flattened);
    the gradient scatters (adds) back.

    Example:
        >>> x = np.array([[3.0, 1.0], [2.0, 5.0]])
        >>> fnp.take_along_axis(x, fnp.argsort(x, axis=1), axis=1)
        array([[1., 3.],
               [2., 5.]])
        >>> fg.grad(lambda x: fnp.sum(fnp.take_along_axis(x, np.array([[0, 0]]), axis=1)))(x)
        array([[2., 0.],
               [2., 0.]])
    """
    arr, indices = _lifted(arr), _lifted(indices)
    if not isinstance(arr, Tracer) and not isinstance(indices, Tracer):
        return np.take_along_axis(*same_device(arr, indices), axis)
    if axis is None:
        arr, axis = _flat(arr), 0
    shape = np.shape(arr) if not isinstance(arr, Tracer) else arr.aval.shape
    ishape = indices.aval.shape if isinstance(indices, Tracer) else np.shape(indices)
    if len(ishape) != len(shape):
        raise ValueError(f"take_along_axis: indices (shape {ishape}) and arr (shape {shape}) "
                         "must have the same number of dimensions")
    ax = _axis("take_along_axis", axis, len(shape))
    nd = len(shape)
    idx = tuple(indices if d == ax else
                np.arange(shape[d]).reshape((1,) * d + (-1,) + (1,) * (nd - d - 1))
                for d in range(nd))
    return getitem(arr, idx)


def take(a, indices, axis=None, out=None, mode="raise"):
    """`numpy.take`: elements at `indices` along `axis` (None: of the flattened array);
    `mode="wrap"` / `"clip"` bring out-of-range indices back (modulo the length / to the
    ends), as NumPy and `jax.numpy.take` do.

    Example:
        >>> fnp.take(np.array([10.0, 20.0, 30.0]), [2, 0])
        array([30., 10.])
        >>> fnp.take(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [0, 2], axis=1)
        array([[1., 3.],
               [4., 6.]])
        >>> fnp.take(np.array([10.0, 20.0, 30.0]), [4, -5], mode="clip")
        array([30., 10.])
    """
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    a = _lifted(a)
    if (not isinstance(a, Tracer) and not isinstance(indices, Tracer)
            and (mode == "raise" or not is_cupy(a))):  # (CuPy's take has no mode)
        extra = {} if mode == "raise" else {"mode": mode}
        return np.take(*same_device(a, indices), axis, out, **extra)
    if out is not None:
        raise TypeError("take: out= writes in place, which traced values cannot; use the "
                        "returned array")
    if indices is None or isinstance(indices, (slice, type(Ellipsis))):  # (not an index array)
        raise TypeError(f"take: indices must be an integer array, got {indices!r}")
    indices = _lifted(indices)
    if type(indices) in (list, tuple):
        indices = np.asarray(indices)
    if getattr(indices, "dtype", None) == np.bool_:
        # NumPy's take casts bools to the indices 0 and 1 (not a mask, as x[bools] is)
        from ._base import cast
        indices = cast(indices, np.intp)
    if axis is None or not np.ndim(a):  # (NumPy takes a 0-d array's axis 0 / -1 as 1-d's)
        a = _flat(a)
        axis = 0 if axis is None else axis
    shape = np.shape(a) if not isinstance(a, Tracer) else a.aval.shape
    ax = _axis("take", axis, len(shape))
    if mode != "raise":
        from ._elementwise import clip, remainder
        n = shape[ax]
        indices = remainder(indices, n) if mode == "wrap" else clip(indices, 0, n - 1)
    return getitem(a, (slice(None),) * ax + (indices,))


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """`numpy.argsort` (None: of the flattened array); integer output, no derivative.

    Example:
        >>> fnp.argsort(np.array([3.0, 1.0, 2.0]))
        array([1, 2, 0])
        >>> fnp.argsort(np.array([[3.0, 1.0], [2.0, 4.0]]), axis=0)
        array([[1, 0],
               [0, 1]])
    """
    a = _lifted(a)
    if not isinstance(a, Tracer):
        if is_cupy(a):  # (CuPy sorts stably; its argsort takes no kind, order or stable)
            return np.argsort(a, axis=axis)
        return np.argsort(a, axis=axis, kind=kind, order=order, stable=stable)
    if order is not None:
        raise ValueError("argsort: order= applies to structured arrays, which cannot be traced")
    from ..lax.reduce import argsort_p
    if axis is None or not a.aval.ndim:  # (NumPy: a 0-d array's argsort is [0], any axis)
        a, axis = _flat(a), 0
    kind = "stable" if stable else kind
    return argsort_p.bind(a, axis=_axis("argsort", axis, a.aval.ndim), kind=kind,
                          index_dtype=np.dtype(np.intp))


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """`numpy.sort` (None: the flattened array); the gradient goes back to where each
    element came from.

    Example:
        >>> fnp.sort(np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), axis=1)
        array([[1., 2., 3.],
               [0., 4., 5.]])
        >>> fg.grad(lambda x: fnp.sort(x)[0])(np.array([3.0, 1.0, 2.0]))   # the smallest is x[1]
        array([0., 1., 0.])
    """
    a = _lifted(a)
    if not isinstance(a, Tracer):
        if is_cupy(a):  # (CuPy sorts stably; its sort takes no kind, order or stable)
            return np.sort(a, axis=axis)
        return np.sort(a, axis=axis, kind=kind, order=order, stable=stable)
    if axis is None:
        a, axis = _flat(a), 0
    # always a stable argsort: the values are the same for every kind, and tied elements keep
    # their order, so the gradient of a tie goes where JAX's stable sort sends it (NumPy's
    # default quicksort orders ties arbitrarily); quantiles and medians follow
    if order is not None:
        raise ValueError("sort: order= applies to structured arrays, which cannot be traced")
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"sort: kind={kind!r} is not one of 'quicksort', 'mergesort', "
                         "'heapsort', 'stable'")
    return take_along_axis(a, argsort(a, axis, stable=True), axis)


def repeat(a, repeats, axis=None):
    """`numpy.repeat` with concrete `repeats` (the output shape depends on them).

    Example:
        >>> fnp.repeat(np.array([1.0, 2.0]), 2)
        array([1., 1., 2., 2.])
        >>> fnp.repeat(np.array([[1.0, 2.0], [3.0, 4.0]]), [1, 2], axis=0)
        array([[1., 2.],
               [3., 4.],
               [3., 4.]])
    """
    a = _lifted(a)
    if not isinstance(a, Tracer):
        if is_cupy(a) and hasattr(repeats, "shape"):  # (CuPy takes ints, lists, tuples)
            repeats = to_host(repeats).tolist()
        return np.repeat(a, repeats, axis)
    if axis is None or not a.aval.ndim:  # (NumPy repeats a 0-d array as a 1-d one)
        a = _flat(a)
        axis = 0 if axis is None else axis
    ax = _axis("repeat", axis, a.aval.ndim)
    # a traced `repeats` raises ConcretizationError (the shape needs its value); a Python
    # scalar stays one (NumPy truncates 2.0 as a count, but refuses a float array)
    counts = repeats if type(repeats) in (int, float, bool) else to_host(repeats)
    idx = np.repeat(np.arange(a.aval.shape[ax]), counts)
    return take(a, idx, ax)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """`numpy.diagonal`: the diagonal of the (axis1, axis2) planes, as the last axis.

    Example:
        >>> fnp.diagonal(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([1., 4.])
        >>> fnp.diagonal(np.array([[1.0, 2.0], [3.0, 4.0]]), offset=1)
        array([2.])
    """
    a = _lifted(a)
    if not isinstance(a, Tracer):
        return np.diagonal(a, offset, axis1, axis2)
    from ._shape import moveaxis
    nd = a.aval.ndim
    if nd < 2:
        raise ValueError(f"diagonal: the array must have at least 2 dimensions, got shape "
                         f"{a.aval.shape}")
    i, j = _axis("diagonal", axis1, nd), _axis("diagonal", axis2, nd)
    if i == j:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    x = moveaxis(a, (i, j), (-2, -1))
    n1, n2 = x.aval.shape[-2:]
    k = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rows = np.arange(k) + max(-offset, 0)
    cols = np.arange(k) + max(offset, 0)
    return getitem(x, (Ellipsis, rows, cols))


def nonzero(a):
    """`numpy.nonzero`: its output shape depends on the values, so a traced `a` must have
    a concrete value (it does under grad and jvp; under jit and vmap this raises
    ConcretizationError: use fnp.where(cond, x, y) instead).

    Example: `rows, cols = fnp.nonzero(x > 0)`
    """
    a = _lifted(a)
    if isinstance(a, Tracer):
        a = a.to_concrete("fnp.nonzero(x) (its output shape depends on the values)")
    return np.nonzero(a)


def compress(condition, a, axis=None):
    """`numpy.compress` with a concrete `condition` (the output shape depends on it).

    Example:
        >>> fnp.compress([True, False, True], np.array([1.0, 2.0, 3.0]))
        array([1., 3.])
        >>> fnp.compress([False, True], np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)
        array([[3., 4.]])
    """
    a = _lifted(a)
    if not isinstance(a, Tracer) and not isinstance(condition, Tracer):
        return np.compress(*same_device(condition, a), axis)
    idx, = nonzero(condition)
    return take(a, idx, axis)


def searchsorted(a, v, side="left", sorter=None):
    """`numpy.searchsorted` for a 1-D sorted `a`: integer output, no derivative (a count of
    the elements before each `v`).

    Example:
        >>> fnp.searchsorted(np.array([1.0, 2.0, 3.0]), np.array([0.5, 2.0, 3.5]))
        array([0, 1, 3])
        >>> fnp.searchsorted(np.array([1.0, 2.0, 3.0]), 2.0, side="right")
        np.int64(2)
    """
    a, v = _lifted(a), _lifted(v)
    if not isinstance(a, Tracer) and not isinstance(v, Tracer):
        a, v, sorter = same_device(a, v, sorter)
        return np.searchsorted(a, v, side, sorter)
    from ..lax.search import searchsorted as _searchsorted
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    from ._base import check_numbers
    check_numbers("searchsorted", a=a, v=v)
    if len(np.shape(a) if not isinstance(a, Tracer) else a.aval.shape) != 1:
        raise ValueError("searchsorted: a must be 1-D")
    if sorter is not None:
        from ._base import shape_of
        if shape_of(sorter) != shape_of(a):  # (NumPy: the permutation that sorts a)
            raise ValueError(f"searchsorted: sorter of shape {shape_of(sorter)} must have "
                             f"a's shape {shape_of(a)}")
        a = take(a, sorter)
    from ._dtypes import result_type
    from ._base import cast
    if isinstance(v, (list, tuple)):  # (values as NumPy reads them: result_type takes no list)
        v = np.asarray(v)
    dt = result_type(a, v)  # (NumPy compares in the common dtype)
    return _searchsorted(cast(a, dt), cast(v, dt), side)
