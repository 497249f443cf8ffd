"""The discrete Fourier transform: one `fft` primitive for every fungrad.numpy.fft function.

`fft(x, fft_type, axes, lengths, norm)` transforms `x` over `axes` (non-negative, in order)
with NumPy's `fftn` family: `fft_type` is "fft" / "ifft" (complex to complex), "rfft" (real to
the half spectrum; the last of `axes` is halved) or "irfft" (half spectrum to real);
`lengths` are the lengths of the full (complex or real) signal along `axes`, so an "irfft"
operand has `lengths[-1] // 2 + 1` entries on its last axis; `norm` is NumPy's ("backward",
"ortho", "forward"). fungrad.numpy.fft pads or truncates first (`n=` / `s=`), so the operand
always has exactly these lengths.

Every kind is linear (real-linear for "irfft", which reads only the real part of the zero
and Nyquist entries), so the JVP is the same transform. Transposes, under fungrad's real
pairing Re(sum(ct * t)) (never conjugating):
- fft / ifft: the DFT matrix is symmetric, so the transpose is the same transform (same norm);
- rfft = (keep the first half) o (full fft of the real input): the cotangent is zero-padded to
  the full length, transformed with the full fft, and its real part taken;
- irfft reads each half-spectrum entry k with weight w_k (1 for the zero and, for even
  lengths, the Nyquist entry, 2 for the entries that stand for a conjugate pair too), so
  its transpose is w * conj(rfft(ct)) with the norm whose scale equals irfft's (the
  "backward" / "forward" directions swap, "ortho" stays).
"""
from __future__ import annotations

import numpy as np

from ..core.ir import ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from . import elementwise as E
from .shape import concatenate, linear_jvp

FFT_TYPES = ("fft", "ifft", "rfft", "irfft")
NORMS = ("backward", "ortho", "forward")
# the norm whose scale in the other direction equals this one's (irfft's transpose is an rfft)
SWAP_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}

_NUMPY = {"fft": np.fft.fftn, "ifft": np.fft.ifftn, "rfft": np.fft.rfftn}


def _real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float32 if np.dtype(dtype) == np.complex64 else np.float64)


def _fft_impl(x, fft_type, axes, lengths, norm):
    if fft_type == "irfft":
        return np.fft.irfftn(x, s=lengths, axes=axes, norm=norm)
    if x.dtype.kind == "V":  # an ml_dtypes float (bfloat16): NumPy's fft has no loop for it
        x = x.astype(np.float32)
    return _NUMPY[fft_type](x, axes=axes, norm=norm)


def _operand_lengths(fft_type, lengths):
    return lengths[:-1] + (lengths[-1] // 2 + 1,) if fft_type == "irfft" else lengths


def _fft_aval(x, fft_type, axes, lengths, norm):
    if fft_type not in FFT_TYPES or norm not in NORMS:
        raise ValueError(f"fft: fft_type must be one of {FFT_TYPES} and norm one of {NORMS}; "
                         f"got {fft_type!r}, {norm!r}")
    want = _operand_lengths(fft_type, lengths)
    have = tuple(x.shape[a] if 0 <= a < x.ndim else None for a in axes)
    if have != want:
        raise ValueError(f"fft ({fft_type}): operand {x.str_short()} must have lengths {want} "
                         f"along axes {axes} (fungrad.numpy.fft pads or truncates first)")
    is_complex = x.dtype.kind == "c"
    if is_complex != (fft_type in ("fft", "ifft", "irfft")):
        raise TypeError(f"fft ({fft_type}): operand must be {'real' if is_complex else 'complex'}"
                        f", got {x.str_short()}")
    shape = list(x.shape)
    if fft_type == "rfft":
        shape[axes[-1]] = lengths[-1] // 2 + 1
        return ShapedArray(tuple(shape), E.complex_dtype(x.dtype))
    if fft_type == "irfft":
        shape[axes[-1]] = lengths[-1]
        return ShapedArray(tuple(shape), _real_dtype(x.dtype))
    return ShapedArray(x.shape, x.dtype)


fft_p = Primitive("fft")
fft_p.impl = _fft_impl
fft_p.abstract_eval = _fft_aval
fft_p.jvp = linear_jvp(fft_p)
fft_p.fresh_output = True


def fft(x, fft_type: str, axes: tuple, lengths: tuple, norm: str = "backward"):
    """Bind the `fft` primitive (see the module docstring for the parameters)."""
    return fft_p.bind(x, fft_type=fft_type, axes=tuple(axes), lengths=tuple(lengths), norm=norm)


def zero_pad(x, axis: int, n: int):
    """`x` with zeros appended along `axis` up to length `n` (a concatenate: its transpose is
    a slice)."""
    a = aval_of(x)
    extra = n - a.shape[axis]
    if extra <= 0:
        return x
    shape = list(a.shape)
    shape[axis] = extra
    return concatenate([x, np.zeros(shape, a.dtype)], axis)


def _hermitian_weights(aval, axis, n):
    """w_k along `axis` (1 at the zero and even-length Nyquist entries, else 2), broadcast
    to `aval`'s shape in its dtype."""
    m = aval.shape[axis]
    w = np.full(m, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * aval.ndim
    shape[axis] = m
    return np.broadcast_to(w.reshape(shape).astype(aval.dtype), aval.shape)


def _fft_transpose(ct, x, fft_type, axes, lengths, norm):
    if fft_type in ("fft", "ifft"):
        return [fft(ct, fft_type, axes, lengths, norm)]
    if fft_type == "rfft":
        full = fft(zero_pad(ct, axes[-1], lengths[-1]), "fft", axes, lengths, norm)
        out = E.real(full)
        dt = x.aval.dtype if type(x) is Var else aval_of(x).dtype
        return [out if aval_of(out).dtype == dt else E.convert_element_type(out, dt)]
    half = E.conj(fft(ct, "rfft", axes, lengths, SWAP_NORM[norm]))
    return [E.mul(half, _hermitian_weights(aval_of(half), axes[-1], lengths[-1]))]


def _fft_batch(vals, dims, axis_size, fft_type, axes, lengths, norm):
    d = dims[0]
    moved = tuple(a + 1 if a >= d else a for a in axes)  # the batch axis stays where it is
    return fft(vals[0], fft_type, moved, lengths, norm), d


fft_p.transpose = _fft_transpose
fft_p.batch = _fft_batch

FFT_PRIMITIVES = [fft_p]

