"""Specs of fungrad.numpy.fft and the `fft` primitive: every transform with drawn axes,
lengths (`n` / `s` padding and truncating, odd lengths for the real inverses) and norms;
complex inputs in COMPLEX_CASES."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp
from fungrad.lax.fft import fft_p

from .registry import COMPLEX_CASES, FNP, PRIM, Case, spec
from .strategies import COMPLEX, NONSCALAR, arrays, uniform

NORMS = [None, "backward", "ortho", "forward"]
ONE_AXIS = ["fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft", "fft.ihfft"]
N_AXES = ["fft.fftn", "fft.ifftn", "fft.rfftn", "fft.irfftn"]
TWO_AXES = ["fft.fft2", "fft.ifft2", "fft.rfft2", "fft.irfft2"]
# functions whose input is a (half) spectrum: complex in COMPLEX_CASES
SPECTRUM_INPUT = {"fft.irfft", "fft.hfft", "fft.irfftn", "fft.irfft2"}
REAL_INPUT = {"fft.rfft", "fft.ihfft", "fft.rfftn", "fft.rfft2"}


def _fn(name):
    return getattr(fnp.fft, name.split(".", 1)[1])


def _one_axis(draw, name, shape):
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = draw(st.sampled_from([None, 1, 2, 3, 5]))
    if n is None and name in SPECTRUM_INPUT and shape[axis] == 1:
        n = draw(st.sampled_from([1, 2, 3]))  # the default 2 * (1 - 1) = 0 is invalid
    return {"n": n, "axis": axis, "norm": draw(st.sampled_from(NORMS))}


def _axes(draw, name, shape, two):
    nd = len(shape)
    if two:
        axes = tuple(draw(st.permutations(range(nd)))[:2]) if draw(st.booleans()) else (-2, -1)
    else:
        k = draw(st.integers(1, nd))
        axes = tuple(draw(st.permutations(range(nd)))[:k])
    s = None
    if draw(st.booleans()) or (name in SPECTRUM_INPUT and shape[axes[-1]] == 1):
        s = tuple(draw(st.sampled_from([1, 2, 3, 5])) for _ in axes)
    return {"s": s, "axes": axes, "norm": draw(st.sampled_from(NORMS))}


def _case(draw, name, complex_input):
    two = name in TWO_AXES
    shape = draw(st.sampled_from([(2, 3), (3, 2), (2, 1, 3), (4, 2)]) if two else NONSCALAR)
    kw = _one_axis(draw, name, shape) if name in ONE_AXIS else _axes(draw, name, shape, two)
    domain, dtype = (COMPLEX, np.complex128) if complex_input else (uniform(-2, 2), np.float64)
    f = _fn(name)
    return Case(lambda x: f(x, **kw), (draw(arrays(shape, domain, dtype)),))


@spec(FNP, *ONE_AXIS, *N_AXES, *TWO_AXES)
def _fft_real(draw, name):
    return _case(draw, name, complex_input=False)


@spec(COMPLEX_CASES, *[n for n in ONE_AXIS + N_AXES + TWO_AXES if n not in REAL_INPUT])
def _fft_complex(draw, name):
    return _case(draw, name, complex_input=True)


@spec(FNP, "fft.fftfreq", "fft.rfftfreq")
def _fftfreq(draw, name):
    n = draw(st.integers(1, 6))
    f = _fn(name)
    return Case(lambda d: f(n, d), (draw(arrays((), uniform(0.5, 2.0))),))


@spec(FNP, "fft.fftshift", "fft.ifftshift")
def _fftshift(draw, name):
    shape = draw(NONSCALAR)
    axes = draw(st.sampled_from([None, -1, 0, tuple(range(len(shape)))[::-1]]))
    f = _fn(name)
    return Case(lambda x: f(x, axes=axes), (draw(arrays(shape)),))


@spec(PRIM, "fft")
def _prim_fft(draw, name):
    """The primitive itself, operands already of the transform lengths."""
    shape = draw(NONSCALAR)
    k = draw(st.integers(1, len(shape)))
    axes = tuple(sorted(draw(st.permutations(range(len(shape))))[:k]))
    fft_type = draw(st.sampled_from(["fft", "ifft", "rfft", "irfft"]))
    norm = draw(st.sampled_from(["backward", "ortho", "forward"]))
    lengths = tuple(shape[a] for a in axes)
    if fft_type == "irfft":
        lengths = lengths[:-1] + (draw(st.sampled_from([1, 2, 3, 4])),)
        shape = list(shape)
        shape[axes[-1]] = lengths[-1] // 2 + 1
    x = draw(arrays(tuple(shape), COMPLEX, np.complex128)) if fft_type != "rfft" else \
        draw(arrays(tuple(shape)))
    return Case(lambda x: fft_p.bind(x, fft_type=fft_type, axes=axes, lengths=lengths, norm=norm),
                (x,))
