"""Specs of the 1-D signal primitives (fungrad/lax/signal.py: convolve1d, correlate1d) and
of searchsorted (fungrad/lax/search.py). fnp.convolve / fnp.correlate / fnp.searchsorted keep
their specs in specs_polynomial.py and registry.py."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from fungrad.lax.search import searchsorted_p
from fungrad.lax.signal import convolve1d_p, correlate1d_p

from .registry import COMPLEX_CASES, PRIM, Case, spec
from .strategies import COMPLEX, SHAPES, arrays, uniform

PRIMS = {"convolve1d": convolve1d_p, "correlate1d": correlate1d_p}


def _window_case(draw, name, domain, dtype):
    """Any window of the full result, including ones reaching past either end (zeros)."""
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    full = n + m - 1
    start = draw(st.integers(-2, full))
    length = draw(st.integers(1, full + 2))
    prim = PRIMS[name]
    return Case(lambda a, v: prim.bind(a, v, start=start, length=length),
                (draw(arrays((n,), domain, dtype)), draw(arrays((m,), domain, dtype))))


@spec(PRIM, *PRIMS)
def _signal_prim(draw, name):
    return _window_case(draw, name, uniform(-2, 2), np.float64)


@spec(COMPLEX_CASES, *PRIMS)
def _signal_prim_complex(draw, name):
    return _window_case(draw, name, COMPLEX, np.complex128)


@spec(PRIM, "searchsorted")
def _searchsorted_prim(draw, name):
    # half-integers: repeated values and v on them (where `side` matters)
    a = np.sort(np.round(2 * draw(arrays((draw(st.integers(1, 5)),), uniform(-2, 2)))) / 2)
    side = draw(st.sampled_from(["left", "right"]))
    v = np.round(2 * draw(arrays(draw(SHAPES), uniform(-3, 3)))) / 2
    return Case(lambda a, v: searchsorted_p.bind(a, v, side=side, nbatch=0), (a, v), diff=False)
