"""Specs of the special functions added after jax.scipy.special's list (fungrad.scipy.special
bernoulli .. wofz) and of their primitives (fungrad/lax/special.py: loggamma_p .. wofz_p).
Operands without a derivative (expn's and jv's integer orders, hyp1f1's and hyp2f1's
parameters) are drawn and closed over; domains keep finite differences accurate."""
from __future__ import annotations

import numpy as np

import fungrad.numpy as fnp
from hypothesis import strategies as st

import fungrad.scipy.special as fsp
from fungrad.lax import special as LS

from .registry import FNP, PRIM, Case, spec
from .specs_scipy import _needs_scipy
from .strategies import DEFAULT, SHAPES, arrays, complex_domain, uniform

POSITIVE = uniform(0.5, 3.0)
# name -> the domains of the differentiable operands
DOMAINS = {
    "loggamma": [POSITIVE], "gammasgn": [uniform(-2.9, -2.1)], "poch": [POSITIVE, POSITIVE],
    "boxcox": [POSITIVE, uniform(-1.5, 1.5)], "boxcox1p": [uniform(-0.5, 2.0), uniform(-1.5, 1.5)],
    "dawsn": [DEFAULT], "exp1": [POSITIVE], "expi": [POSITIVE], "spence": [uniform(0.2, 2.5)],
    "owens_t": [DEFAULT, DEFAULT], "factorial": [POSITIVE],
}
# name -> (draws of the closed-over leading operands (rng, shape) -> list, the operands' domains)
CONSTANTS = {
    "expn": (lambda rng, s: [rng.integers(0, 4, size=s).astype(float)], [POSITIVE]),
    "jv": (lambda rng, s: [rng.integers(0, 4, size=s).astype(float)], [uniform(0.2, 4.0)]),
    "hyp1f1": (lambda rng, s: list(rng.uniform(0.5, 2.0, size=(2,) + s)), [DEFAULT]),
    "hyp2f1": (lambda rng, s: list(rng.uniform(0.5, 2.0, size=(3,) + s)), [uniform(-0.8, 0.6)]),
}
# (n, m) with |m| <= n, drawn; theta away from the poles (cot theta), phi anywhere
_SPH = (lambda rng, s: _degree_order(rng, s), [uniform(0.3, 2.8), DEFAULT])
CONSTANTS.update({"sph_harm_y_real": _SPH, "sph_harm_y_imag": _SPH, "sph_harm_y": _SPH})


def _degree_order(rng, shape):
    n = rng.integers(0, 4, size=shape)
    m = rng.integers(-n, n + 1)
    return [n.astype(float), m.astype(float)]
PRIM_NAMES = {"loggamma", "gammasgn", "poch", "binom", "boxcox", "boxcox1p", "dawsn", "exp1",
              "expi", "expn", "fresnel_s", "fresnel_c", "sici_si", "sici_ci", "spence",
              "owens_t", "hyp1f1", "hyp2f1", "jv", "wofz", "sph_harm_y_real", "sph_harm_y_imag"}
PRIM_DOMAINS = {**DOMAINS, "binom": [uniform(3.0, 5.0), uniform(0.5, 2.5)],
                "fresnel_s": [DEFAULT], "fresnel_c": [DEFAULT], "sici_si": [DEFAULT],
                "sici_ci": [uniform(0.3, 3.0)]}
WOFZ = complex_domain(uniform(-2.0, 2.0), uniform(-1.0, 2.0))


def _case(draw, name, fn, domains):
    shape = draw(SHAPES)
    if name == "wofz":
        return Case(fn, (draw(arrays(shape, WOFZ, np.complex128)),))
    if name in CONSTANTS:
        consts_of, doms = CONSTANTS[name]
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
        consts = consts_of(rng, shape)
        xs = tuple(draw(arrays(shape, d)) for d in doms)
        return Case(lambda *a: fn(*[c.astype(a[0].dtype) for c in consts], *a), xs)
    xs = tuple(draw(arrays(shape, d)) for d in domains[name])
    return Case(fn, xs, diff=name != "gammasgn")


@spec(PRIM, *sorted(PRIM_NAMES))
def _prim(draw, name):
    _needs_scipy()
    return _case(draw, name, getattr(LS, name + "_p").bind, PRIM_DOMAINS)


FNP_ELEMENTWISE = ["loggamma", "gammasgn", "poch", "boxcox", "boxcox1p", "dawsn", "exp1", "expi",
                   "spence", "owens_t", "factorial", "expn", "hyp1f1", "hyp2f1", "wofz",
                   "sph_harm_y"]


@spec(FNP, *[f"scipy.special.{n}" for n in FNP_ELEMENTWISE])
def _special(draw, name):
    _needs_scipy()
    name = name.rpartition(".")[2]
    return _case(draw, name, getattr(fsp, name), DOMAINS)


@spec(FNP, "scipy.special.fresnel", "scipy.special.sici")
def _two_outputs(draw, name):
    _needs_scipy()
    f = getattr(fsp, name.rpartition(".")[2])
    dom = DEFAULT if name.endswith("fresnel") else uniform(0.3, 3.0)
    return Case(f, (draw(arrays(draw(SHAPES), dom)),))


@spec(FNP, "scipy.special.comb")
def _comb(draw, name):
    _needs_scipy()
    shape = draw(SHAPES)
    repetition = draw(st.booleans())
    n = draw(arrays(shape, uniform(3.0, 5.0)))
    k = draw(arrays(shape, uniform(0.5, 2.5)))
    return Case(lambda n, k: fsp.comb(n, k, repetition=repetition), (n, k))


@spec(FNP, "scipy.special.bessel_jn")
def _bessel_jn(draw, name):
    _needs_scipy()
    v = draw(st.integers(0, 3))
    return Case(lambda z: fsp.bessel_jn(z, v=v), (draw(arrays(draw(SHAPES), uniform(0.2, 4.0))),))


@spec(FNP, "scipy.special.bernoulli")
def _bernoulli(draw, name):
    n = draw(st.integers(0, 8))
    # (nothing to differentiate: a constant function of a dummy operand keeps the checks)
    return Case(lambda x: fnp.add(fsp.bernoulli(n), fnp.multiply(0.0, x)), (draw(arrays((n + 1,))),), diff=False)
