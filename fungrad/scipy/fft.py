"""fungrad.scipy.fft: discrete cosine transforms (`scipy.fft`'s `dct`, `idct`, `dctn`,
`idctn`; jax.scipy.fft's signatures).

Each transform is fnp code over `fnp.fft` (an FFT of a symmetric extension, or of a
pre-twiddled input, times a phase), so grad, jit and vmap compose with it: the DCT is linear,
and its derivative is the transposed transform. Types 1 to 4 are computed (jax.scipy.fft has
type 2 only), with norm None / 'backward' or 'ortho'; complex inputs transform their real
and imaginary parts. float32 stays float32.

Example:
    >>> import numpy as np, fungrad.scipy.fft as ffft
    >>> ffft.dct(np.array([1.0, 2.0, 3.0]))
    array([12.        , -3.46410162,  0.        ])
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import numpy as fnp
from ..backend import asarray as _asarray, like as _like
from ..core.dtypes import is_inexact as _is_inexact
from ..numpy._base import (dtype_of as _dtype_of, is_traced as _is_traced, lift as _lift,
                           shape_of as _shape_of)

if TYPE_CHECKING:   # (a module-level Sequence would be a public name)
    from collections.abc import Sequence

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["dct", "idct", "dctn", "idctn"]
_TYPES = (1, 2, 3, 4)


def _operand(fname, x):
    """`x` as an array of a float or complex dtype (integers and bools: float64)."""
    x = _lift(x)
    x = x if _is_traced(x) else _asarray(x)
    dt = _dtype_of(x)
    if not _is_inexact(dt):
        if dt.kind not in "biu":
            raise TypeError(f"scipy.fft.{fname}: x must be a numeric array, got dtype {dt}")
        x = x.astype(np.float64)
    return x


def _check(fname, type, norm):
    if type not in _TYPES:
        raise ValueError(f"scipy.fft.{fname}: type must be one of {_TYPES}, got {type!r}")
    if norm not in (None, "backward", "ortho"):
        raise ValueError(f"scipy.fft.{fname}: norm must be None, 'backward' or 'ortho', got "
                         f"{norm!r}")


def _resize_last(x, n):
    """Zero-pad or truncate the last axis to length n."""
    m = _shape_of(x)[-1]
    if n == m:
        return x
    if n < m:
        return x[..., :n]
    pad = fnp.zeros(_shape_of(x)[:-1] + (n - m,), _dtype_of(x))
    return fnp.concatenate([x, pad], axis=-1)


def _vec(like, values, dt):
    """A constant of the transform, in `dt`, on `like`'s device (CuPy refuses to mix in a
    NumPy array)."""
    return _like(like, np.asarray(values).astype(dt))


def _dct_last(x, type, norm, inverse):
    """The (inverse) DCT of real `x` along its last axis."""
    N = _shape_of(x)[-1]
    dt = _dtype_of(x)
    cdt = np.result_type(dt, np.complex64)
    ortho = norm == "ortho"
    if inverse:   # idct of type t is a scaled dct of the inverse type
        if ortho:
            type = {2: 3, 3: 2}.get(type, type)
            return _dct_last(x, type, norm, False)
        scale = 1.0 / (2 * (N - 1)) if type == 1 else 1.0 / (2 * N)
        if type == 1 and N == 1:
            scale = 1.0
        return _dct_last(x, {2: 3, 3: 2}.get(type, type), None, False) * _vec(x, scale, dt)
    k = np.arange(N)
    if type == 1:
        if N == 1:
            return x
        if ortho:
            pre = np.full(N, 0.5)
            pre[[0, -1]] = 1 / np.sqrt(2.0)
            x = x * _vec(x, pre, dt)
        y = fnp.concatenate([x, fnp.flip(x[..., 1:N - 1], axis=-1)], axis=-1)
        out = fnp.real(fnp.fft.fft(y, axis=-1)[..., :N])
        if ortho:
            post = np.full(N, np.sqrt(2.0 / (N - 1)))
            post[[0, -1]] /= np.sqrt(2.0)
            out = out * _vec(x, post, dt)
        return out
    if type == 2:
        y = fnp.concatenate([x, fnp.flip(x, axis=-1)], axis=-1)
        out = fnp.real(fnp.fft.fft(y, axis=-1)[..., :N] * _vec(x, np.exp(-0.5j * np.pi * k / N),
                                                                  cdt))
        if ortho:
            post = np.full(N, np.sqrt(1.0 / (2 * N)))
            post[0] = np.sqrt(1.0 / (4 * N))
            out = out * _vec(x, post, dt)
        return out
    if type == 3:
        pre = np.full(N, 2.0)
        pre[0] = 1.0
        if ortho:
            pre = np.full(N, np.sqrt(1.0 / (2 * N)))
            pre[0] = np.sqrt(1.0 / N)
            pre[1:] *= 2.0
        z = x * _vec(x, pre * np.exp(0.5j * np.pi * k / N), cdt)
        return fnp.real(fnp.fft.ifft(z, n=2 * N, axis=-1)[..., :N]) * _vec(x, 2 * N, dt)
    # type 4
    z = x * _vec(x, np.exp(-0.5j * np.pi * k / N), cdt)
    out = fnp.real(fnp.fft.fft(z, n=2 * N, axis=-1)[..., :N]
                   * _vec(x, 2 * np.exp(-0.25j * np.pi * (2 * k + 1) / N), cdt))
    if ortho:
        out = out * _vec(x, np.sqrt(1.0 / (2 * N)), dt)
    return out


def _transform(fname, x, type, n, axis, norm, inverse):
    _check(fname, type, norm)
    x = _operand(fname, x)
    nd = len(_shape_of(x))
    if not -nd <= axis < nd:
        raise ValueError(f"scipy.fft.{fname}: axis {axis} is out of bounds for an array of "
                         f"rank {nd}")
    axis %= nd
    n = _shape_of(x)[axis] if n is None else int(n)
    if n < 1 or (type == 1 and n < 2 and not inverse and norm == "ortho"):
        raise ValueError(f"scipy.fft.{fname}: invalid number of data points ({n}) for a "
                         f"type-{type} transform")
    if _dtype_of(x).kind == "c":
        re = _transform(fname, fnp.real(x), type, n, axis, norm, inverse)
        im = _transform(fname, fnp.imag(x), type, n, axis, norm, inverse)
        return re + im * _vec(x, 1j, _dtype_of(x))
    x = fnp.moveaxis(x, axis, -1)
    out = _dct_last(_resize_last(x, n), type, norm, inverse)
    return fnp.moveaxis(out, -1, axis)


def dct(x: ArrayLike, type: int = 2, n: int | None = None, axis: int = -1,
        norm: str | None = None) -> Array:
    """Discrete cosine transform of `x` along `axis` (SciPy's `scipy.fft.dct`): type 1 to
    4, `n` pads with zeros or truncates, norm None ('backward') or 'ortho'.

    Example:
        >>> fg.scipy.fft.dct(np.array([1.0, 2.0, 3.0]))   # 2 sum_n x_n cos(pi k (2n+1) / 6)
        array([12.        , -3.46410162,  0.        ])
        >>> fg.grad(lambda x: fg.scipy.fft.dct(x)[1])(np.array([1.0, 2.0, 3.0]))
        array([ 1.73205081,  0.        , -1.73205081])
    """
    return _transform("dct", x, type, n, axis, norm, False)


def idct(x: ArrayLike, type: int = 2, n: int | None = None, axis: int = -1,
         norm: str | None = None) -> Array:
    """Inverse discrete cosine transform (SciPy's `scipy.fft.idct`): `idct(dct(x)) == x`
    for the same type and norm.

    Example:
        >>> fg.scipy.fft.idct(np.array([12.0, -3.46410162, 0.0]))
        array([1., 2., 3.])
    """
    return _transform("idct", x, type, n, axis, norm, True)


def _nd(fname, x, type, s, axes, norm, inverse):
    _check(fname, type, norm)
    x = _operand(fname, x)
    nd = len(_shape_of(x))
    if s is not None:
        s = [int(s)] if np.ndim(s) == 0 else [int(v) for v in s]
        if len(s) > nd:
            raise ValueError(f"scipy.fft.{fname}: s must have at most x.ndim ({nd}) elements, "
                             f"got {len(s)}")
    if axes is None:
        axes = tuple(range(nd - len(s), nd)) if s is not None else tuple(range(nd))
    else:
        axes = (int(axes),) if np.ndim(axes) == 0 else tuple(int(a) for a in axes)
        if s is not None and len(s) != len(axes):
            raise ValueError(f"scipy.fft.{fname}: s and axes must have the same length, got "
                             f"{len(s)} and {len(axes)}")
    for i, a in enumerate(axes):
        x = _transform(fname, x, type, None if s is None else s[i], a, norm, inverse)
    return x


def dctn(x: ArrayLike, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """Multidimensional DCT (SciPy's `scipy.fft.dctn`): `dct` along each of `axes` (all
    axes by default, or the last `len(s)`), each padded or truncated to `s`.

    Example:
        >>> fg.scipy.fft.dctn(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[40.        , -5.65685425],
               [-11.3137085 ,  0.        ]])
    """
    return _nd("dctn", x, type, s, axes, norm, False)


def idctn(x: ArrayLike, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """Multidimensional inverse DCT (SciPy's `scipy.fft.idctn`).

    Example:
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> np.allclose(fg.scipy.fft.idctn(fg.scipy.fft.dctn(x)), x)
        True
    """
    return _nd("idctn", x, type, s, axes, norm, True)
