"""fungrad.scipy.signal: N-d convolution and correlation (`scipy.signal`'s `convolve`,
`correlate`, `convolve2d`, `correlate2d`), differentiable in both inputs.

Every method ('auto', 'direct', 'fft') computes directly: 1-D inputs with
`fg.lax.signal`'s correlate1d primitive (np.convolve), N-d ones with
`fg.lax.conv_general_dilated` (one batch, one channel): the values agree with SciPy's FFT
method to rounding, and the derivatives are the convolution's own (a correlation with the
cotangent).

Example:
    >>> import numpy as np, fungrad.scipy.signal as fsig
    >>> fsig.convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    array([0. , 1. , 2.5, 4. , 1.5])
"""
from __future__ import annotations

from typing import Any

from .. import numpy as fnp
from ..backend import asarray as _asarray
from ..lax.convolution import conv_general_dilated as _conv_general_dilated
from ..lax.signal import correlate1d as _correlate1d
from ..numpy._base import (dtype_of as _dtype_of, is_traced as _is_traced, lift as _lift,
                           result_type as _result_type, shape_of as _shape_of)

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d"]
_MODES = ("full", "same", "valid")
_METHODS = ("auto", "direct", "fft")


def _check(fname, mode, method=None):
    if mode not in _MODES:
        raise ValueError(f"signal.{fname}: mode must be one of {_MODES}, got {mode!r}")
    if method is not None and method not in _METHODS:
        raise ValueError(f"signal.{fname}: method must be one of {_METHODS}, got {method!r}")


def _operands(fname, in1, in2, ndim=None):
    """Both inputs as arrays of their common dtype, of equal rank (`ndim` if given)."""
    # (a concrete array stays on its device: NumPy or CuPy)
    in1, in2 = (x if _is_traced(x) else _asarray(x) for x in (_lift(in1), _lift(in2)))
    dt = _result_type(in1, in2)
    a, b = in1.astype(dt), in2.astype(dt)
    sa, sb = _shape_of(a), _shape_of(b)
    if len(sa) != len(sb) or (ndim is not None and len(sa) != ndim):
        want = f"{ndim}-d arrays" if ndim is not None else "arrays of the same rank"
        raise ValueError(f"signal.{fname}: in1 and in2 must be {want}; got shapes {sa} "
                         f"and {sb}")
    return a, b


def _swap_for_valid(fname, sa, sb) -> bool:
    """'valid' needs one input at least as large as the other in every dim (SciPy swaps
    them when in2 is the larger one)."""
    if all(p >= q for p, q in zip(sa, sb)):
        return False
    if all(q >= p for p, q in zip(sa, sb)):
        return True
    raise ValueError(f"signal.{fname}: for mode='valid', in1 (shape {sa}) or in2 (shape {sb}) "
                     "must be at least as large as the other in every dimension")


def _correlate_nd(a, b, mode, same_start):
    """`sum_n a[n + k] b[n]` over the lags `mode` keeps; 'same' keeps a's size, starting at
    `same_start(len_b)` of the full output (SciPy centers correlate and correlate2d
    differently for even kernels)."""
    sa, sb = _shape_of(a), _shape_of(b)
    if not sa:  # 0-d inputs: the product
        return a * b
    if mode == "full":
        pads = [(m - 1, m - 1) for m in sb]
    elif mode == "valid":
        pads = [(0, 0)] * len(sb)
    else:
        pads = [(m - 1 - same_start(m), same_start(m)) for m in sb]
    if len(sa) == 1:  # one correlate1d (np.convolve underneath: ~20x faster than im2col)
        (lo, hi), = pads
        return _correlate1d(a, b, sb[0] - 1 - lo, sa[0] + lo + hi - sb[0] + 1)
    out = _conv_general_dilated(fnp.reshape(a, (1, 1) + sa), fnp.reshape(b, (1, 1) + sb),
                               (1,) * len(sa), pads)
    return fnp.reshape(out, _shape_of(out)[2:])


def _flip_all(x):
    return fnp.flip(x) if _shape_of(x) else x


def _conj(x):
    return fnp.conj(x) if _dtype_of(x).kind == "c" else x


def _correlate(fname, in1, in2, mode, same_start, ndim=None):
    a, b = _operands(fname, in1, in2, ndim)
    if mode == "valid" and _swap_for_valid(fname, _shape_of(a), _shape_of(b)):
        # correlate(b, a) is correlate(a, b) at negated lags, conjugated; SciPy's correlate2d
        # only flips it (sum_n b[n + k] conj(a[n]), reversed), so it is not conjugated
        out = _flip_all(_correlate_nd(b, _conj(a), mode, same_start))
        return out if ndim == 2 else _conj(out)
    return _correlate_nd(a, _conj(b), mode, same_start)


def _convolve(fname, in1, in2, mode, ndim=None):
    a, b = _operands(fname, in1, in2, ndim)
    if mode == "valid" and _swap_for_valid(fname, _shape_of(a), _shape_of(b)):
        a, b = b, a   # convolution commutes
    return _correlate_nd(a, _flip_all(b), mode, _centered)


def _centered(m):   # correlate's and convolve's 'same' start in the full output
    return (m - 1) // 2


def _centered_2d(m):  # correlate2d's (a convolve2d with the flipped kernel)
    return m // 2


def correlate(in1: ArrayLike, in2: ArrayLike, mode: str = "full", method: str = "auto") -> Array:
    """N-d cross-correlation `z[k] = sum_n in1[n + k] conj(in2[n])` (SciPy's
    `signal.correlate`; both inputs of the same rank).

    Example:
        >>> x, k = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])
        >>> fg.scipy.signal.correlate(x, k)   # convolve(x, k[::-1])
        array([0.5, 2. , 3.5, 3. , 0. ])
        >>> fg.scipy.signal.correlate(x, k, mode="same")   # the middle, len(x) values
        array([2. , 3.5, 3. ])
    """
    _check("correlate", mode, method)
    return _correlate("correlate", in1, in2, mode, _centered)


def convolve(in1: ArrayLike, in2: ArrayLike, mode: str = "full", method: str = "auto") -> Array:
    """N-d convolution `z[k] = sum_n in1[n] in2[k - n]` (SciPy's `signal.convolve`).

    Example:
        >>> x, k = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])
        >>> fg.scipy.signal.convolve(x, k)
        array([0. , 1. , 2.5, 4. , 1.5])
        >>> fg.scipy.signal.convolve(x, k, mode="valid")   # where k overlaps x fully
        array([2.5])
        >>> fg.grad(lambda k: fg.scipy.signal.convolve(x, k)[2])(k)   # x reversed
        array([3., 2., 1.])
    """
    _check("convolve", mode, method)
    return _convolve("convolve", in1, in2, mode)


def _check_boundary(fname, boundary, fillvalue):
    if boundary not in ("fill", "pad") or fillvalue != 0:
        raise NotImplementedError(
            f"signal.{fname}: only boundary='fill' with fillvalue=0 is supported (got "
            f"boundary={boundary!r}, fillvalue={fillvalue!r}); pad in1 first for the others")


def convolve2d(in1: ArrayLike, in2: ArrayLike, mode: str = "full", boundary: str = "fill",
               fillvalue: float = 0) -> Array:
    """2-d convolution (SciPy's `signal.convolve2d`, zero boundary only).

    Example:
        >>> fg.scipy.signal.convolve2d(np.eye(2), np.array([[1.0, 2.0]]))
        array([[1., 2., 0.],
               [0., 1., 2.]])
    """
    _check("convolve2d", mode)
    _check_boundary("convolve2d", boundary, fillvalue)
    return _convolve("convolve2d", in1, in2, mode, ndim=2)


def correlate2d(in1: ArrayLike, in2: ArrayLike, mode: str = "full", boundary: str = "fill",
                fillvalue: float = 0) -> Array:
    """2-d cross-correlation (SciPy's `signal.correlate2d`, zero boundary only; its 'same'
    output is centered as SciPy's, which differs from `correlate`'s for even kernels).

    Example:
        >>> fg.scipy.signal.correlate2d(np.eye(2), np.array([[1.0, 2.0]]))   # the kernel flipped
        array([[2., 1., 0.],
               [0., 2., 1.]])
    """
    _check("correlate2d", mode)
    _check_boundary("correlate2d", boundary, fillvalue)
    return _correlate("correlate2d", in1, in2, mode, _centered_2d, ndim=2)

