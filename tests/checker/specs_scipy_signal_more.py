"""Specs of fungrad.scipy.signal's fftconvolve, detrend and spectral estimates (stft, istft,
welch, csd), of fungrad.scipy.fft's DCTs and of fungrad.scipy.ndimage.map_coordinates
(RegularGridInterpolator is a class: tests/test_scipy_signal_more.py)."""
from __future__ import annotations

from hypothesis import strategies as st

import fungrad.numpy as fnp
import fungrad.scipy.fft as ffft
import fungrad.scipy.ndimage as fnd
import fungrad.scipy.signal as fsig

from .registry import FNP, Case, spec
from .strategies import arrays, between_integers


@spec(FNP, "scipy.signal.fftconvolve")
def _fftconvolve(draw, name):
    nd = draw(st.integers(1, 2))
    mode = draw(st.sampled_from(["full", "same", "valid"]))
    sa = tuple(draw(st.integers(1, 4)) for _ in range(nd))
    sb = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    axes = None
    if nd == 2 and draw(st.booleans()):
        axes = [draw(st.integers(0, 1))]
        other = 1 - axes[0]
        sb = tuple(sa[other] if d == other else s for d, s in enumerate(sb))
    if mode == "valid":
        sb = tuple(min(p, q) for p, q in zip(sa, sb))
        if draw(st.booleans()):
            sa, sb = sb, sa
    return Case(lambda a, b: fsig.fftconvolve(a, b, mode=mode, axes=axes),
                (draw(arrays(sa)), draw(arrays(sb))))


@spec(FNP, "scipy.signal.detrend")
def _detrend(draw, name):
    shape = tuple(draw(st.integers(1, 5)) for _ in range(draw(st.integers(1, 2))))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    kind = draw(st.sampled_from(["linear", "constant"]))
    bp = draw(st.sampled_from([0, [1]])) if kind == "linear" and shape[axis] > 2 else 0
    return Case(lambda x: fsig.detrend(x, axis=axis, type=kind, bp=bp), (draw(arrays(shape)),))


def _spectral_kw(draw, length):
    nperseg = draw(st.integers(2, min(6, length)))
    return {"nperseg": nperseg, "noverlap": draw(st.integers(0, nperseg - 1)),
            "nfft": draw(st.sampled_from([None, nperseg + 1])),
            "window": draw(st.sampled_from(["hann", "boxcar"]))}


def _stft_real_imag(x, **kw):
    z = fsig.stft(x, **kw)[2]
    return fnp.real(z), fnp.imag(z)


@spec(FNP, "scipy.signal.stft")
def _stft(draw, name):
    length = draw(st.integers(4, 10))
    batch = draw(st.sampled_from([(), (2,)]))
    kw = _spectral_kw(draw, length)
    kw.update(boundary=draw(st.sampled_from(["zeros", "even", "odd", "constant", None])),
              padded=draw(st.booleans()), detrend=draw(st.sampled_from([False, "constant"])),
              return_onesided=draw(st.booleans()))
    if kw["boundary"] == "odd" and kw["nperseg"] // 2 > length - 1:
        kw["boundary"] = "zeros"
    return Case(lambda x: _stft_real_imag(x, **kw), (draw(arrays(batch + (length,))),))


def _istft_real(z, **kw):
    return fnp.real(fsig.istft(z, **kw)[1])


@spec(FNP, "scipy.signal.istft")
def _istft(draw, name):
    nperseg = draw(st.sampled_from([4, 6]))
    nseg = draw(st.integers(2, 4))
    onesided = draw(st.booleans())
    nfreq = nperseg // 2 + 1 if onesided else nperseg
    z = draw(arrays((nfreq, nseg))) + 1j * draw(arrays((nfreq, nseg)))
    kw = {"nperseg": nperseg, "input_onesided": onesided,
          "window": draw(st.sampled_from(["hann", "hamming"]))}
    return Case(lambda z: _istft_real(z, **kw), (z,))


@spec(FNP, "scipy.signal.welch")
def _welch(draw, name):
    length = draw(st.integers(4, 10))
    kw = _spectral_kw(draw, length)
    kw.update(scaling=draw(st.sampled_from(["density", "spectrum"])),
              detrend=draw(st.sampled_from(["constant", "linear", False])),
              average=draw(st.sampled_from(["mean", "mean", "median"])), fs=2.0)
    return Case(lambda x: fsig.welch(x, **kw)[1], (draw(arrays((length,))),))


def _csd_parts(x, y, **kw):
    p = fsig.csd(x, y, **kw)[1]
    return fnp.real(p), fnp.imag(p)


@spec(FNP, "scipy.signal.csd")
def _csd(draw, name):
    length = draw(st.integers(4, 10))
    kw = _spectral_kw(draw, length)
    kw.update(return_onesided=draw(st.booleans()))
    return Case(lambda x, y: _csd_parts(x, y, **kw),
                (draw(arrays((2, length))), draw(arrays((2, length)))))


@spec(FNP, "scipy.fft.dct", "scipy.fft.idct")
def _dct(draw, name):
    f = getattr(ffft, name.rpartition(".")[2])
    shape = tuple(draw(st.integers(2, 4)) for _ in range(draw(st.integers(1, 2))))
    kw = {"type": draw(st.integers(1, 4)), "n": draw(st.sampled_from([None, 2, 5])),
          "axis": draw(st.integers(-len(shape), len(shape) - 1)),
          "norm": draw(st.sampled_from([None, "ortho"]))}
    return Case(lambda x: f(x, **kw), (draw(arrays(shape)),))


@spec(FNP, "scipy.fft.dctn", "scipy.fft.idctn")
def _dctn(draw, name):
    f = getattr(ffft, name.rpartition(".")[2])
    shape = tuple(draw(st.integers(2, 4)) for _ in range(draw(st.integers(1, 3))))
    axes = tuple(draw(st.permutations(range(len(shape))))[:draw(st.integers(1, len(shape)))])
    s = tuple(draw(st.integers(2, 5)) for _ in axes) if draw(st.booleans()) else None
    kw = {"type": draw(st.integers(1, 4)), "s": s, "axes": axes,
          "norm": draw(st.sampled_from([None, "ortho"]))}
    return Case(lambda x: f(x, **kw), (draw(arrays(shape)),))


@spec(FNP, "scipy.ndimage.map_coordinates")
def _map_coordinates(draw, name):
    shape = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 2))))
    order = draw(st.integers(0, 1))
    mode = draw(st.sampled_from(["constant", "nearest", "wrap", "mirror", "reflect"]))
    npts = (draw(st.integers(1, 4)),)
    # coordinates between integers (order 1 is linear there), some outside the input
    coords = [draw(arrays(npts, between_integers(-2, n + 1))) for n in shape]
    image = draw(arrays(shape))
    if order == 0:   # piecewise constant in the coordinates: differentiate the input only
        return Case(lambda im: fnd.map_coordinates(im, coords, 0, mode=mode, cval=0.5),
                    (image,))
    return Case(lambda im, *c: fnd.map_coordinates(im, list(c), 1, mode=mode, cval=0.5),
                (image, *coords))
