"""fungrad.scipy.signal: N-d convolution and correlation (`scipy.signal`'s `convolve`,
`correlate`, `convolve2d`, `correlate2d`, `fftconvolve`), differentiable in both inputs;
`detrend`, and the spectral estimates `stft`, `istft`, `welch`, `csd` (jax.scipy.signal's
signatures, SciPy's values), written with fnp (segments are gathered with an index array, the
transforms are `fnp.fft`), so every transform composes with them.

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

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import numpy as fnp
from ..backend import asarray as _asarray, like as _like
from ..core.dtypes import is_inexact as _is_inexact_dtype
from ..lax.convolution import conv_general_dilated as _conv_general_dilated
from ..lax.signal import correlate1d as _correlate1d
from ..numpy._base import (dtype_of as _dtype_of, is_traced as _is_traced, lift as _lift,
                           result_type as _result_type, shape_of as _shape_of)

if TYPE_CHECKING:   # (a module-level Sequence would be a public name)
    from collections.abc import Sequence

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve", "detrend",
           "stft", "istft", "csd", "welch"]
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



# ----------------------------------------------------------------------------- fftconvolve
def fftconvolve(in1: ArrayLike, in2: ArrayLike, mode: str = "full",
                axes: Sequence[int] | None = None) -> Array:
    """N-d convolution through FFTs (SciPy's `signal.fftconvolve`): over `axes` (all by
    default) the inputs are convolved, over the other axes they broadcast (equal sizes or 1).

    Example:
        >>> x, k = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])
        >>> np.round(fg.scipy.signal.fftconvolve(x, k), 12) + 0.0
        array([0. , 1. , 2.5, 4. , 1.5])
        >>> np.round(fg.scipy.signal.fftconvolve(np.ones((2, 3)), np.ones((1, 2)), axes=[1]), 12)
        array([[1., 2., 2., 1.],
               [1., 2., 2., 1.]])
    """
    _check("fftconvolve", mode)
    a, b = _operands("fftconvolve", in1, in2)
    sa, sb = _shape_of(a), _shape_of(b)
    nd = len(sa)
    if nd == 0:
        return a * b
    if axes is None:
        axes = tuple(range(nd))
    else:
        axes = (axes,) if np.ndim(axes) == 0 else tuple(axes)
        for ax in axes:
            if not -nd <= int(ax) < nd:
                raise ValueError(f"signal.fftconvolve: axis {ax} is out of bounds for arrays "
                                 f"of rank {nd}")
        axes = tuple(sorted({int(ax) % nd for ax in axes}))
    for d in range(nd):
        if d not in axes and sa[d] != sb[d] and 1 not in (sa[d], sb[d]):
            raise ValueError(f"signal.fftconvolve: in1 (shape {sa}) and in2 (shape {sb}) must "
                             f"have equal sizes or size 1 along the axis {d}, which is not "
                             "convolved")
    if not axes:
        return a * b
    if mode == "valid":
        pa, pb = [sa[d] for d in axes], [sb[d] for d in axes]
        if _swap_for_valid("fftconvolve", pa, pb):
            a, b, sa, sb = b, a, sb, sa
    full = [sa[d] + sb[d] - 1 for d in axes]
    if _dtype_of(a).kind == "c":
        out = fnp.fft.ifftn(fnp.fft.fftn(a, s=full, axes=axes) * fnp.fft.fftn(b, s=full, axes=axes),
                            s=full, axes=axes)
    else:
        out = fnp.fft.irfftn(fnp.fft.rfftn(a, s=full, axes=axes)
                             * fnp.fft.rfftn(b, s=full, axes=axes), s=full, axes=axes)
    if mode == "full":
        return out
    index = [slice(None)] * nd
    if mode == "same":   # SciPy keeps in1's shape, also along broadcast axes
        for d in range(nd):
            if d not in axes and sa[d] != sb[d]:
                start = (max(sa[d], sb[d]) - sa[d]) // 2
                index[d] = slice(start, start + sa[d])
    for d in axes:
        size = sa[d] if mode == "same" else sa[d] - sb[d] + 1
        start = (sa[d] + sb[d] - 1 - size) // 2
        index[d] = slice(start, start + size)
    return out[tuple(index)]


# ----------------------------------------------------------------------------- detrend
def _inexact(fname, x):
    x = _lift(x)
    x = x if _is_traced(x) else _asarray(x)
    dt = _dtype_of(x)
    if dt.kind in "biu":
        x = x.astype(np.float64)
    elif not _is_inexact_dtype(dt):  # (ml_dtypes floats, bfloat16, are inexact too)
        raise TypeError(f"signal.{fname}: expected a numeric array, got dtype {dt}")
    return x


def _real_dtype(dt):
    return np.dtype(np.float32) if dt in (np.float32, np.complex64) else np.dtype(np.float64)


def _detrend_last(x, type, bps):
    """Remove the mean ('constant') or the least-squares line of each segment between the
    breakpoints `bps` ('linear') along the last axis."""
    if type == "constant":
        return x - fnp.mean(x, axis=-1, keepdims=True)
    dt = _dtype_of(x)
    pieces = []
    for lo, hi in zip(bps[:-1], bps[1:]):
        seg = x[..., lo:hi]
        t = np.arange(hi - lo, dtype=np.float64)
        t -= t.mean()
        tt = float(np.sum(t * t))
        seg = seg - fnp.mean(seg, axis=-1, keepdims=True)
        if tt > 0:
            slope = fnp.sum(seg * t.astype(_real_dtype(dt)), axis=-1, keepdims=True) \
                * _real_dtype(dt).type(1.0 / tt)
            seg = seg - slope * t.astype(_real_dtype(dt))
        pieces.append(seg)
    return pieces[0] if len(pieces) == 1 else fnp.concatenate(pieces, axis=-1)


def detrend(data: ArrayLike, axis: int = -1, type: str = "linear",
            bp: int | Sequence[int] | np.ndarray = 0, overwrite_data: None = None) -> Array:
    """Remove the least-squares line (`type='linear'`, piecewise between the breakpoints
    `bp`) or the mean (`type='constant'`) along `axis` (SciPy's `signal.detrend`).

    Example:
        >>> np.round(fg.scipy.signal.detrend(np.array([1.0, 4.0, 8.0, 8.0, 9.0])), 12) + 0.0
        array([-1.,  0.,  2.,  0., -1.])
        >>> fg.scipy.signal.detrend(np.array([1.0, 4.0, 8.0, 8.0, 9.0]), type="constant")
        array([-5., -2.,  2.,  2.,  3.])
    """
    if overwrite_data is not None:
        raise NotImplementedError("signal.detrend: overwrite_data is not supported (fungrad "
                                  "never writes into its inputs)")
    type = {"l": "linear", "c": "constant"}.get(type, type)
    if type not in ("linear", "constant"):
        raise ValueError(f"signal.detrend: type must be 'linear' or 'constant', got {type!r}")
    x = _inexact("detrend", data)
    nd = len(_shape_of(x))
    if nd == 0:
        raise ValueError("signal.detrend: data must have at least one axis")
    if not -nd <= axis < nd:
        raise ValueError(f"signal.detrend: axis {axis} is out of bounds for rank {nd}")
    N = _shape_of(x)[axis]
    bps = np.sort(np.unique(np.r_[0, bp, N])).astype(int)
    if bps[0] < 0 or bps[-1] > N:
        raise ValueError("signal.detrend: breakpoints must be non-negative and at most the "
                         f"length of data along the axis ({N}); got {bp!r}")
    x = fnp.moveaxis(x, axis, -1)
    return fnp.moveaxis(_detrend_last(x, type, [int(v) for v in bps]), -1, axis)


# ----------------------------------------------------------------------------- spectral
def _get_window(fname, window, nperseg, dt):
    """The window as a NumPy array of the real dtype `dt`: 'hann' (periodic) computed here,
    other names and (name, parameter) tuples by scipy.signal.get_window, arrays as given."""
    if isinstance(window, (str, tuple)):
        if isinstance(window, str) and window in ("hann", "hanning", "han"):
            win = (np.ones(1) if nperseg == 1
                   else np.sin(np.pi * np.arange(nperseg) / nperseg) ** 2)
        else:
            try:
                from scipy.signal import get_window
            except ImportError as err:  # pragma: no cover
                raise ImportError(f"signal.{fname}: window={window!r} needs SciPy's "
                                  "get_window (pip install scipy); 'hann' or an array works "
                                  "without it") from err
            win = get_window(window, nperseg)
        return np.asarray(win, dt)
    win = np.asarray(window)
    if win.ndim != 1:
        raise ValueError(f"signal.{fname}: window must be 1-D, got shape {win.shape}")
    if win.shape[0] != nperseg:
        raise ValueError(f"signal.{fname}: window must have length nperseg ({nperseg}), got "
                         f"{win.shape[0]}")
    return win.astype(dt)


def _triage(fname, window, nperseg, input_length):
    """nperseg from the window (an array gives its length) or the argument (None: 256),
    capped at the input length as SciPy does (with its warning)."""
    if not isinstance(window, (str, tuple)):
        n = np.shape(window)[0] if np.ndim(window) == 1 else -1
        if nperseg is not None and int(nperseg) != n:
            raise ValueError(f"signal.{fname}: value specified for nperseg ({nperseg}) is "
                             f"different from the length of window ({n})")
        return n
    n = 256 if nperseg is None else int(nperseg)
    if n < 1:
        raise ValueError(f"signal.{fname}: nperseg must be a positive integer, got {n}")
    if n > input_length:
        warnings.warn(f"nperseg = {n} is greater than input length = {input_length}, using "
                      f"nperseg = {input_length}", stacklevel=3)
        n = input_length
    return n


def _odd_ext(x, n):
    if n < 1:
        return x
    if n > _shape_of(x)[-1] - 1:
        raise ValueError(f"signal: the extension length n ({n}) is too big; it must not "
                         f"exceed x.shape[axis] - 1 = {_shape_of(x)[-1] - 1}")
    left, right = x[..., :1], x[..., -1:]
    return fnp.concatenate([2 * left - fnp.flip(x[..., 1:n + 1], axis=-1), x,
                            2 * right - fnp.flip(x[..., -n - 1:-1], axis=-1)], axis=-1)


def _extend(x, boundary, n):
    if boundary is None:
        return x
    if boundary == "odd":
        return _odd_ext(x, n)
    pad = [(0, 0)] * (len(_shape_of(x)) - 1) + [(n, n)]
    if boundary == "zeros":
        return fnp.pad(x, pad)
    return fnp.pad(x, pad, mode={"even": "reflect", "constant": "edge"}[boundary])


def _pad_last(x, n):
    if n <= 0:
        return x
    return fnp.concatenate([x, fnp.zeros(_shape_of(x)[:-1] + (n,), _dtype_of(x))], axis=-1)


def _segments_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    """The windowed FFTs of x's segments: (..., nseg, nfreq)."""
    length = _shape_of(x)[-1]
    step = nperseg - noverlap
    starts = np.arange(0, length - nperseg + 1, step)
    segs = x[..., starts[:, None] + np.arange(nperseg)[None, :]]
    segs = detrend_func(segs)
    segs = segs * _like(x, win)  # (on x's device: CuPy refuses a NumPy operand)
    if sides == "twosided":
        return fnp.fft.fft(segs, n=nfft, axis=-1)
    return fnp.fft.rfft(fnp.real(segs) if _dtype_of(segs).kind == "c" else segs, n=nfft,
                        axis=-1)


_BOUNDARIES = ("even", "odd", "constant", "zeros", None)


def _spectral(fname, x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
    if boundary not in _BOUNDARIES:
        raise ValueError(f"signal.{fname}: unknown boundary option {boundary!r}, must be one "
                         f"of {list(_BOUNDARIES)}")
    if scaling not in ("density", "spectrum"):
        raise ValueError(f"signal.{fname}: unknown scaling {scaling!r} (use 'density' or "
                         "'spectrum')")
    x = _inexact(fname, x)
    if y is not None:
        y = _inexact(fname, y)
        dt = np.result_type(_dtype_of(x), _dtype_of(y))
        x, y = x.astype(dt), y.astype(dt)
        if len(_shape_of(x)) != len(_shape_of(y)):
            raise ValueError(f"signal.{fname}: x and y must have the same rank, got shapes "
                             f"{_shape_of(x)} and {_shape_of(y)}")
    nd = len(_shape_of(x))
    if nd == 0:
        raise ValueError(f"signal.{fname}: x must have at least one axis")
    if not -nd <= axis < nd:
        raise ValueError(f"signal.{fname}: axis {axis} is out of bounds for rank {nd}")
    dt = _dtype_of(x)
    rdt = _real_dtype(dt)
    cdt = np.result_type(rdt, np.complex64)
    x = fnp.moveaxis(x, axis, -1)
    if y is not None:
        y = fnp.moveaxis(y, axis, -1)
        lx, ly = _shape_of(x)[-1], _shape_of(y)[-1]
        x, y = _pad_last(x, ly - lx), _pad_last(y, lx - ly)
    nperseg = _triage(fname, window, nperseg, _shape_of(x)[-1])
    win = _get_window(fname, window, nperseg, rdt)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if nfft < nperseg:
        raise ValueError(f"signal.{fname}: nfft ({nfft}) must be greater than or equal to "
                         f"nperseg ({nperseg})")
    if noverlap >= nperseg:
        raise ValueError(f"signal.{fname}: noverlap ({noverlap}) must be less than nperseg "
                         f"({nperseg})")
    step = nperseg - noverlap
    if boundary is not None:
        x = _extend(x, boundary, nperseg // 2)
        if y is not None:
            y = _extend(y, boundary, nperseg // 2)
    if padded:
        nadd = (-(_shape_of(x)[-1] - nperseg) % step) % nperseg
        x = _pad_last(x, nadd)
        if y is not None:
            y = _pad_last(y, nadd)
    if isinstance(detrend_type, str):
        def detrend_func(d):
            return detrend(d, type=detrend_type, axis=-1)
    elif callable(detrend_type):
        detrend_func = detrend_type
    elif not detrend_type:
        def detrend_func(d):
            return d
    else:
        raise ValueError(f"signal.{fname}: unsupported detrend {detrend_type!r}")
    scale = 1.0 / (win * win).sum() if scaling == "density" else 1.0 / win.sum() ** 2
    if mode == "stft":
        scale = np.sqrt(scale)
    sides = "onesided"
    if not return_onesided:
        sides = "twosided"
    elif dt.kind == "c":
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False",
                      stacklevel=3)
    if sides == "twosided":
        freqs = np.fft.fftfreq(nfft, 1.0)
    else:
        freqs = np.fft.rfftfreq(nfft, 1.0)
    result = _segments_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        result = fnp.conj(result) * _segments_fft(y, win, detrend_func, nperseg, noverlap, nfft,
                                                  sides)
    elif mode == "psd":
        result = fnp.conj(result) * result
    if sides == "onesided" and mode == "psd":
        factor = np.full(_shape_of(result)[-1], 2.0)
        factor[0] = 1.0
        if nfft % 2 == 0:
            factor[-1] = 1.0
        scale = scale * factor
    result = result * _like(x, np.asarray(scale, rdt))
    if scaling == "density":
        result = result / fs
    times = np.arange(nperseg / 2, _shape_of(x)[-1] - nperseg / 2 + 1, step)
    if boundary is not None:
        times = times - nperseg / 2
    if _is_traced(fs):
        freqs, times = freqs.astype(rdt) * fs, times.astype(rdt) / fs
    else:
        freqs = (freqs * float(fs)).astype(rdt) if fs != 1 else freqs.astype(rdt)
        times = (times / float(fs)).astype(rdt)
    result = result.astype(cdt)
    if y is None and mode != "stft":
        result = fnp.real(result)
    ax = axis % nd
    result = fnp.moveaxis(result, -1, ax)
    return freqs, times, result


def stft(x: ArrayLike, fs: ArrayLike = 1.0, window: str = "hann", nperseg: int = 256,
         noverlap: int | None = None, nfft: int | None = None, detrend: bool | str = False,
         return_onesided: bool = True, boundary: str | None = "zeros", padded: bool = True,
         axis: int = -1) -> tuple[Array, Array, Array]:
    """Short-time Fourier transform (SciPy's `signal.stft`): `(f, t, Zxx)` with the
    frequencies at `axis` and the segments last; window names as `scipy.signal.get_window`
    ('hann' needs no SciPy) or an array; boundary 'zeros', 'even', 'odd', 'constant' or None.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
        >>> f, t, Z = fg.scipy.signal.stft(x, nperseg=4)
        >>> f, t, Z.shape
        (array([0.  , 0.25, 0.5 ]), array([0., 2., 4., 6., 8.]), (3, 5))
    """
    return _spectral("stft", x, None, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, "spectrum", axis, "stft", boundary, padded)


def _median_bias(n):
    ii_2 = 2 * np.arange(1.0, (n - 1) // 2 + 1)
    return 1 + np.sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)


def csd(x: ArrayLike, y: ArrayLike | None, fs: ArrayLike = 1.0, window: str = "hann",
        nperseg: int | None = None, noverlap: int | None = None, nfft: int | None = None,
        detrend: str | bool = "constant", return_onesided: bool = True,
        scaling: str = "density", axis: int = -1, average: str = "mean") -> tuple[Array, Array]:
    """Cross power spectral density by Welch's method (SciPy's `signal.csd`): `(f, Pxy)`,
    the segments' `conj(X) Y` averaged ('mean' or 'median'); `y=None` gives x's PSD.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
        >>> f, P = fg.scipy.signal.csd(x, x[::-1], nperseg=4)
        >>> f, P.dtype
        (array([0.  , 0.25, 0.5 ]), dtype('complex128'))
    """
    if average not in ("mean", "median"):
        raise ValueError(f'signal.csd: average must be "median" or "mean", got {average!r}')
    freqs, _, pxy = _spectral("csd", x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")
    if y is not None and _dtype_of(pxy).kind != "c":
        pxy = pxy.astype(np.result_type(_dtype_of(pxy), np.complex64))
    shape = _shape_of(pxy)
    if len(shape) >= 2 and int(np.prod(shape)) > 0:
        if shape[-1] > 1:
            if average == "median":
                bias = _real_dtype(_dtype_of(pxy)).type(_median_bias(shape[-1]))
                if _dtype_of(pxy).kind == "c":
                    pxy = ((fnp.median(fnp.real(pxy), axis=-1)
                            + 1j * fnp.median(fnp.imag(pxy), axis=-1)).astype(_dtype_of(pxy)))
                else:
                    pxy = fnp.median(pxy, axis=-1)
                pxy = pxy / bias
            else:
                pxy = fnp.mean(pxy, axis=-1)
        else:
            pxy = fnp.reshape(pxy, shape[:-1])
    return freqs, pxy


def welch(x: ArrayLike, fs: ArrayLike = 1.0, window: str = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None,
          detrend: str | bool = "constant", return_onesided: bool = True,
          scaling: str = "density", axis: int = -1, average: str = "mean") -> tuple[Array, Array]:
    """Power spectral density by Welch's method (SciPy's `signal.welch`): `(f, Pxx)`.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
        >>> f, P = fg.scipy.signal.welch(x, nperseg=4)
        >>> np.round(P, 6) + 0.0
        array([0.444444, 1.444444, 0.222222])
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, fnp.real(pxx) if _dtype_of(pxx).kind == "c" else pxx


def _overlap_add(frames, step):
    """Sum of the frames (..., nframes, seglen) placed `step` apart: (..., step (nframes -
    1) + seglen), with reshapes and pads only (TensorFlow's overlap_and_add)."""
    *batch, nframes, seglen = _shape_of(frames)
    batch = tuple(batch)
    b = int(np.prod(batch)) if batch else 1
    x = fnp.reshape(frames, (b, nframes, seglen))
    out_size = step * (nframes - 1) + seglen
    per = 1 + (seglen - 1) // step
    x = fnp.pad(x, ((0, 0), (0, 0), (0, per * step - seglen)))
    x = fnp.reshape(x, (b, nframes, per, step))
    x = fnp.transpose(x, (0, 2, 1, 3))
    x = fnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))
    shrunk = 2 * nframes - 1
    x = fnp.reshape(x, (b, -1))[:, :per * shrunk * step]
    x = fnp.reshape(x, (b, per, shrunk * step))
    x = fnp.sum(x, axis=1)[:, :out_size]
    return fnp.reshape(x, batch + (out_size,))


def istft(Zxx: ArrayLike, fs: ArrayLike = 1.0, window: str = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, input_onesided: bool = True,
          boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2) -> tuple[Array, Array]:
    """Inverse short-time Fourier transform (SciPy's `signal.istft`): `(t, x)`, the windowed
    overlap-add of the segments' inverse FFTs, the inverse of `stft` with the same settings.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
        >>> _, _, Z = fg.scipy.signal.stft(x, nperseg=4)
        >>> t, y = fg.scipy.signal.istft(Z)
        >>> np.round(y, 12) + 0.0
        array([1., 2., 3., 2., 1., 0., 1., 2.])
    """
    Z = _inexact("istft", Zxx)
    nd = len(_shape_of(Z))
    if nd < 2:
        raise ValueError("signal.istft: Zxx must be at least 2-d (frequencies, segments)")
    if not (-nd <= freq_axis < nd and -nd <= time_axis < nd):
        raise ValueError(f"signal.istft: axes {freq_axis}, {time_axis} out of bounds for rank "
                         f"{nd}")
    freq_axis, time_axis = freq_axis % nd, time_axis % nd
    if freq_axis == time_axis:
        raise ValueError("signal.istft: time_axis and freq_axis must differ")
    rdt = _real_dtype(_dtype_of(Z))
    Z = Z.astype(np.result_type(rdt, np.complex64))
    nfreq = _shape_of(Z)[freq_axis]
    n_default = 2 * (nfreq - 1) if input_onesided else nfreq
    nperseg = n_default if nperseg is None else int(nperseg)
    if nperseg < 1:
        raise ValueError(f"signal.istft: nperseg must be a positive integer, got {nperseg}")
    if nfft is None:
        nfft = n_default
        if input_onesided and nperseg == n_default + 1:
            nfft += 1   # odd nperseg, no FFT padding
    else:
        nfft = int(nfft)
    if nfft < nperseg:
        raise ValueError(f"signal.istft: FFT length ({nfft}) must be longer than nperseg "
                         f"({nperseg})")
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError(f"signal.istft: noverlap ({noverlap}) must be less than nperseg "
                         f"({nperseg})")
    step = nperseg - noverlap
    if time_axis != nd - 1 or freq_axis != nd - 2:
        outer = tuple(i for i in range(nd) if i not in (time_axis, freq_axis))
        Z = fnp.transpose(Z, outer + (freq_axis, time_axis))
    if input_onesided:
        xsubs = fnp.fft.irfft(Z, n=nfft, axis=-2)[..., :nperseg, :]
    else:
        xsubs = fnp.fft.ifft(Z, n=nfft, axis=-2)[..., :nperseg, :]
    win = _get_window("istft", window, nperseg, rdt)
    nseg = _shape_of(xsubs)[-1]
    frames = fnp.swapaxes(xsubs * _like(xsubs, (win * win.sum())[:, None]), -2, -1)
    x = _overlap_add(frames, step)
    norm = np.zeros(step * (nseg - 1) + nperseg)
    for i in range(nseg):
        norm[i * step:i * step + nperseg] += win.astype(np.float64) ** 2
    if boundary:
        h = nperseg // 2
        x = x[..., h:-h] if h else x
        norm = norm[h:-h] if h else norm
    x = x / _like(x, np.where(norm > 1e-10, norm, 1.0).astype(rdt))
    if len(_shape_of(x)) > 1 and time_axis != nd - 1:
        ta = time_axis - 1 if freq_axis < time_axis else time_axis
        x = fnp.moveaxis(x, -1, ta)
    times = np.arange(_shape_of(x)[0])
    times = times.astype(rdt) / fs if _is_traced(fs) else (times / float(fs)).astype(rdt)
    return times, x
