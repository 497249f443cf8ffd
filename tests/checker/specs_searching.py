"""Specs of searching, counting, sets and histograms (fungrad/numpy/_searching.py).

Value-dependent shapes use JAX's static `size=` so every check (jit, vmap) applies; float
inputs to the set functions are distinct (a tie broken by a finite-difference step would
change the result), integer inputs exercise duplicates (no derivative).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp

from .registry import FNP, Case, int_arrays, spec
from .strategies import NONSCALAR, SHAPES, arrays, between_integers, distinct, uniform


def _sample_points(draw, n=5):
    """Increasing sample points near -2..2, at least 0.8 apart; query points drawn with
    between_integers stay >= 0.1 away from them (no kinks inside a finite difference)."""
    return np.arange(n) - 2.0 + draw(arrays((n,), uniform(-0.1, 0.1)))


@spec(FNP, "interp")
def _interp(draw, name):
    xp = _sample_points(draw)
    fp = draw(arrays((5,)))
    x = draw(arrays(draw(SHAPES), between_integers(-3, 3)))
    kind = draw(st.sampled_from(["plain", "left_right", "period"]))
    if kind == "period":
        return Case(lambda x, xp, fp: fnp.interp(x, xp, fp, period=5.0), (x, xp + 2.0, fp))
    kw = {"left": -1.0, "right": 2.0} if kind == "left_right" else {}
    return Case(lambda x, xp, fp: fnp.interp(x, xp, fp, **kw), (x, xp, fp))


@spec(FNP, "digitize")
def _digitize(draw, name):
    bins = np.array([-1.0, 0.0, 0.5, 1.5])
    bins = bins if draw(st.booleans()) else bins[::-1].copy()
    right = draw(st.booleans())
    x = draw(arrays(draw(SHAPES), between_integers(-2, 2)))
    if draw(st.booleans()):  # traced bins as well
        return Case(lambda x, b: fnp.digitize(x, b, right=right), (x, bins), diff=False)
    return Case(lambda x: fnp.digitize(x, bins, right=right), (x,), diff=False)


@spec(FNP, "bincount")
def _bincount(draw, name):
    n = draw(st.integers(1, 6))
    idx = draw(int_arrays((n,), 0, 5))
    if draw(st.booleans()):
        return Case(lambda i: fnp.bincount(i, length=4), (idx,), diff=False)
    # (differentiable cases take float arguments only: the indices are a constant here)
    return Case(lambda w: fnp.bincount(idx, w, length=5), (draw(arrays((n,))),))


EDGES = np.array([-2.0, -0.9, 0.1, 1.2, 2.0])


@spec(FNP, "histogram", "histogram_bin_edges")
def _histogram(draw, name):
    n = draw(st.integers(1, 6))
    a = draw(arrays((n,), between_integers(-2, 1)))  # away from the edges
    bins = draw(st.sampled_from([4, EDGES]))
    density = draw(st.booleans())
    if name == "histogram_bin_edges":
        if draw(st.booleans()):  # from a's min and max: differentiable
            return Case(lambda a: fnp.histogram_bin_edges(a, bins=3), (a,))
        return Case(lambda a: fnp.histogram_bin_edges(a, bins, range=(-2, 2)), (a,),
                    diff=False)
    w = draw(arrays((n,)))
    return Case(lambda a, w: fnp.histogram(a, bins, range=(-2, 2), weights=w,
                                           density=density)[0], (a, w))


@spec(FNP, "histogram2d", "histogramdd")
def _histogram2d(draw, name):
    n = draw(st.integers(1, 6))
    x, y = (draw(arrays((n,), between_integers(-2, 1))) for _ in range(2))
    w = draw(arrays((n,)))
    bins = draw(st.sampled_from([2, [3, EDGES]]))
    rng = [(-2, 2), (-2, 2)]
    if name == "histogram2d":
        return Case(lambda x, y, w: fnp.histogram2d(x, y, bins, rng, weights=w)[0], (x, y, w))
    return Case(lambda x, y, w: fnp.histogramdd(fnp.stack([x, y], 1), bins, rng,
                                                weights=w)[0], (x, y, w))


def _values(draw, shape):
    """(x, diff): distinct floats (differentiable) or small ints with repeats (not)."""
    if draw(st.booleans()):
        return draw(arrays(shape, distinct())), True
    return draw(int_arrays(shape, 0, 4)), False


UNIQUE_FLAGS = [(False, False, False), (True, True, True), (False, True, False),
                (False, False, True), (True, False, False)]


@spec(FNP, "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all")
def _unique(draw, name):
    x, diff = _values(draw, draw(NONSCALAR))
    size = draw(st.integers(1, x.size + 1))
    fill = draw(st.sampled_from([None, -1]))
    if name == "unique":
        flags = draw(st.sampled_from(UNIQUE_FLAGS))
        f = lambda x: fnp.unique(x, *flags, size=size, fill_value=fill)  # noqa: E731
    else:
        g = getattr(fnp, name)
        f = lambda x: tuple(g(x, size=size, fill_value=fill))  # noqa: E731
    # differentiable cases check the (float) values; the integer outputs have none
    pick = (lambda out: out[0] if isinstance(out, tuple) else out) if diff else (lambda o: o)
    return Case(lambda x: pick(f(x)), (x,), diff=diff)


@spec(FNP, "isin")
def _isin(draw, name):
    x = draw(int_arrays(draw(SHAPES), 0, 6))
    t = draw(int_arrays(draw(NONSCALAR), 0, 6))
    invert = draw(st.booleans())
    return Case(lambda x, t: fnp.isin(x, t, invert=invert), (x, t), diff=False)


@spec(FNP, "intersect1d", "union1d", "setdiff1d", "setxor1d")
def _sets(draw, name):
    n1, n2 = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    size = draw(st.integers(1, n1 + n2))
    f = getattr(fnp, name)
    if name == "union1d" and draw(st.booleans()):  # distinct floats: differentiable
        both = draw(arrays((n1 + n2,), distinct()))
        return Case(lambda a, b: f(a, b, size=size), (both[:n1], both[n1:]))
    a, b = draw(int_arrays((n1,), 0, 5)), draw(int_arrays((n2,), 0, 5))
    fill = draw(st.sampled_from([None, 9]))
    return Case(lambda a, b: f(a, b, size=size, fill_value=fill), (a, b), diff=False)


@spec(FNP, "argwhere", "flatnonzero")
def _argwhere(draw, name):
    x = draw(int_arrays(draw(SHAPES), 0, 3))
    size = draw(st.integers(0, x.size + 1))
    fill = draw(st.sampled_from([None, -1]))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, size=size, fill_value=fill), (x,), diff=False)


@spec(FNP, "lexsort")
def _lexsort(draw, name):
    n = draw(st.integers(1, 5))
    keys = draw(int_arrays((draw(st.integers(1, 3)), n), 0, 3))
    return Case(lambda k: fnp.lexsort(k), (keys,), diff=False)
