"""fungrad.numpy.fft: `numpy.fft`, differentiable, batchable and jittable.

On plain arrays every function is NumPy's own. On traced values the input is padded or
truncated to `n` / `s`, cast to the dtype NumPy computes in (single precision stays single:
float32 / complex64 give complex64, as NumPy 2 does), and one `fft` primitive
(fungrad/lax/fft.py) transforms it.

    >>> import fungrad as fg, fungrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.rfft(x)) ** 2))(np.ones(4))
"""
from __future__ import annotations

from typing import Sequence as _Sequence

import operator

import numpy as np

from ..backend import is_cupy as _is_cupy, like as _like
from ..core.dtypes import kind as _kind
from ..core.trace import Tracer
from ..lax import elementwise as E
from ..lax.fft import NORMS, SWAP_NORM, fft as _bind_fft, zero_pad as _zero_pad
from ..lax.indexing import slice_along as _slice_along
from ._base import cast as _cast, dtype_of as _dtype_of, lift as _lift, shape_of as _shape_of

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_dtype_cache: dict = {}
# the functions of one axis and an `n`: NumPy's "s[i] = -1 keeps the input length" is not theirs
_ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")


def _numpy_dtype(np_fn, dtype) -> np.dtype:
    """The dtype NumPy's `np_fn` returns for `dtype` input (asked once on a dummy, cached);
    an ml_dtypes float (bfloat16) answers as float16 does, keeping its own dtype where
    float16 would be kept."""
    key = (np_fn, dtype)
    out = _dtype_cache.get(key)
    if out is None:
        proxy = np.float16 if dtype.kind == "V" else dtype
        out = np_fn(np.zeros(4, proxy)).dtype
        out = _dtype_cache[key] = dtype if dtype.kind == "V" and out == np.float16 else out
    return out


def _norm(fname, norm):
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise ValueError(f'fft.{fname}: invalid norm={norm!r}; use None, "backward", "ortho" '
                         'or "forward"')
    return norm


def _axes_and_lengths(fname, shape, s, axes, halved_input=False):
    """NumPy's reading of `s` / `axes` (axes default to the last len(s) axes, or all), as
    non-negative axes and the transform lengths; `halved_input` (irfft): the default length
    of the last axis is 2 * (m - 1). An entry -1 in `s` keeps the input's length along its
    axis (NumPy 2) and None the 1-D function's default (NumPy 2 deprecates it, but obeys)."""
    nd = len(shape)
    if axes is None:
        # (the last len(s) axes counted from the end, as NumPy does: an `s` longer than
        # the array is then refused as out of bounds, not read as repeated axes)
        axes = range(nd) if s is None else range(-len(s), 0)
    axes = _ints(fname, "axes are" if len(axes) != 1 else "axis is", axes)
    for a in axes:
        if not -nd <= a < nd:
            raise np.exceptions.AxisError(  # (NumPy's: a ValueError and an IndexError)
                f"fft.{fname}: axis {a} is out of bounds for an array of shape {shape}")
    axes = tuple(a % nd for a in axes)
    defaults = [shape[a] for a in axes]
    if halved_input and axes:
        defaults[-1] = 2 * (shape[axes[-1]] - 1)
    if s is None:
        lengths = defaults
    else:
        if len(s) != len(axes):
            raise ValueError(f"fft.{fname}: s={tuple(s)} and axes={axes} must have the same "
                             "length")
        if None in s and len(set(axes)) < len(axes):
            # (NumPy reads such a None as the length left by the transforms before it)
            raise ValueError(f"fft.{fname}: s={tuple(s)} with a None and repeated axes {axes} "
                             "is not supported on traced values; give every length")
        lengths = _ints(fname, "s is" if len(s) != 1 else "n is",
                        [d if n is None else n for n, d in zip(s, defaults)])
        if fname not in _ONE_AXIS:  # (a 1-D function's n=-1 is an invalid length)
            lengths = [shape[a] if n == -1 else n for n, a in zip(lengths, axes)]
    for n in lengths:
        if n < 1:
            raise ValueError(f"fft.{fname}: invalid number of data points ({n}) specified; "
                             "every length must be at least 1")
    return axes, tuple(lengths)


def _ints(fname, name, values) -> list:
    """`values` as Python ints; a float or str is refused, as NumPy does, not truncated."""
    try:
        return [operator.index(v) for v in values]
    except TypeError:
        raise TypeError(f"fft.{fname}: {name} {tuple(values)!r}: integers are needed") from None


def _fit(x, axis, n):
    """`x` truncated or zero-padded to length `n` along `axis` (NumPy's `n=` / `s=`)."""
    have = _shape_of(x)[axis]
    if have > n:
        return _slice_along(x, axis, 0, n)
    return _zero_pad(x, axis, n)


def _traced(a):
    a = _lift(a)
    return a if isinstance(a, Tracer) else None


def _transform(x, fft_type, axes, lengths, norm):
    """`x` padded or truncated to `lengths` along `axes` and transformed over them (one
    `fft` primitive); where an axis repeats, NumPy transforms it once per mention, one axis
    at a time (fftn / rfftn from the last axis back, irfftn from the first, with its real
    inverse last), so do the same."""
    def operand_length(kind, n):
        return n // 2 + 1 if kind == "irfft" else n
    if len(set(axes)) == len(axes):
        for ax, n in zip(axes[:-1], lengths[:-1]):
            x = _fit(x, ax, n)
        x = _fit(x, axes[-1], operand_length(fft_type, lengths[-1]))
        return _bind_fft(x, fft_type, axes, lengths, norm)
    others = list(zip(axes[:-1], lengths[:-1]))
    if fft_type == "irfft":
        steps = [("ifft", ax, n) for ax, n in others] + [("irfft", axes[-1], lengths[-1])]
    else:
        rest = "fft" if fft_type == "rfft" else fft_type
        steps = [(fft_type, axes[-1], lengths[-1])] + [(rest, ax, n) for ax, n in others[::-1]]
    for kind, ax, n in steps:
        x = _bind_fft(_fit(x, ax, operand_length(kind, n)), kind, (ax,), (n,), norm)
    return x


def _needs_an_axis(fname, axes):
    # (the real transforms halve the last of `axes`: NumPy fails on none with an IndexError)
    if not axes:
        raise IndexError(f"fft.{fname}: axes=() transforms nothing; the real transforms need "
                         "at least one axis (the last one is halved)")


def _c2c(fname, a, s, axes, norm, inverse):
    """fft / ifft / fftn / ifftn / fft2 / ifft2 on a traced `a`."""
    norm = _norm(fname, norm)
    axes, lengths = _axes_and_lengths(fname, _shape_of(a), s, axes)
    if not axes:  # (axes=() or a 0-d input: NumPy returns `a` itself, in its own dtype)
        return a
    x = _cast(a, _numpy_dtype(np.fft.fft, _dtype_of(a)))
    return _transform(x, "ifft" if inverse else "fft", axes, lengths, norm)


def _r2c(fname, a, s, axes, norm):
    """rfft / rfftn / rfft2 on a traced `a`: a real input, the last axis halved."""
    norm = _norm(fname, norm)
    dt = _dtype_of(a)
    if dt.kind == "c":
        raise TypeError(f"fft.{fname}: the input must be real, got {dt}; use fnp.fft.fft / "
                        "fftn for complex input")
    axes, lengths = _axes_and_lengths(fname, _shape_of(a), s, axes)
    _needs_an_axis(fname, axes)
    x = a if _kind(dt) == "f" else _cast(a, np.float64)
    return _transform(x, "rfft", axes, lengths, norm)


def _c2r(fname, a, s, axes, norm, probe=np.fft.irfft):
    """irfft / irfftn / irfft2 (hfft: `probe`, the 1-D function that tells the output dtype)
    on a traced `a`: the half spectrum along the last axis."""
    norm = _norm(fname, norm)
    axes, lengths = _axes_and_lengths(fname, _shape_of(a), s, axes, halved_input=True)
    _needs_an_axis(fname, axes)
    # NumPy keeps a real float16 input's dtype through one real inverse, but the complex
    # transforms over the other axes come first and make it complex64
    out_dtype = _numpy_dtype(probe if len(axes) == 1 else _irfft_2d, _dtype_of(a))
    x = _cast(a, np.complex64 if out_dtype.itemsize <= 4 else np.complex128)
    return _cast(_transform(x, "irfft", axes, lengths, norm), out_dtype)


def _irfft_2d(x):
    return np.fft.irfftn(x.reshape(2, 2))


def _concrete(np_fn, a, *args, out=None):
    """NumPy's `np_fn` on a concrete `a`, `out` passed only when given: CuPy's fft functions
    (reached through NumPy's dispatch) take no `out`."""
    return np_fn(a, *args) if out is None else np_fn(a, *args, out=out)


def _no_out(fname, out):
    if out is not None:
        raise TypeError(f"fft.{fname}: out= is not supported on traced values (they are "
                        f"immutable); use the result: y = fnp.fft.{fname}(a)")


def _one_axis(n, axis):
    return None if n is None else (n,), (axis,)


def fft(a, n: int | None = None, axis: int = -1, norm: str | None = None, out=None):
    """`numpy.fft.fft`: the 1-D discrete Fourier transform (linear: its derivative is itself).

    Example:
        >>> fnp.fft.fft(np.array([0.0, 1.0, 0.0, 0.0]))   # exp(-2 pi i k / 4)
        array([ 1.+0.j,  0.-1.j, -1.+0.j,  0.+1.j])
        >>> fnp.fft.fft(np.array([1.0, 1.0]), n=4)   # zero-padded to n
        array([2.+0.j, 1.-1.j, 0.+0.j, 1.+1.j])
        >>> fg.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.fft(x)) ** 2))(np.array([1.0, 2.0]))   # 2 n x
        array([4., 8.])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.fft, a, n, axis, norm, out=out)
    _no_out("fft", out)
    return _c2c("fft", t, *_one_axis(n, axis), norm, False)


def ifft(a, n: int | None = None, axis: int = -1, norm: str | None = None, out=None):
    """`numpy.fft.ifft`: the inverse of `fft`.

    Example:
        >>> fnp.fft.ifft(np.array([1.0, 1.0, 1.0, 1.0]))
        array([1.+0.j, 0.+0.j, 0.+0.j, 0.+0.j])
        >>> fnp.fft.ifft(fnp.fft.fft(np.array([1.0, 2.0, 3.0, 4.0])))
        array([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.ifft, a, n, axis, norm, out=out)
    _no_out("ifft", out)
    return _c2c("ifft", t, *_one_axis(n, axis), norm, True)


def fftn(a, s: _Sequence[int] | None = None, axes: _Sequence[int] | None = None,
         norm: str | None = None, out=None):
    """`numpy.fft.fftn`: the N-D transform over `axes` (all, or the last len(s), by default).

    Example:
        >>> fnp.fft.fftn(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]])
        >>> fnp.fft.fftn(np.ones((2, 2, 3)), axes=(0, 1)).shape
        (2, 2, 3)
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.fftn, a, s, axes, norm, out=out)
    _no_out("fftn", out)
    return _c2c("fftn", t, s, axes, norm, False)


def ifftn(a, s: _Sequence[int] | None = None, axes: _Sequence[int] | None = None,
          norm: str | None = None, out=None):
    """`numpy.fft.ifftn`: the inverse of `fftn`.

    Example:
        >>> fnp.fft.ifftn(np.array([[4.0, 0.0], [0.0, 0.0]]))
        array([[1.+0.j, 1.+0.j],
               [1.+0.j, 1.+0.j]])
        >>> fnp.fft.ifftn(np.ones((2, 2, 3)), axes=(0, 1)).shape
        (2, 2, 3)
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.ifftn, a, s, axes, norm, out=out)
    _no_out("ifftn", out)
    return _c2c("ifftn", t, s, axes, norm, True)


def fft2(a, s: _Sequence[int] | None = None, axes: _Sequence[int] = (-2, -1),
         norm: str | None = None, out=None):
    """`numpy.fft.fft2`: `fftn` over the last two axes.

    Example:
        >>> fnp.fft.fft2(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.fft2, a, s, axes, norm, out=out)
    _no_out("fft2", out)
    return _c2c("fft2", t, s, axes, norm, False)


def ifft2(a, s: _Sequence[int] | None = None, axes: _Sequence[int] = (-2, -1),
          norm: str | None = None, out=None):
    """`numpy.fft.ifft2`: `ifftn` over the last two axes.

    Example:
        >>> fnp.fft.ifft2(np.array([[10.0, -2.0], [-4.0, 0.0]]))
        array([[1.+0.j, 2.+0.j],
               [3.+0.j, 4.+0.j]])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.ifft2, a, s, axes, norm, out=out)
    _no_out("ifft2", out)
    return _c2c("ifft2", t, s, axes, norm, True)


def rfft(a, n: int | None = None, axis: int = -1, norm: str | None = None, out=None):
    """`numpy.fft.rfft`: the transform of a real input, n // 2 + 1 frequencies.

    Example:
        >>> fnp.fft.rfft(np.array([1.0, 2.0, 3.0, 4.0]))   # n // 2 + 1 = 3 frequencies
        array([10.+0.j, -2.+2.j, -2.+0.j])
        >>> fg.grad(lambda x: fnp.imag(fnp.fft.rfft(x)[1]))(np.ones(4))   # -sin(2 pi n / 4)
        array([ 0., -1.,  0.,  1.])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.rfft, a, n, axis, norm, out=out)
    _no_out("rfft", out)
    return _r2c("rfft", t, *_one_axis(n, axis), norm)


def irfft(a, n: int | None = None, axis: int = -1, norm: str | None = None, out=None):
    """`numpy.fft.irfft`: the real signal of length `n` (default 2 * (m - 1)) whose `rfft`
    is `a` (the imaginary parts of the zero and Nyquist entries are ignored).

    Example:
        >>> fnp.fft.irfft(np.array([10.0, -2.0 + 2.0j, -2.0]))
        array([1., 2., 3., 4.])
        >>> fnp.fft.irfft(fnp.fft.rfft(np.array([1.0, 2.0, 3.0])), n=3)   # odd lengths need n
        array([1., 2., 3.])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.irfft, a, n, axis, norm, out=out)
    _no_out("irfft", out)
    return _c2r("irfft", t, *_one_axis(n, axis), norm)


def rfftn(a, s: _Sequence[int] | None = None, axes: _Sequence[int] | None = None,
          norm: str | None = None, out=None):
    """`numpy.fft.rfftn`: `rfft` over the last of `axes`, then `fftn` over the others.

    Example:
        >>> fnp.fft.rfftn(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]])
        >>> fnp.fft.rfftn(np.ones((4, 6))).shape   # the last axis halved: 6 // 2 + 1
        (4, 4)
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.rfftn, a, s, axes, norm, out=out)
    _no_out("rfftn", out)
    return _r2c("rfftn", t, s, axes, norm)


def irfftn(a, s: _Sequence[int] | None = None, axes: _Sequence[int] | None = None,
           norm: str | None = None, out=None):
    """`numpy.fft.irfftn`: the inverse of `rfftn`.

    Example:
        >>> x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> fnp.fft.irfftn(fnp.fft.rfftn(x), s=x.shape)
        array([[1., 2., 3.],
               [4., 5., 6.]])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.irfftn, a, s, axes, norm, out=out)
    _no_out("irfftn", out)
    return _c2r("irfftn", t, s, axes, norm)


def rfft2(a, s: _Sequence[int] | None = None, axes: _Sequence[int] = (-2, -1),
          norm: str | None = None, out=None):
    """`numpy.fft.rfft2`: `rfftn` over the last two axes.

    Example:
        >>> fnp.fft.rfft2(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.rfft2, a, s, axes, norm, out=out)
    _no_out("rfft2", out)
    return _r2c("rfft2", t, s, axes, norm)


def irfft2(a, s: _Sequence[int] | None = None, axes: _Sequence[int] = (-2, -1),
           norm: str | None = None, out=None):
    """`numpy.fft.irfft2`: `irfftn` over the last two axes.

    Example:
        >>> x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> fnp.fft.irfft2(fnp.fft.rfft2(x), s=x.shape)
        array([[1., 2., 3.],
               [4., 5., 6.]])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.irfft2, a, s, axes, norm, out=out)
    _no_out("irfft2", out)
    return _c2r("irfft2", t, s, axes, norm)


def hfft(a, n: int | None = None, axis: int = -1, norm: str | None = None, out=None):
    """`numpy.fft.hfft`: the real spectrum of a signal with Hermitian symmetry, given its
    first half (`irfft` of the conjugate, the other normalization direction).

    Example:
        >>> fnp.fft.hfft(np.array([1.0, 2.0j, 3.0]))   # the spectrum of [1, 2j, 3, -2j]
        array([ 4.,  2.,  4., -6.])
        >>> fnp.fft.hfft(np.array([1.0, 2.0j, 3.0]), n=5).shape
        (5,)
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.hfft, a, n, axis, norm, out=out)
    _no_out("hfft", out)
    z = E.conj(t) if _dtype_of(t).kind == "c" else t
    return _c2r("hfft", z, *_one_axis(n, axis), SWAP_NORM[_norm("hfft", norm)],
                np.fft.hfft)


def ihfft(a, n: int | None = None, axis: int = -1, norm: str | None = None, out=None):
    """`numpy.fft.ihfft`: the inverse of `hfft` (conjugated `rfft`, the other direction).

    Example:
        >>> fnp.fft.ihfft(np.array([1.0, 2.0, 3.0, 4.0]))
        array([ 2.5-0.j , -0.5-0.5j, -0.5-0.j ])
        >>> fnp.fft.hfft(fnp.fft.ihfft(np.array([1.0, 2.0, 3.0, 4.0])), n=4)
        array([1., 2., 3., 4.])
    """
    t = _traced(a)
    if t is None:
        return _concrete(np.fft.ihfft, a, n, axis, norm, out=out)
    _no_out("ihfft", out)
    half = _r2c("ihfft", t, *_one_axis(n, axis), SWAP_NORM[_norm("ihfft", norm)])
    return E.conj(half)


def _frequency_scale(results, n, d):
    # NumPy's own arithmetic, `results * (1.0 / (n * d))`, so a traced `d` gives its values
    # (the integers on a CuPy `d`'s device)
    from ._elementwise import divide, multiply
    return multiply(_like(d, results), divide(1.0, multiply(n, d)))


def _check_length(fname, n):
    """NumPy's check on the signal length `n` of fftfreq / rfftfreq: an integer (a float is
    refused, not used); fftfreq also refuses a negative one (rfftfreq's is an empty result)."""
    if not isinstance(n, (int, np.integer)):
        raise ValueError(f"fft.{fname}: n should be an integer, got {n!r}")
    if fname == "fftfreq" and n < 0:
        raise ValueError(f"fft.{fname}: n={n}: negative dimensions are not allowed")


def fftfreq(n: int, d=1.0, device=None):
    """`numpy.fft.fftfreq`: the sample frequencies of an `fft` of length `n`, spacing `d`
    (differentiable in `d`).

    Example:
        >>> fnp.fft.fftfreq(4)
        array([ 0.  ,  0.25, -0.5 , -0.25])
        >>> fnp.fft.fftfreq(4, d=0.5)
        array([ 0. ,  0.5, -1. , -0.5])
        >>> fg.grad(lambda d: fnp.fft.fftfreq(4, d)[1])(0.5)   # d(1 / (4 d))/dd
        array(-1.)
    """
    if not isinstance(d, Tracer) and not _is_cupy(d):  # (NumPy's would mix in NumPy arrays)
        return np.fft.fftfreq(n, d, device=device)
    _check_length("fftfreq", n)
    half = (n - 1) // 2 + 1
    ints = np.concatenate([np.arange(half), np.arange(-(n // 2), 0)])
    return _frequency_scale(ints, n, d)


def rfftfreq(n: int, d=1.0, device=None):
    """`numpy.fft.rfftfreq`: the sample frequencies of an `rfft` of length `n`.

    Example:
        >>> fnp.fft.rfftfreq(4)
        array([0.  , 0.25, 0.5 ])
        >>> fnp.fft.rfftfreq(5, d=0.5)
        array([0. , 0.4, 0.8])
    """
    if not isinstance(d, Tracer) and not _is_cupy(d):
        return np.fft.rfftfreq(n, d, device=device)
    _check_length("rfftfreq", n)
    return _frequency_scale(np.arange(n // 2 + 1), n, d)


def _roll_halves(fname, x, axes, first_half):
    """Rotate each of `axes` so index `first_half(n)` comes first (fftshift: n - n // 2
    elements move to the end)."""
    from ._shape import concatenate
    shape = _shape_of(x)
    if axes is None:
        axes = range(len(shape))
    elif isinstance(axes, (int, np.integer)):
        axes = (axes,)
    for ax in axes:
        ax = operator.index(ax)  # (a float axis is refused, as NumPy does, not truncated)
        if not -len(shape) <= ax < len(shape):  # (wrapping it would shift another axis)
            raise np.exceptions.AxisError(
                f"fft.{fname}: axis {ax} is out of bounds for an array of shape {shape}")
        ax %= len(shape)
        k = first_half(shape[ax])
        if k:
            x = concatenate([_slice_along(x, ax, k, shape[ax]), _slice_along(x, ax, 0, k)], ax)
    return x


def fftshift(x, axes: int | _Sequence[int] | None = None):
    """`numpy.fft.fftshift`: move the zero frequency to the centre.

    Example:
        >>> fnp.fft.fftfreq(5)
        array([ 0. ,  0.2,  0.4, -0.4, -0.2])
        >>> fnp.fft.fftshift(fnp.fft.fftfreq(5))
        array([-0.4, -0.2,  0. ,  0.2,  0.4])
    """
    t = _traced(x)
    if t is None:
        return np.fft.fftshift(x, axes)
    return _roll_halves("fftshift", t, axes, lambda n: n - n // 2)


def ifftshift(x, axes: int | _Sequence[int] | None = None):
    """`numpy.fft.ifftshift`: the inverse of `fftshift`.

    Example:
        >>> fnp.fft.fftshift(np.arange(5.0))
        array([3., 4., 0., 1., 2.])
        >>> fnp.fft.ifftshift(fnp.fft.fftshift(np.arange(5.0)))
        array([0., 1., 2., 3., 4.])
    """
    t = _traced(x)
    if t is None:
        return np.fft.ifftshift(x, axes)
    return _roll_halves("ifftshift", t, axes, lambda n: n // 2)
