"""Small helpers shared by activations and losses: array coercion and masked reductions."""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np

from .. import numpy as fnp
from ..core.dtypes import is_inexact
from ..lax.misc import stop_gradient

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts
Axis = Optional[Union[int, Tuple[int, ...]]]


def weak_scalar(v):
    """A NumPy scalar or 0-d array hyperparameter (rate, epsilon, momentum, delta) as a
    Python scalar: under NumPy's promotion rules a np.float64 one would make a float32
    layer's output (or state) float64, and a Python float keeps the activations' dtype.
    Anything else is returned unchanged (so bad values still get the caller's own error)."""
    if isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0:
        return v.item()
    return v


def inexact(x: ArrayLike) -> Array:
    """`x` as an array of a floating (or complex) dtype: integers and bools become float64,
    as JAX makes them its default float (NumPy's default here)."""
    x = fnp.asarray(x)
    return x if is_inexact(x.dtype) else x.astype(np.float64)


def masked_sum(x: Array, axis: Axis, where: Optional[ArrayLike], keepdims: bool = False) -> Array:
    """`sum(x, axis)` over the elements where `where` is True (all of them when None), as
    an array (NumPy's eager sum to 0-d gives a NumPy scalar)."""
    if where is not None:
        x = fnp.where(where, x, 0)
    return fnp.asarray(fnp.sum(x, axis=axis, keepdims=keepdims))


def masked_mean(x: Array, axis: Axis, where: Optional[ArrayLike], keepdims: bool = False) -> Array:
    """`mean(x, axis)` over the elements where `where` is True (all of them when None)."""
    if where is None:
        return fnp.asarray(fnp.mean(x, axis=axis, keepdims=keepdims))
    count = fnp.sum(fnp.broadcast_to(where, fnp.shape(x)), axis=axis, keepdims=keepdims)
    # the count in x's dtype: an int64 count would promote a float32 mean to float64
    return masked_sum(x, axis, where, keepdims) / count.astype(x.dtype)


def shift_for_exp(x: Array, axis: Axis, where: Optional[ArrayLike]) -> Array:
    """The (masked) maximum along `axis`, kept as length-1 axes, as a constant for the
    derivative (the shift cancels mathematically); 0 where it is not finite (an all-masked
    or all -inf slice), so that subtracting it never makes a nan of its own."""
    # (an empty slice's max is -inf, then 0; the initial only where x is empty, so that the
    # common case stays one reduction)
    kw = {"initial": -np.inf} if fnp.size(x) == 0 else {}
    m = fnp.max(x if where is None else fnp.where(where, x, -np.inf), axis=axis, keepdims=True,
                **kw)
    return stop_gradient(fnp.where(fnp.isfinite(m), m, 0))


def exp_limit(a) -> float:
    """The largest argument whose exp is finite in `a`'s dtype."""
    return float(np.log(fnp.finfo(fnp.asarray(a).dtype).max))


def positive_or_one(s: Array) -> Array:
    """`s` (a sum of exponentials: >= 0, or NaN, which must reach the result, as in JAX: a
    NaN logit makes its whole slice NaN) where it is not 0, else 1: the sum is 0 only for an
    all-masked slice, whose outputs are replaced anyway; this keeps log(s) and 1/s (and
    their derivatives, which are multiplied by a zero cotangent there) finite."""
    return fnp.where(s == 0, 1, s)


def squeeze_axes(x: Array, axis: Axis) -> Array:
    """Drop the length-1 axes a `keepdims=True` reduction over `axis` left."""
    return fnp.squeeze(x) if axis is None else fnp.squeeze(x, axis=axis)


def narrow_floats_computed_in_float32(module_globals: dict, names) -> None:
    """Wrap the public functions `names` of a module so that, called eagerly on ml_dtypes
    float arrays (bfloat16), they compute in float32 and round their float32 results back.

    Their bodies use Python operators with Python scalars (`0.5 * x`); on a plain NumPy
    bfloat16 array those are NumPy's, which promote to float32, while under a transform
    fungrad's rule keeps bfloat16. Computing in float32 and rounding once gives the dtype a
    traced call gives (and what XLA does for bfloat16 elementwise chains)."""
    import functools

    from ..core.trace import Tracer

    def wrap(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            narrow = None
            for a in args:
                if isinstance(a, Tracer):
                    return fn(*args, **kwargs)
                dt = getattr(a, "dtype", None)
                if type(a) is np.ndarray and dt.kind == "V" and is_inexact(dt):
                    narrow = dt
            if narrow is None:
                return fn(*args, **kwargs)
            wide = [a.astype(np.float32) if type(a) is np.ndarray and a.dtype == narrow else a
                    for a in args]
            out = fn(*wide, **kwargs)
            return out.astype(narrow) if getattr(out, "dtype", None) == np.float32 else out
        return wrapper

    for name in names:
        module_globals[name] = wrap(module_globals[name])
