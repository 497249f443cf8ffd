"""Specs of grids/constructors (fungrad/numpy/_grids.py) and polynomials
(fungrad/numpy/_polynomial.py). Constant-only functions (window functions, indices, roots:
value only) are compared with NumPy through CREATION."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp

from .registry import COMPLEX_CASES, CREATION, FNP, Case, spec
from .strategies import COMPLEX, NONSCALAR, SHAPES, arrays, uniform

CREATION.update({
    "indices": ((2, 3),), "bartlett": (5,), "blackman": (5,), "hamming": (6,),
    "hanning": (4,), "kaiser": (5, 3.0), "roots": (np.array([1.0, -3.0, 2.0]),),
})


def _vec(draw, lo=1, hi=4, domain=uniform(-2, 2)):
    return draw(arrays((draw(st.integers(lo, hi)),), domain))


@spec(FNP, "meshgrid")
def _meshgrid(draw, name):
    xs = [_vec(draw) for _ in range(draw(st.integers(1, 3)))]
    sparse, indexing = draw(st.booleans()), draw(st.sampled_from(["xy", "ij"]))
    return Case(lambda *xs: fnp.meshgrid(*xs, sparse=sparse, indexing=indexing), tuple(xs))


@spec(FNP, "ix_")
def _ix(draw, name):
    x = draw(arrays((3, 4)))
    rows, cols = np.array([2, 0]), np.array([True, False, True, True])
    return Case(lambda x: x[fnp.ix_(rows, cols)], (x,))


@spec(FNP, "fromfunction")
def _fromfunction(draw, name):
    x = _vec(draw, 3, 3)
    return Case(lambda x: fnp.fromfunction(lambda i, j: x[i] * (j + 1.0), (3, 2), dtype=int),
                (x,))


@spec(FNP, "geomspace")
def _geomspace(draw, name):
    shape = draw(st.sampled_from([(), (2,)]))
    sign = draw(st.sampled_from([1.0, -1.0]))
    num, endpoint = draw(st.sampled_from([1, 2, 4])), draw(st.booleans())
    a, b = draw(arrays(shape, uniform(0.5, 1.0))), draw(arrays(shape, uniform(2.0, 4.0)))
    return Case(lambda a, b: fnp.geomspace(a, b, num, endpoint), (sign * a, sign * b))


@spec(FNP, "trapezoid")
def _trapezoid(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    y = draw(arrays(shape))
    kind = draw(st.sampled_from(["dx", "x1d", "xfull"]))
    if kind == "dx":
        return Case(lambda y: fnp.trapezoid(y, dx=0.3, axis=axis), (y,))
    xshape = (shape[axis],) if kind == "x1d" else shape
    return Case(lambda y, x: fnp.trapezoid(y, x, axis=axis), (y, draw(arrays(xshape))))


@spec(FNP, "convolve", "correlate")
def _convolve(draw, name):
    a, v = _vec(draw, 1, 6), _vec(draw, 1, 4)
    if draw(st.booleans()):
        a, v = v, a
    mode = draw(st.sampled_from(["full", "same", "valid"]))
    f = getattr(fnp, name)
    return Case(lambda a, v: f(a, v, mode), (a, v))


@spec(COMPLEX_CASES, "convolve", "correlate")
def _complex_convolve(draw, name):
    case = draw(FNP[name])
    a, v = case.args
    return Case(case.fn, (a + 1j * draw(arrays(a.shape)), draw(arrays(v.shape, COMPLEX,
                                                                       np.complex128))))


@spec(FNP, "polyval")
def _polyval(draw, name):
    return Case(fnp.polyval, (_vec(draw, 1, 4), draw(arrays(draw(SHAPES)))))


@spec(FNP, "polyadd", "polysub", "polymul")
def _polyarith(draw, name):
    return Case(getattr(fnp, name), (_vec(draw), _vec(draw)))


@spec(FNP, "polydiv")
def _polydiv(draw, name):
    u = _vec(draw, 1, 5)
    v = _vec(draw, 1, 3, uniform(0.5, 1.5))  # leading coefficient away from 0
    return Case(lambda u, v: fnp.polydiv(u, v, trim_leading_zeros=False), (u, v))


@spec(FNP, "polyder", "polyint")
def _polyder(draw, name):
    m = draw(st.integers(0, 3))
    p = _vec(draw, 1, 5)
    if name == "polyint" and draw(st.booleans()):
        return Case(lambda p, k: fnp.polyint(p, m, k), (p, draw(arrays((m,)))))
    f = getattr(fnp, name)
    return Case(lambda p: f(p, m), (p,))


@spec(FNP, "poly")
def _poly(draw, name):
    return Case(fnp.poly, (_vec(draw, 1, 4),))


@spec(FNP, "vander")
def _vander(draw, name):
    n = draw(st.sampled_from([None, 1, 3]))
    inc = draw(st.booleans())
    return Case(lambda x: fnp.vander(x, n, inc), (_vec(draw),))


@spec(FNP, "polyfit")
def _polyfit(draw, name):
    n = draw(st.integers(4, 6))
    deg = draw(st.integers(0, 2))
    x = np.linspace(-1.0, 1.0, n) + draw(arrays((n,), uniform(-0.05, 0.05)))
    y = draw(arrays((n,) if draw(st.booleans()) else (n, 2)))
    # (float64 first: NumPy's lstsq rejects float16, so the narrow-float check has no
    # reference otherwise)
    f64 = lambda *a: [fnp.asarray(v, np.float64) for v in a]  # noqa: E731
    # full=True: (coef, residuals, rank, singular values, rcond); cov: (coef, covariance)
    # (the differentiable ones checked here; rank and rcond in tests/test_polyfit_full.py)
    kw = draw(st.sampled_from([{}, {"full": True}, {"cov": True}, {"cov": "unscaled"}]))
    pick = (lambda out: out[:2] + out[3:4]) if kw.get("full") else (lambda out: out)
    if draw(st.booleans()):
        return Case(lambda x, y, w: pick(fnp.polyfit(*f64(x, y), deg, w=f64(w)[0], **kw)),
                    (x, y, draw(arrays((n,), uniform(0.5, 1.5)))), tol=1e-7)
    return Case(lambda x, y: pick(fnp.polyfit(*f64(x, y), deg, **kw)), (x, y), tol=1e-7)


EINSUM_CHAINS = [("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("ij,jk,k->i", [(2, 3), (3, 2), (2,)]),
                 ("ii,ij,j->", [(3, 3), (3, 2), (2,)]), ("bij,bjk,bk->bi", [(2, 2, 3), (2, 3, 2),
                                                                        (2, 2)])]


@spec(FNP, "einsum_path")
def _einsum_path(draw, name):
    """einsum contracted in the order einsum_path (of traced operands) gives, or by an
    `optimize` strategy name."""
    sub, shapes = draw(st.sampled_from(EINSUM_CHAINS))
    ops = tuple(draw(arrays(s)) for s in shapes)
    how = draw(st.sampled_from(["path", True, "greedy", "optimal"]))
    if how == "path":
        return Case(lambda *xs: fnp.einsum(sub, *xs, optimize=fnp.einsum_path(
            sub, *xs, optimize="optimal")[0]), ops)
    return Case(lambda *xs: fnp.einsum(sub, *xs, optimize=how), ops)
