"""Specs of fungrad.scipy (special, stats, signal, integrate) and of the special-function
primitives (fungrad/lax/special.py). Parameters a function is not differentiable in (zeta's
exponent, the incomplete functions' shapes, discrete distributions' k) are closed over."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import strategies as st

import fungrad.scipy.integrate as fint
import fungrad.scipy.signal as fsig
import fungrad.scipy.special as fsp
import fungrad.scipy.stats as fst
from fungrad.lax import special as LS

from .registry import FNP, PRIM, Case, spec
from .strategies import DEFAULT, SHAPES, arrays, away_from_zero, uniform

HAVE_SCIPY = importlib.util.find_spec("scipy") is not None


def _needs_scipy():
    if not HAVE_SCIPY:
        pytest.skip("fungrad.scipy's special functions compute with SciPy (pip install scipy)")


# ----------------------------------------------------------------------------- special
# name -> domain of each differentiable operand; CONSTANT_FIRST: the leading operands that
# have no derivative (drawn from their own domain and closed over)
POSITIVE = uniform(0.5, 3.0)
SPECIAL_DOMAINS = {
    "gammaln": [POSITIVE], "digamma": [POSITIVE], "gamma": [POSITIVE], "erf": [DEFAULT],
    "erfc": [DEFAULT], "erfinv": [uniform(-0.9, 0.9)], "erfcx": [uniform(-1.0, 2.0)],
    "ndtr": [DEFAULT], "log_ndtr": [uniform(-6.0, 3.0)], "ndtri": [uniform(0.05, 0.95)],
    "i0": [DEFAULT], "i1": [DEFAULT], "i0e": [away_from_zero()], "i1e": [away_from_zero()],
    "betaln": [POSITIVE, POSITIVE], "beta": [POSITIVE, POSITIVE],
    "polygamma": [POSITIVE], "zeta": [POSITIVE], "gammainc": [uniform(0.2, 3.0)],
    "gammaincc": [uniform(0.2, 3.0)], "betainc": [uniform(0.1, 0.9)],
    "expit": [DEFAULT], "logit": [uniform(0.05, 0.95)], "xlogy": [DEFAULT, POSITIVE],
    "xlog1py": [DEFAULT, uniform(-0.5, 3.0)], "entr": [POSITIVE],
    "kl_div": [POSITIVE, POSITIVE], "rel_entr": [POSITIVE, POSITIVE],
}
CONSTANT_FIRST = {"polygamma": lambda rng, s: rng.integers(0, 3, size=s).astype(float),
                  "zeta": lambda rng, s: rng.choice([2.0, 3.0, 4.5], size=s),
                  "gammainc": lambda rng, s: rng.uniform(0.5, 3.0, size=(2,) + s)[:1],
                  "gammaincc": lambda rng, s: rng.uniform(0.5, 3.0, size=(2,) + s)[:1],
                  "betainc": lambda rng, s: rng.uniform(0.5, 3.0, size=(2,) + s)}
ELEMENTWISE_SPECIAL = sorted(SPECIAL_DOMAINS)
PRIM_SPECIAL = [p.name for p in LS.SPECIAL_PRIMITIVES]


def _special_case(draw, name, fn):
    shape = draw(SHAPES)
    xs = tuple(draw(arrays(shape, d)) for d in SPECIAL_DOMAINS[name])
    if name not in CONSTANT_FIRST:
        return Case(fn, xs)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    consts = CONSTANT_FIRST[name](rng, shape)
    if name in ("polygamma", "zeta"):
        consts = [consts]
    return Case(lambda *a: fn(*[c.astype(a[0].dtype) for c in consts], *a), xs)


@spec(FNP, *[f"scipy.special.{n}" for n in ELEMENTWISE_SPECIAL])
def _special(draw, name):
    _needs_scipy()
    name = name.rpartition(".")[2]
    return _special_case(draw, name, getattr(fsp, name))


@spec(PRIM, *PRIM_SPECIAL)
def _prim_special(draw, name):
    _needs_scipy()
    return _special_case(draw, name, getattr(LS, name + "_p").bind)


@spec(FNP, "scipy.special.multigammaln")
def _multigammaln(draw, name):
    _needs_scipy()
    d = draw(st.integers(1, 3))
    return Case(lambda a: fsp.multigammaln(a, d), (draw(arrays(draw(SHAPES), uniform(2.0, 4.0))),))


def _axis(draw, ndim):
    return draw(st.sampled_from([None] + list(range(-ndim, ndim))))


@spec(FNP, "scipy.special.logsumexp")
def _logsumexp(draw, name):
    shape = draw(SHAPES)
    kw = {"axis": _axis(draw, len(shape)), "keepdims": draw(st.booleans())}
    a = draw(arrays(shape))
    if draw(st.booleans()):   # with b (positive, or of both signs with return_sign)
        b = draw(arrays(shape, uniform(0.5, 2.0)))
        if draw(st.booleans()):
            return Case(lambda a, b: fsp.logsumexp(a, b=b, return_sign=True, **kw)[0],
                        (a, b * np.where(np.arange(b.size).reshape(shape) % 3 == 1, -0.1, 1)))
        return Case(lambda a, b: fsp.logsumexp(a, b=b, **kw), (a, b))
    return Case(lambda a: fsp.logsumexp(a, **kw), (a,))


@spec(FNP, "scipy.special.softmax", "scipy.special.log_softmax")
def _softmax(draw, name):
    shape = draw(SHAPES)
    axis = _axis(draw, len(shape))
    f = getattr(fsp, name.rpartition(".")[2])
    return Case(lambda x: f(x, axis=axis), (draw(arrays(shape)),))


# ----------------------------------------------------------------------------- stats
LOC = uniform(-0.2, 0.2)
SCALE = uniform(0.7, 2.0)
Q = uniform(0.05, 0.95)
# (distribution, functions): (operand domains, closed-over constants as a function of the
# drawn shape and rng, how they are passed: the constants first, then the operands)
CONTINUOUS = {
    ("norm", "logpdf pdf cdf logcdf sf logsf"): [DEFAULT, LOC, SCALE],
    ("norm", "ppf isf"): [Q, LOC, SCALE],
    ("t", "logpdf pdf"): [DEFAULT, uniform(1.0, 5.0), LOC, SCALE],
    ("beta", "logpdf pdf"): [uniform(0.2, 0.8), POSITIVE, POSITIVE],
    ("gamma", "logpdf pdf"): [uniform(0.5, 3.0), POSITIVE, LOC, SCALE],
    ("logistic", "logpdf pdf cdf sf"): [DEFAULT, LOC, SCALE],
    ("logistic", "ppf isf"): [Q, LOC, SCALE],
    ("expon", "logpdf pdf cdf logcdf sf logsf"): [uniform(0.5, 3.0), LOC, SCALE],
    ("expon", "ppf"): [Q, LOC, SCALE],
    ("uniform", "logpdf pdf cdf"): [uniform(0.3, 0.6), LOC, uniform(1.0, 1.5)],
    ("uniform", "ppf"): [Q, LOC, SCALE],
    ("laplace", "logpdf pdf cdf"): [away_from_zero(0.3, 2.0), uniform(-0.1, 0.1), SCALE],
    ("cauchy", "logpdf pdf cdf logcdf sf logsf"): [DEFAULT, LOC, SCALE],
    ("cauchy", "ppf isf"): [Q, uniform(-0.2, 0.2), SCALE],
}
# distribution functions differentiable in x (and loc, scale) only: shape parameters are
# closed over (their derivatives raise NotImplementedError)
SHAPE_CONSTANTS = {
    ("beta", "cdf logcdf sf logsf"): (uniform(0.2, 0.8), [POSITIVE, POSITIVE]),
    ("gamma", "cdf logcdf sf logsf"): (uniform(0.5, 3.0), [POSITIVE]),
}
# discrete: k closed over, the parameters drawn
DISCRETE = {
    ("poisson", "logpmf pmf cdf"): (lambda rng, s: rng.integers(0, 6, size=s).astype(float),
                                    [POSITIVE]),
    ("bernoulli", "logpmf pmf"): (lambda rng, s: rng.integers(0, 2, size=s).astype(float),
                                  [uniform(0.1, 0.9)]),
    ("bernoulli", "cdf"): (lambda rng, s: rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0], size=s),
                           [uniform(0.1, 0.9)]),
    ("binom", "logpmf pmf"): (lambda rng, s: rng.integers(0, 5, size=s).astype(float),
                              [uniform(5.0, 7.0), uniform(0.1, 0.9)]),
}


def _names(table):
    return {f"scipy.stats.{d}.{f}": key for key in table for d, fs in [key] for f in fs.split()}


CONTINUOUS_NAMES, SHAPE_NAMES, DISCRETE_NAMES = (_names(CONTINUOUS), _names(SHAPE_CONSTANTS),
                                                  _names(DISCRETE))


def _stats_fn(name):
    _, dist, f = name.rsplit(".", 2)
    return getattr(getattr(fst, dist), f)


def _param_shapes(draw, n):
    """The first operand's shape, the others it or () (broadcasting)."""
    shape = draw(SHAPES)
    return [shape] + [shape if draw(st.booleans()) else () for _ in range(n - 1)]


@spec(FNP, *CONTINUOUS_NAMES)
def _stats_continuous(draw, name):
    _needs_scipy()
    domains = CONTINUOUS[CONTINUOUS_NAMES[name]]
    shapes = _param_shapes(draw, len(domains))
    return Case(_stats_fn(name), tuple(draw(arrays(s, d)) for s, d in zip(shapes, domains)))


@spec(FNP, *SHAPE_NAMES)
def _stats_shape_constants(draw, name):
    _needs_scipy()
    x_dom, shape_doms = SHAPE_CONSTANTS[SHAPE_NAMES[name]]
    shape = draw(SHAPES)
    consts = [draw(arrays(shape, d)) for d in shape_doms]
    f = _stats_fn(name)
    x = draw(arrays(shape, x_dom))
    return Case(lambda x, loc, scale: f(x, *consts, loc, scale),
                (x, draw(arrays((), uniform(-0.05, 0.05))), draw(arrays((), uniform(0.9, 1.1)))))


@spec(FNP, *DISCRETE_NAMES)
def _stats_discrete(draw, name):
    _needs_scipy()
    k_of, domains = DISCRETE[DISCRETE_NAMES[name]]
    shapes = _param_shapes(draw, len(domains) + 1)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    k = k_of(rng, shapes[0])
    f = _stats_fn(name)
    params = tuple(draw(arrays(s, d)) for s, d in zip(shapes[1:], domains))
    if name.startswith("scipy.stats.binom"):   # n closed over too (k <= n)
        n = params[0]
        return Case(lambda p: f(k, n, p), params[1:])
    return Case(lambda *p: f(k, *p), params)


@spec(FNP, "scipy.stats.bernoulli.ppf")
def _bernoulli_ppf(draw, name):
    shape = draw(SHAPES)
    q = draw(arrays(shape, uniform(0.02, 0.98)))
    p = np.where(np.abs(q - 0.5) < 0.1, 0.2, 0.5)   # q != 1 - p: away from the jump
    return Case(lambda q, p: fst.bernoulli.ppf(q, p), (q, p), diff=False)


@spec(FNP, "scipy.stats.dirichlet.logpdf", "scipy.stats.dirichlet.pdf")
def _dirichlet(draw, name):
    _needs_scipy()
    k = draw(st.integers(2, 4))
    rest = draw(st.sampled_from([(), (2,)]))
    raw = draw(arrays((k,) + rest, uniform(0.2, 1.0)))
    x = raw / raw.sum(axis=0, keepdims=True)
    return Case(_stats_fn(name), (x, draw(arrays((k,), POSITIVE))))


# ----------------------------------------------------------------------------- signal
@spec(FNP, "scipy.signal.convolve", "scipy.signal.correlate", "scipy.signal.convolve2d",
      "scipy.signal.correlate2d")
def _signal(draw, name):
    f = getattr(fsig, name.rpartition(".")[2])
    nd = 2 if name.endswith("2d") else draw(st.integers(1, 2))
    mode = draw(st.sampled_from(["full", "same", "valid"]))
    sa = tuple(draw(st.integers(1, 4)) for _ in range(nd))
    sb = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    if mode == "valid":
        big = draw(st.booleans())   # either input the larger one
        sb = tuple(min(p, q) for p, q in zip(sa, sb))
        if big:
            sa, sb = sb, sa
    kw = {"mode": mode} if name.endswith("2d") else {
        "mode": mode, "method": draw(st.sampled_from(["auto", "direct", "fft"]))}
    return Case(lambda a, b: f(a, b, **kw), (draw(arrays(sa)), draw(arrays(sb))))


# ----------------------------------------------------------------------------- integrate
@spec(FNP, "scipy.integrate.trapezoid", "scipy.integrate.cumulative_trapezoid")
def _trapezoid(draw, name):
    f = getattr(fint, name.rpartition(".")[2])
    shape = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 2))))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    kw = {"axis": axis}
    if name.endswith("cumulative_trapezoid") and draw(st.booleans()):
        kw["initial"] = 0
    y = draw(arrays(shape))
    how = draw(st.sampled_from(["dx", "x1", "xfull"]))
    if how == "dx":
        return Case(lambda y: f(y, dx=0.5, **kw), (y,))
    x = np.sort(draw(arrays((shape[axis],) if how == "x1" else shape)),
                axis=-1 if how == "x1" else axis)
    return Case(lambda y, x: f(y, x, **kw), (y, x))


# ----------------------------------------------------------------------------- multivariate
def _covariance(draw, d, kind):
    """A positive-definite cov (d, d), its (d,) diagonal, or a scalar."""
    if kind == "scalar":
        return draw(arrays((), uniform(0.5, 2.0)))
    if kind == "diagonal":
        return draw(arrays((d,), uniform(0.5, 2.0)))
    a = draw(arrays((d, d), uniform(-0.7, 0.7)))
    return a @ a.T + np.eye(d)


@spec(FNP, "scipy.stats.multivariate_normal.logpdf", "scipy.stats.multivariate_normal.pdf")
def _multivariate_normal(draw, name):
    _needs_scipy()
    f = _stats_fn(name)
    d = draw(st.integers(1, 3))
    x = draw(arrays(draw(st.sampled_from([(d,), (2, d), (2, 1, d)]))))
    kind = draw(st.sampled_from(["matrix", "diagonal", "scalar"]))
    cov = _covariance(draw, d, kind)
    kw = {"allow_singular": draw(st.booleans())}
    if kind == "matrix" and draw(st.booleans()):   # mean=None: d is read off the matrix
        return Case(lambda x, cov: f(x, None, cov, **kw), (x, cov))
    return Case(lambda x, mean, cov: f(x, mean, cov, **kw), (x, draw(arrays((d,))), cov))
