"""Descriptive statistics of `jax.scipy.stats`: sem, rankdata, mode. Written with sorts and
cumulative extrema along the last axis, so they work under jit and vmap; sem and mode's
value differentiate (ranks and counts are integers)."""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from ...core.dtypes import is_inexact as _is_inexact

from ... import lax
from ... import numpy as fnp
from ._util import Array, ArrayLike

__all__ = ["sem", "rankdata", "mode", "ModeResult"]


class ModeResult(NamedTuple):
    """`mode`'s result: the most frequent value and how often it occurs.

    Example:
        >>> fg.scipy.stats.mode(np.array([1, 2, 2, 3]))
        ModeResult(mode=array(2), count=array(2))
    """
    mode: Array
    count: Array


def _check_nan_policy(fname, nan_policy, allowed):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"fungrad.scipy.stats.{fname}: nan_policy must be 'propagate', "
                         f"'omit' or 'raise', got {nan_policy!r}")
    if nan_policy not in allowed:
        raise NotImplementedError(f"fungrad.scipy.stats.{fname}: nan_policy={nan_policy!r} "
                                  f"is not supported (use one of {list(allowed)}), as in "
                                  "jax.scipy.stats")


def sem(a: ArrayLike, axis: Optional[int] = 0, ddof: int = 1, nan_policy: str = "propagate",
        *, keepdims: bool = False) -> Array:
    """Standard error of the mean, `std(a, ddof=ddof) / sqrt(n)` along `axis` (None: all of
    a); nan_policy='omit' leaves NaNs out (n counts the others).

    Example:
        >>> fg.scipy.stats.sem(np.array([1.0, 2.0, 4.0]))
        array(0.8819171)
        >>> fg.grad(lambda a: fg.scipy.stats.sem(a))(np.array([1.0, 2.0, 3.0]))
        array([-0.28867513,  0.        ,  0.28867513])
    """
    _check_nan_policy("sem", nan_policy, ("propagate", "omit"))
    a = fnp.asarray(a)
    if not _is_inexact(a.dtype):  # (bfloat16 stays bfloat16)
        a = a.astype(np.float64)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    if nan_policy == "omit":
        n = fnp.sum(fnp.logical_not(fnp.isnan(a)), axis=axis, keepdims=keepdims)
        return fnp.asarray(fnp.nanstd(a, axis=axis, ddof=ddof, keepdims=keepdims)
                           / fnp.sqrt(n.astype(a.dtype)))
    n = a.shape[axis]
    return fnp.asarray(fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims)
                       / np.sqrt(n).astype(a.dtype))


def _runs(s):
    """For `s` sorted along the last axis: the first and last index of each element's run of
    equal values (NaNs equal each other), and where runs start."""
    n = s.shape[-1]
    both_nan = fnp.logical_and(fnp.isnan(s[..., 1:]), fnp.isnan(s[..., :-1]))
    new = fnp.logical_and(s[..., 1:] != s[..., :-1], fnp.logical_not(both_nan))
    edge = fnp.ones(s.shape[:-1] + (1,), dtype=bool)
    starts = fnp.concatenate([edge, new], axis=-1)
    ends = fnp.concatenate([new, edge], axis=-1)
    idx = fnp.broadcast_to(fnp.arange(n), s.shape)
    first = lax.cummax(fnp.where(starts, idx, 0), axis=s.ndim - 1)
    last = lax.cummin(fnp.where(ends, idx, n - 1), axis=s.ndim - 1, reverse=True)
    return first, last, starts


def rankdata(a: ArrayLike, method: str = "average", *, axis: Optional[int] = None,
             nan_policy: str = "propagate") -> Array:
    """Ranks from 1 of the values of `a` (flattened when axis is None, else along axis), ties
    by `method`: 'average', 'min', 'max', 'dense', 'ordinal'. Ranks are float64, but for
    integer or bool input with a method other than 'average' (int64, as SciPy's); NaN
    anywhere in a slice makes its ranks NaN (SciPy's 'propagate').

    Example:
        >>> fg.scipy.stats.rankdata(np.array([3.0, 1.0, 1.0, 2.0]))
        array([4. , 1.5, 1.5, 3. ])
        >>> fg.scipy.stats.rankdata(np.array([3, 1, 1, 2]), method="min")
        array([4, 1, 1, 3])
    """
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"fungrad.scipy.stats.rankdata: unknown method {method!r}; use "
                         "'average', 'min', 'max', 'dense' or 'ordinal'")
    _check_nan_policy("rankdata", nan_policy, ("propagate",))
    a = fnp.asarray(a)
    if axis is None:
        a, axis = fnp.ravel(a), -1
    a = fnp.moveaxis(a, axis, -1)
    last_axis = a.ndim - 1
    order = fnp.argsort(a, axis=-1, stable=True)
    inv = fnp.argsort(order, axis=-1, stable=True)   # the inverse permutation
    if method == "ordinal":
        ranks = inv + 1
    else:
        s = fnp.take_along_axis(a, order, axis=-1)
        first, last, starts = _runs(s)
        if method == "dense":
            sorted_ranks = fnp.cumsum(starts.astype(np.int64), axis=last_axis)
        elif method == "min":
            sorted_ranks = first + 1
        elif method == "max":
            sorted_ranks = last + 1
        else:
            sorted_ranks = 0.5 * (first + last) + 1.0
        ranks = fnp.take_along_axis(sorted_ranks, inv, axis=-1)
    if method == "average" or np.issubdtype(a.dtype, np.inexact):
        # float ranks for float input, whatever the method: a NaN in a slice makes its ranks
        # NaN (SciPy's int64 ranks become float64 NaNs there; a traced dtype cannot depend
        # on the values, so float input always ranks in float64, as JAX's)
        ranks = ranks.astype(np.float64)
        if np.issubdtype(a.dtype, np.inexact):
            ranks = fnp.where(fnp.any(fnp.isnan(a), axis=-1, keepdims=True), np.nan, ranks)
    else:
        ranks = ranks.astype(np.int64)
    return fnp.moveaxis(ranks, -1, axis)


def mode(a: ArrayLike, axis: Optional[int] = 0, nan_policy: str = "propagate",
         keepdims: bool = False) -> ModeResult:
    """The most frequent value along `axis` (None: of all of a) and its count; among ties the
    smallest value (SciPy's); NaNs count as one value.

    Example:
        >>> fg.scipy.stats.mode(np.array([3.0, 1.0, 3.0, 1.0, 2.0]))
        ModeResult(mode=array(1.), count=array(2))
        >>> fg.scipy.stats.mode(np.array([[1.0, 2.0, 2.0], [5.0, 5.0, 4.0]]), axis=1).mode
        array([2., 5.])
    """
    _check_nan_policy("mode", nan_policy, ("propagate",))
    a = fnp.asarray(a)
    if axis is None:
        a, axis = fnp.ravel(a), 0
        if keepdims:
            raise NotImplementedError("fungrad.scipy.stats.mode: keepdims=True with axis=None")
    a = fnp.moveaxis(a, axis, -1)
    s = fnp.sort(a, axis=-1)
    first, last, _ = _runs(s)
    counts = last - first + 1
    j = fnp.argmax(counts, axis=-1)[..., None]          # the first maximum: smallest value
    m = fnp.take_along_axis(s, j, axis=-1)
    c = fnp.take_along_axis(counts, j, axis=-1).astype(np.int64)
    if keepdims:
        return ModeResult(fnp.moveaxis(m, -1, axis), fnp.moveaxis(c, -1, axis))
    return ModeResult(m[..., 0], c[..., 0])
