"""Specs of fnp's statistics: differences, cumulative reductions, order statistics, moments
and the nan-functions (fungrad/numpy/_statistics.py, _nanfunctions.py).

Order statistics draw distinct values (no ties, so the selected elements are unique and
finite differences see a smooth function); nan-function inputs hold at most one NaN, in a
slice of at least two elements (an all-NaN slice is NaN, whose finite difference is NaN).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fungrad.numpy as fnp

from .registry import COMPLEX_CASES, FNP, Case, spec
from .strategies import (COMPLEX, NONSCALAR, SHAPES, arrays, away_from_zero, axis_for, distinct,
                         uniform)

SMALL = hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4)
MATRIX = hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=4)


def _int_axis(draw, ndim):
    return draw(st.integers(-ndim, ndim - 1))


# ----------------------------------------------------------------------------- differences
@spec(FNP, "diff")
def _diff(draw, name):
    shape = draw(SMALL)
    ax = _int_axis(draw, len(shape))
    n = draw(st.integers(0, 2))
    kw = {"n": n, "axis": ax}
    if draw(st.booleans()):
        kw["prepend"] = 0.5
    if draw(st.booleans()):
        kw["append"] = draw(arrays(tuple(1 if i == ax % len(shape) else d
                                         for i, d in enumerate(shape))))
    return Case(lambda x: fnp.diff(x, **kw), (draw(arrays(shape)),))


@spec(FNP, "ediff1d")
def _ediff1d(draw, name):
    kw = {"to_begin": draw(st.sampled_from([None, 1.5, [1.0, 2.0]])),
          "to_end": draw(st.sampled_from([None, -1.0]))}
    return Case(lambda x: fnp.ediff1d(x, **kw), (draw(arrays(draw(SHAPES))),))


@spec(FNP, "gradient")
def _gradient(draw, name):
    edge = draw(st.sampled_from([1, 2]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=edge + 1, max_side=4))
    axis = draw(st.sampled_from([None] + list(range(len(shape)))))
    axes = range(len(shape)) if axis is None else [axis]
    kind = draw(st.sampled_from(["unit", "scalar", "coords"]))
    spacing = () if kind == "unit" else (0.7,) if kind == "scalar" else tuple(
        np.cumsum(draw(arrays((shape[a],), uniform(0.5, 1.5)))) for a in axes)
    return Case(lambda f: fnp.gradient(f, *spacing, axis=axis, edge_order=edge),
                (draw(arrays(shape)),))


@spec(FNP, "cumulative_sum", "cumulative_prod")
def _cumulative(draw, name):
    shape = draw(SMALL)
    axis = _int_axis(draw, len(shape)) if len(shape) > 1 or draw(st.booleans()) else None
    inc = draw(st.booleans())
    dom = away_from_zero(0.5, 1.5) if name == "cumulative_prod" else uniform(-2, 2)
    f = getattr(fnp, name)
    return Case(lambda x: f(x, axis=axis, include_initial=inc), (draw(arrays(shape, dom)),))


# ----------------------------------------------------------------------------- order statistics
@spec(FNP, "partition", "argpartition")
def _partition(draw, name):
    """What is well defined: the kth element, and the (sorted) sets on either side."""
    shape = draw(SMALL)
    ax = _int_axis(draw, len(shape))
    n = shape[ax]
    k = draw(st.integers(-n, n - 1))
    kk = k % n
    x = draw(arrays(shape, distinct()))
    take = lambda p, sl: p[(slice(None),) * (ax % len(shape)) + (sl,)]  # noqa: E731

    def parts(p):
        return (take(p, kk), fnp.sort(take(p, slice(0, kk)), axis=ax),
                fnp.sort(take(p, slice(kk + 1, None)), axis=ax))
    if name == "partition":
        return Case(lambda x: parts(fnp.partition(x, k, axis=ax)), (x,))
    return Case(lambda x: parts(fnp.argpartition(x, k, axis=ax)), (x,), diff=False)


QUANTILE_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
                    "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
                    "hazen", "weibull", "median_unbiased", "normal_unbiased"]


def _q(draw, scale):
    q = draw(st.sampled_from([0.5, 0.0, 1.0, 0.3, [0.1, 0.9], [[0.25], [0.75]]]))
    return q * scale if isinstance(q, float) else np.asarray(q) * scale


def _nan_input(draw, shape, axis):
    """Distinct values with at most one NaN, placed where every reduced slice keeps at
    least two valid values."""
    x = draw(arrays(shape, distinct()))
    axes = range(len(shape)) if axis is None else [axis] if isinstance(axis, int) else axis
    if int(np.prod([shape[a] for a in axes])) >= 3 and draw(st.booleans()):
        x.flat[draw(st.integers(0, x.size - 1))] = np.nan
    return x


@spec(FNP, "quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian")
def _quantile(draw, name):
    shape = draw(NONSCALAR)
    axis = axis_for(draw, len(shape))
    keepdims = draw(st.booleans())
    x = _nan_input(draw, shape, axis) if name.startswith("nan") else draw(
        arrays(shape, distinct()))
    f = getattr(fnp, name)
    if name.endswith("median"):
        return Case(lambda x: f(x, axis=axis, keepdims=keepdims), (x,))
    q = _q(draw, 100.0 if name.endswith("percentile") else 1.0)
    method = draw(st.sampled_from(QUANTILE_METHODS))
    return Case(lambda x: f(x, q, axis=axis, method=method, keepdims=keepdims), (x,))


# ----------------------------------------------------------------------------- moments
@spec(FNP, "average")
def _average(draw, name):
    shape = draw(NONSCALAR)
    kind = draw(st.sampled_from(["none", "full", "axis"]))
    axis = axis_for(draw, len(shape)) if kind != "axis" else _int_axis(draw, len(shape))
    returned, keepdims = draw(st.booleans()), draw(st.booleans())
    x = draw(arrays(shape))
    if kind == "none":
        return Case(lambda x: fnp.average(x, axis=axis, returned=returned, keepdims=keepdims),
                    (x,))
    wshape = shape if kind == "full" else (shape[axis],)
    w = draw(arrays(wshape, uniform(0.5, 2.0)))
    return Case(lambda x, w: fnp.average(x, axis=axis, weights=w, returned=returned,
                                         keepdims=keepdims), (x, w))


@spec(FNP, "ptp")
def _ptp(draw, name):
    shape = draw(SHAPES)
    kw = {"axis": axis_for(draw, len(shape)), "keepdims": draw(st.booleans())}
    return Case(lambda x: fnp.ptp(x, **kw), (draw(arrays(shape, distinct())),))


@spec(FNP, "count_nonzero")
def _count_nonzero(draw, name):
    shape = draw(SHAPES)
    kw = {"axis": axis_for(draw, len(shape)), "keepdims": draw(st.booleans())}
    x = draw(arrays(shape)) * (draw(arrays(shape)) > 0)
    return Case(lambda x: fnp.count_nonzero(x, **kw), (x,), diff=False)


@spec(FNP, "cov", "corrcoef")
def _cov(draw, name):
    shape = draw(MATRIX)
    rowvar = draw(st.booleans())
    x = draw(arrays(shape, distinct()))
    with_y = draw(st.booleans())
    args = (x, draw(arrays(shape, distinct()))) if with_y else (x,)
    if name == "corrcoef":
        return Case(lambda *a: fnp.corrcoef(*a, rowvar=rowvar), args)
    n_obs = shape[1] if rowvar else shape[0]
    kw = {"rowvar": rowvar, "bias": draw(st.booleans()),
          "ddof": draw(st.sampled_from([None, 0, 1]))}
    if draw(st.booleans()):
        kw["fweights"] = np.arange(n_obs) % 3 + 1
    if draw(st.booleans()):
        kw["aweights"] = draw(arrays((n_obs,), uniform(0.5, 2.0)))
    return Case(lambda *a: fnp.cov(*a, **kw), args)


# ----------------------------------------------------------------------------- nan-functions
NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                  "nanargmax", "nanargmin"]


@spec(FNP, *NAN_REDUCTIONS)
def _nan_reduction(draw, name):
    shape = draw(NONSCALAR)
    arg = name in ("nanargmax", "nanargmin")
    axis = axis_for(draw, len(shape), allow_tuple=not arg)
    x = _nan_input(draw, shape, axis)
    if name == "nanprod":
        x = np.where(np.isnan(x), x, 0.5 + np.abs(x) / 2)
    kw = {"axis": axis, "keepdims": draw(st.booleans())}
    if name in ("nanvar", "nanstd"):
        axes = range(len(shape)) if axis is None else (
            [axis] if isinstance(axis, int) else axis)
        size = int(np.prod([shape[a] for a in axes]))
        if size < 3:  # at least two valid values per slice
            x, kw["axis"] = draw(arrays((4,), distinct())), None
        kw["ddof"] = draw(st.sampled_from([0, 1])) if size >= 3 else 0
    f = getattr(fnp, name)
    return Case(lambda x: f(x, **kw), (x,), diff=not arg)


@spec(FNP, "nancumsum", "nancumprod")
def _nan_cumulative(draw, name):
    shape = draw(SHAPES)
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    dom = away_from_zero(0.5, 1.5) if name == "nancumprod" else uniform(-2, 2)
    x = draw(arrays(shape, dom))
    if draw(st.booleans()):
        x.flat[draw(st.integers(0, x.size - 1))] = np.nan
    f = getattr(fnp, name)
    return Case(lambda x: f(x, axis=axis), (x,))


# ----------------------------------------------------------------------------- complex
@spec(COMPLEX_CASES, "diff", "cumulative_sum", "nansum", "nanmean", "average", "cov")
def _complex_linear(draw, name):
    shape = draw(MATRIX if name == "cov" else SMALL)  # cov: two observations at least
    x = draw(arrays(shape, COMPLEX, np.complex128))
    fns = {"diff": lambda x: fnp.diff(x, axis=-1),
           "cumulative_sum": lambda x: fnp.cumulative_sum(x, axis=-1),
           "nansum": lambda x: fnp.nansum(x, axis=0), "nanmean": lambda x: fnp.nanmean(x),
           "average": lambda x: fnp.average(x, axis=0, weights=np.arange(1.0, shape[0] + 1)),
           "cov": lambda x: fnp.cov(x)}
    return Case(fns[name], (x,))
