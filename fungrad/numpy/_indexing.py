"""`x[idx]` on traced arrays: ints, slices, None, Ellipsis and integer (or concrete boolean)
arrays, lowered to the `getitem` primitive with a static index spec."""
from __future__ import annotations

import numpy as np

from ..core.trace import Tracer
from ..lax.indexing import getitem_p


def _index_error(msg, shape):
    return IndexError(f"index: {msg} (array shape {shape})")


def getitem(x, idx):
    """NumPy indexing for a traced `x`; its gradient scatters (adds) back into place."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    shape = x.aval.shape
    spec = []
    arrays = []
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis and not (
        _is_bool_array(i)))
    n_real += sum(len(i.aval.shape) if isinstance(i, Tracer) else np.ndim(i)
                  for i in idx if _is_bool_array(i))
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise _index_error("an index can only have a single ellipsis ('...')", shape)
    if n_real > len(shape):
        raise _index_error(f"too many indices: {n_real} given for {len(shape)} dimensions", shape)
    dim = 0
    for i in idx:
        if i is None:
            spec.append(None)
        elif i is Ellipsis:
            spec.append(Ellipsis)
            dim = len(shape) - (n_real - dim)
        elif isinstance(i, (bool, np.bool_)):
            raise _index_error("a bare boolean index is not supported", shape)
        elif isinstance(i, (int, np.integer)):
            n = shape[dim]
            if not -n <= i < n:
                raise _index_error(f"index {i} is out of bounds for axis {dim} with size {n}",
                                   shape)
            spec.append(("int", int(i)))
            dim += 1
        elif isinstance(i, slice):
            for v in (i.start, i.stop, i.step):
                if isinstance(v, Tracer):
                    raise _index_error("slice bounds must be concrete Python ints; traced "
                                       "bounds need fg.lax.dynamic_slice", shape)
            spec.append(("slice", _int(i.start), _int(i.stop), _int(i.step)))
            dim += 1
        elif _is_bool_array(i):
            if isinstance(i, Tracer):
                raise _index_error("boolean mask indexing with a traced mask has a data-"
                                   "dependent shape; use fnp.where(mask, x, 0) instead", shape)
            mask = np.asarray(i)
            if mask.shape != shape[dim:dim + mask.ndim]:
                raise _index_error(f"boolean index of shape {mask.shape} does not match the "
                                   f"indexed dimensions {shape[dim:dim + mask.ndim]}", shape)
            for nz in np.nonzero(mask):
                spec.append(("array", len(arrays)))
                arrays.append(nz)
            dim += mask.ndim
        else:
            arr = i if isinstance(i, Tracer) else np.asarray(i)
            if not np.issubdtype(arr.dtype, np.integer):
                raise _index_error(f"arrays used as indices must be of integer (or boolean) "
                                   f"type, got {arr.dtype}", shape)
            if not isinstance(arr, Tracer) and arr.size:
                n = shape[dim]
                if arr.max() >= n or arr.min() < -n:
                    raise _index_error(f"index {int(arr.max() if arr.max() >= n else arr.min())} "
                                       f"is out of bounds for axis {dim} with size {n}", shape)
            spec.append(("array", len(arrays)))
            arrays.append(arr)
            dim += 1
    return getitem_p.bind(x, *arrays, spec=tuple(spec))


def _int(v):
    return None if v is None else int(v)


def _is_bool_array(i):
    dt = getattr(i, "dtype", None)
    if dt is None and isinstance(i, list):
        dt = np.asarray(i).dtype
    return dt is not None and dt == np.bool_ and (
        len(i.aval.shape) if isinstance(i, Tracer) else np.ndim(i)) > 0
