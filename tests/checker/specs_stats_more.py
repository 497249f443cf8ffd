"""Registry specs of the distributions and functions of fungrad.scipy.stats added after the
first set (chi2, gennorm, geom, gumbel_l, gumbel_r, nbinom, pareto, truncnorm, vonmises,
wrapcauchy, betabinom, multinomial; sem, rankdata, mode), following specs_scipy's stats
patterns: operands drawn where the functions are smooth, parameters that have no derivative
(k, betabinom's integer n, shapes inside gammaincc) closed over."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fungrad.scipy.stats as fst

from .registry import FNP, Case, spec
from . import specs_scipy as S
from .specs_scipy import LOC, POSITIVE, Q, SCALE, _names, _needs_scipy, _param_shapes
from .specs_scipy import _stats_fn
from .strategies import DEFAULT, SHAPES, arrays, away_from_zero, distinct, uniform

CONTINUOUS = {
    ("chi2", "logpdf pdf"): [uniform(0.5, 3.0), POSITIVE, LOC, SCALE],
    ("gennorm", "logpdf pdf"): [away_from_zero(0.3, 2.0), uniform(0.8, 3.0)],
    ("gumbel_r", "logpdf pdf cdf logcdf sf logsf"): [DEFAULT, LOC, SCALE],
    ("gumbel_r", "ppf"): [Q, LOC, SCALE],
    ("gumbel_l", "logpdf pdf cdf logcdf sf logsf"): [DEFAULT, LOC, SCALE],
    ("gumbel_l", "ppf"): [Q, LOC, SCALE],
    ("pareto", "logpdf pdf cdf logcdf sf logsf"): [uniform(1.5, 4.0), POSITIVE, LOC,
                                                   uniform(0.7, 1.0)],
    ("pareto", "ppf"): [Q, POSITIVE, LOC, SCALE],
    # |z| <= 1 inside bounds a <= -1.5, b >= 1.5
    ("truncnorm", "logpdf pdf cdf logcdf sf logsf"): [uniform(-0.5, 0.5), uniform(-3.0, -1.5),
                                                      uniform(1.5, 3.0), LOC, SCALE],
    ("vonmises", "logpdf pdf"): [DEFAULT, POSITIVE],
    ("wrapcauchy", "logpdf pdf"): [uniform(0.3, 6.0), uniform(0.1, 0.9)],
}
# differentiable in x, loc, scale only (the shape sits in gammaincc's a): shape closed over
SHAPE_CONSTANTS = {
    ("chi2", "cdf logcdf sf logsf"): (uniform(0.5, 3.0), [POSITIVE]),
}
# discrete: k closed over, the parameters drawn (betabinom's n too: it must be an integer)
DISCRETE = {
    ("geom", "logpmf pmf"): (lambda rng, s: rng.integers(1, 6, size=s).astype(float),
                             [uniform(0.1, 0.9)]),
    ("nbinom", "logpmf pmf"): (lambda rng, s: rng.integers(0, 6, size=s).astype(float),
                               [POSITIVE, uniform(0.1, 0.9)]),
}
# specs_scipy's stats specs serve these tables too: merged into its tables, their names
# registered with the same strategies
for table, names, mine, strategy in (
        (S.CONTINUOUS, S.CONTINUOUS_NAMES, CONTINUOUS, S._stats_continuous),
        (S.SHAPE_CONSTANTS, S.SHAPE_NAMES, SHAPE_CONSTANTS, S._stats_shape_constants),
        (S.DISCRETE, S.DISCRETE_NAMES, DISCRETE, S._stats_discrete)):
    table.update(mine)
    names.update(_names(mine))
    spec(FNP, *_names(mine))(strategy)


@spec(FNP, "scipy.stats.gennorm.cdf")
def _gennorm_cdf(draw, name):
    _needs_scipy()
    shape = draw(SHAPES)
    beta = draw(arrays(shape, uniform(0.8, 3.0)))   # (gammaincc's a = 1/beta: closed over)
    return Case(lambda x: fst.gennorm.cdf(x, beta), (draw(arrays(shape, away_from_zero(0.3,
                                                                                  2.0))),))


@spec(FNP, "scipy.stats.betabinom.logpmf", "scipy.stats.betabinom.pmf")
def _betabinom(draw, name):
    _needs_scipy()
    shapes = _param_shapes(draw, 3)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    k = rng.integers(0, 5, size=shapes[0]).astype(float)
    n = float(draw(st.integers(4, 6)))
    f = _stats_fn(name)
    return Case(lambda a, b: f(k, n, a, b), tuple(draw(arrays(s, POSITIVE)) for s in shapes[1:]))


@spec(FNP, "scipy.stats.multinomial.logpmf", "scipy.stats.multinomial.pmf")
def _multinomial(draw, name):
    _needs_scipy()
    m = draw(st.integers(2, 4))
    rest = draw(st.sampled_from([(), (2,), (3, 1)]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    n = float(draw(st.integers(0, 6)))
    x = rng.multinomial(int(n), np.ones(m) / m, size=rest).astype(float)
    raw = draw(arrays(rest[-1:] + (m,), uniform(0.2, 1.0)))
    p = raw / raw.sum(axis=-1, keepdims=True)      # (the tangents move it off the simplex)
    f = _stats_fn(name)
    return Case(lambda p: f(x, n, p), (p,))


@spec(FNP, "scipy.stats.sem")
def _sem(draw, name):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    ddof = draw(st.sampled_from([0, 1]))
    keepdims = axis is not None and draw(st.booleans())
    return Case(lambda a: fst.sem(a, axis, ddof, keepdims=keepdims), (draw(arrays(shape)),))


@spec(FNP, "scipy.stats.rankdata")
def _rankdata(draw, name):
    shape = draw(SHAPES)
    method = draw(st.sampled_from(["average", "min", "max", "dense", "ordinal"]))
    axis = None if not shape or draw(st.booleans()) else draw(st.integers(0, len(shape) - 1))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    a = rng.integers(0, 3, size=shape)                  # ties
    if draw(st.booleans()):
        a = a.astype(float)
    return Case(lambda a: fst.rankdata(a, method, axis=axis), (a,), diff=False)


@spec(FNP, "scipy.stats.mode")
def _mode(draw, name):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    axis = draw(st.sampled_from([None] + list(range(len(shape)))))
    keepdims = axis is not None and draw(st.booleans())
    if draw(st.booleans()):   # integer values with ties: mode and count, no derivative
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
        a = rng.integers(0, 3, size=shape)
        return Case(lambda a: tuple(fst.mode(a, axis, keepdims=keepdims)), (a,), diff=False)
    # distinct floats: the mode is the smallest (every count is 1), its derivative one-hot
    return Case(lambda a: fst.mode(a, axis, keepdims=keepdims).mode,
                (draw(arrays(shape, distinct())),))
