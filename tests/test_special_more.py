"""fungrad.scipy.special's functions from jax.scipy.special's list (bernoulli .. wofz): values
against SciPy at ordinary and edge points, derivatives against closed forms, finite
differences and JAX 0.10.2's values (written out as constants; where JAX's slope is wrong,
the finite difference decides and the comment says so), dtypes, jit and vmap."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.scipy.special as fsp

sp = pytest.importorskip("scipy.special")

EDGES = np.array([0.0, -1.0, -2.5, 0.5, 3.0, 1e3, np.nan, np.inf, -np.inf])


def _scipy(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


def _close(got, want, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol,
                               equal_nan=True)


def _fd(f, x, h=1e-6):
    return (float(f(x + h)) - float(f(x - h))) / (2 * h)


# ----------------------------------------------------------------------------- values
UNARY = ["loggamma", "gammasgn", "dawsn", "exp1", "expi", "spence"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_values_match_scipy(name):
    _close(getattr(fsp, name)(EDGES), _scipy(getattr(sp, name), EDGES))


def test_two_output_values_match_scipy():
    for f, g in [(fsp.fresnel, sp.fresnel), (fsp.sici, sp.sici)]:
        got, want = f(EDGES), _scipy(g, EDGES)
        assert isinstance(got, tuple) and len(got) == 2
        for a, b in zip(got, want):
            _close(a, b)


@pytest.mark.parametrize("name,args", [
    ("poch", (EDGES, 2.0)), ("poch", (3.0, EDGES)), ("boxcox", (EDGES, 0.5)),
    ("boxcox", (2.0, EDGES)), ("boxcox1p", (EDGES, 0.5)), ("boxcox1p", (2.0, EDGES)),
    ("owens_t", (EDGES, 0.5)), ("owens_t", (0.7, EDGES)), ("expn", (2, EDGES)),
    ("expn", (np.array([0, 1, 3, 5]), 1.5)), ("hyp2f1", (0.5, 1.5, 2.5, EDGES)),
    # (SciPy's hyp1f1(0.5, 1.5, x) does not return for x = +inf: left out)
    ("hyp1f1", (0.5, 1.5, EDGES[np.isfinite(EDGES) | (EDGES < 0)])),
    ("hyp1f1", (np.array([-2.0, 0.0, 1.0]), 1.5, 2.0)),
])
def test_values_match_scipy(name, args):
    _close(getattr(fsp, name)(*args), _scipy(getattr(sp, name), *args))


def test_comb_and_factorial_match_scipy():
    n = EDGES
    _close(fsp.comb(n, 2.0), _scipy(sp.comb, n, 2.0))
    _close(fsp.comb(5.0, n), _scipy(sp.comb, 5.0, n))
    _close(fsp.comb(5.0, np.array([0.0, 2.0, 5.0, 6.0])), [1.0, 10.0, 1.0, 0.0])
    rep = _scipy(lambda a, b: sp.comb(a, b, repetition=True), n, 2.0)
    _close(fsp.comb(n, 2.0, repetition=True), rep)
    _close(fsp.comb(n, 0.0, repetition=True), _scipy(lambda a, b: sp.comb(a, b, repetition=True),
                                                     n, 0.0))
    _close(fsp.factorial(n), _scipy(sp.factorial, n))
    _close(fsp.factorial(np.arange(6)), [1, 1, 2, 6, 24, 120])
    with pytest.raises(NotImplementedError, match="exact=True"):
        fsp.factorial(3, exact=True)


def test_bernoulli_matches_scipy():
    for n in (0, 1, 4, 20):
        _close(fsp.bernoulli(n), sp.bernoulli(n))
    assert fsp.bernoulli(3).shape == (4,)
    for bad in (-1, 2.0, True):
        with pytest.raises(ValueError, match="non-negative"):
            fsp.bernoulli(bad)


def test_bessel_jn_matches_scipy_and_jax_layout():
    z = np.array([[0.0, 0.5], [3.0, -2.0]])
    got = fsp.bessel_jn(z, v=3)
    assert got.shape == (4, 2, 2)
    _close(got, sp.jv(np.arange(4)[:, None, None], z))
    assert fsp.bessel_jn(1.5, v=0, n_iter=10).shape == (1,)
    # JAX 0.10.2's bessel_jn(1.5, v=1)
    _close(fsp.bessel_jn(1.5, v=1), [0.51182767, 0.55793651], rtol=1e-7)
    _close(fsp.bessel_jn(np.array([np.nan, np.inf]), v=1), sp.jv([[0], [1]], [np.nan, np.inf]))
    with pytest.raises(ValueError, match="v must be"):
        fsp.bessel_jn(1.0, v=-1)


def test_wofz_matches_scipy():
    z = np.array([0.0, 1.0, -2.0 + 0.5j, 1e3, 3j, np.nan, np.inf])
    _close(fsp.wofz(z), _scipy(sp.wofz, z))
    assert fsp.wofz(1.0).dtype == np.complex128
    assert fsp.wofz(np.float32(1.0)).dtype == np.complex64
    assert fsp.wofz(np.complex64(1.0)).dtype == np.complex64
    # JAX 0.10.2's wofz(1.0)
    _close(fsp.wofz(1.0), 0.36787944117146526 + 0.6071577058414167j, rtol=1e-12)


# ----------------------------------------------------------------------------- derivatives
# (function, point, its slope: closed form; JAX's where noted)
SLOPES = [
    (fsp.loggamma, 3.0, float(sp.digamma(3.0))),
    (fsp.dawsn, 1.0, 1.0 - 2.0 * sp.dawsn(1.0)),          # JAX: -0.0761590138255368
    (fsp.dawsn, 0.0, 1.0),
    (fsp.exp1, 1.0, -math.exp(-1.0)),
    (fsp.exp1, 30.0, -math.exp(-30.0) / 30.0),
    (fsp.expi, 1.0, math.e),
    (fsp.expi, -2.0, math.exp(-2.0) / -2.0),
    (lambda x: fsp.expn(2, x), 2.0, -float(sp.exp1(2.0))),
    # E_0 = e^-x / x: JAX 0.10.2's slope at 0.5 is nan (it reads E_-1)
    (lambda x: fsp.expn(0, x), 0.5, -math.exp(-0.5) * 1.5 / 0.25),
    (lambda x: fsp.fresnel(x)[0], 0.5, math.sin(math.pi * 0.125)),
    (lambda x: fsp.fresnel(x)[1], 0.5, math.cos(math.pi * 0.125)),
    (lambda x: fsp.sici(x)[0], 0.0, 1.0),
    (lambda x: fsp.sici(x)[0], 3.0, math.sin(3.0) / 3.0),
    (lambda x: fsp.sici(x)[1], -2.0, math.cos(-2.0) / -2.0),
    (fsp.spence, 0.5, math.log(0.5) / 0.5),
    # JAX 0.10.2's slope at 1 is 0 and at 2 nan; the limit at 1 is -1
    (fsp.spence, 1.0, -1.0),
    (fsp.spence, 2.0, -math.log(2.0)),
    (lambda h: fsp.owens_t(h, 0.7), 1.5, -0.04573796594937817),      # JAX's
    (lambda a: fsp.owens_t(0.8, a), 1.5, 0.017308941474681108),      # JAX's
    (lambda x: fsp.hyp1f1(0.5, 1.5, x), 1.5, 0.881884935244547),     # JAX's
    (lambda x: fsp.hyp2f1(0.5, 1.5, 2.5, x), 0.5, 0.6101151069418886),  # JAX's
    (lambda x: fsp.poch(x, 2.5), 3.0, 18.013997635652682),           # JAX's
    (lambda m: fsp.poch(1.5, m), 3.0, 18.228930908468822),           # JAX's
    (lambda n: fsp.comb(n, 2.0), 5.0, 4.5),                          # 2n - 1 over 2
    (lambda k: fsp.comb(5.0, k), 1.5, 5.321621607382879),            # JAX's
    (fsp.factorial, 3.0, 6.0 * float(sp.digamma(4.0))),
    (lambda x: fsp.boxcox(x, 0.7), 3.0, 3.0 ** -0.3),
    (lambda l: fsp.boxcox(2.5, l), 0.7, 0.6509662429059351),         # JAX's
    # JAX 0.10.2's slope in lmbda at 0 is 0; the limit is log(x)^2 / 2
    (lambda l: fsp.boxcox(2.5, l), 0.0, math.log(2.5) ** 2 / 2),
    (lambda l: fsp.boxcox1p(2.5, l), 0.0, math.log(3.5) ** 2 / 2),
    (lambda x: fsp.boxcox1p(x, 0.7), 0.5, 1.5 ** -0.3),
    (lambda z: fsp.bessel_jn(z, v=2)[2], 3.0, float(sp.jvp(2, 3.0))),
    (lambda z: fsp.bessel_jn(z, v=2)[0], 0.5, -float(sp.j1(0.5))),
    (lambda x: fsp.wofz(x).imag, 0.0, 2.0 / math.sqrt(math.pi)),
]


@pytest.mark.parametrize("k", range(len(SLOPES)))
def test_slope_matches_closed_form_and_finite_differences(k):
    f, x, want = SLOPES[k]
    with np.errstate(divide="ignore"):   # (sici at 0: Ci's slope, also computed, is inf)
        got = float(fg.grad(f)(x))
    assert got == pytest.approx(want, rel=1e-9, abs=1e-14)
    if x not in (0.0, 1.0) or f is fsp.exp1:   # (one-sided domains at 0 and 1)
        assert got == pytest.approx(_fd(f, x), rel=1e-6, abs=1e-9)


# second derivatives: d/dx of the slope, against finite differences of fg.grad
SECOND = [(fsp.dawsn, 1.0), (fsp.exp1, 1.0), (fsp.expi, 0.5), (lambda x: fsp.expn(0, x), 0.5),
          (lambda x: fsp.expn(3, x), 0.5), (lambda x: fsp.fresnel(x)[1], 3.0),
          (lambda x: fsp.sici(x)[0], 1e-6), (lambda x: fsp.sici(x)[1], 2.0), (fsp.spence, 1.0),
          (fsp.spence, 3.0), (lambda h: fsp.owens_t(h, 0.7), 0.3),
          (lambda a: fsp.owens_t(0.8, a), 0.3), (lambda x: fsp.hyp1f1(0.5, 1.5, x), 1.0),
          (lambda x: fsp.hyp2f1(0.5, 1.5, 2.5, x), 0.3), (lambda l: fsp.boxcox(2.5, l), 0.0),
          (lambda l: fsp.boxcox1p(2.5, l), 1e-5), (lambda x: fsp.boxcox(x, 0.3), 2.0),
          (lambda x: fsp.poch(x, 1.5), 2.0), (lambda z: fsp.bessel_jn(z, v=3)[3], 2.0),
          (fsp.loggamma, 2.0), (fsp.factorial, 2.5)]


@pytest.mark.parametrize("k", range(len(SECOND)))
def test_second_derivative_matches_finite_differences(k):
    f, x = SECOND[k]
    g = fg.grad(f)
    assert float(fg.grad(g)(x)) == pytest.approx(_fd(g, x, 1e-5), rel=1e-5, abs=1e-8)


def test_known_second_derivatives():
    # JAX 0.10.2's: dawsn'' (1) = -0.9238409861744632, fresnel C''(3) = -3 pi (JAX's is 0)
    assert float(fg.grad(fg.grad(fsp.dawsn))(1.0)) == pytest.approx(-0.9238409861744632)
    c2 = fg.grad(fg.grad(lambda x: fsp.fresnel(x)[1]))(3.0)
    assert float(c2) == pytest.approx(-3 * math.pi)
    assert float(fg.grad(fg.grad(fsp.spence))(1.0)) == pytest.approx(0.5)


def test_dawsn_slope_far_out_has_no_cancellation():
    # 1 - 2x dawsn(x) ~ -1/(2x^2): the direct form lost ~6 digits at 1e4 (JAX's
    # -4.9999999696e-09)
    for x, want in [(20.0, -0.0012547170561467702),   # JAX's (no cancellation yet)
                    (1e4, -5.000000075e-09), (-1e4, -5.000000075e-09)]:
        assert float(fg.grad(fsp.dawsn)(x)) == pytest.approx(want, rel=1e-7)


def test_wofz_is_holomorphic():
    z = np.complex128(0.3 + 0.7j)
    w = sp.wofz(z)
    want = -2 * z * w + 2j / math.sqrt(math.pi)
    _, t = fg.jvp(fsp.wofz, (z,), (np.complex128(1.0),))
    _close(t, want)
    _, t = fg.jvp(fsp.wofz, (z,), (np.complex128(1j),))
    _close(t, 1j * want)
    h = 1e-6
    _close((sp.wofz(z + h) - sp.wofz(z - h)) / (2 * h), want, rtol=1e-8)


def test_gammasgn_has_zero_slope():
    assert float(fg.grad(fsp.gammasgn)(-1.5)) == 0.0


@pytest.mark.parametrize("f,match", [
    (lambda n: fsp.expn(n, 1.0), "`n` is an integer"),
    (lambda a: fsp.hyp1f1(a, 1.5, 1.0), "with respect to `a`"),
    (lambda b: fsp.hyp1f1(0.5, b, 1.0), "with respect to `b`"),
    (lambda c: fsp.hyp2f1(0.5, 1.5, c, 0.3), "with respect to `c`"),
])
def test_parameters_without_a_derivative_raise(f, match):
    with pytest.raises(NotImplementedError, match=match):
        fg.grad(f)(2.0)


def test_bessel_order_has_no_derivative():
    from fungrad.lax import special as S
    with pytest.raises(NotImplementedError, match="`v` is an integer"):
        fg.grad(lambda v: S.jv(v, np.float64(1.0)))(np.float64(1.0))


# ----------------------------------------------------------------------------- dtypes, jit, vmap
F32 = [lambda x: fsp.loggamma(x), fsp.gammasgn, fsp.dawsn, fsp.exp1, fsp.expi, fsp.spence,
       lambda x: fsp.expn(2, x), lambda x: fsp.fresnel(x)[0],
       lambda x: fsp.sici(x)[1], lambda x: fsp.poch(x, 2.0), lambda x: fsp.comb(4.0, x),
       fsp.factorial, lambda x: fsp.boxcox(x, 0.5), lambda x: fsp.boxcox1p(x, 0.5),
       lambda x: fsp.owens_t(x, 0.5), lambda x: fsp.hyp1f1(0.5, 1.5, x),
       lambda x: fsp.hyp2f1(0.5, 1.5, 2.5, x), lambda x: fsp.bessel_jn(x, v=2)]


@pytest.mark.parametrize("k", range(len(F32)))
def test_float32_stays_float32_under_jit_vmap_and_grad(k):
    f = F32[k]
    x = np.array([0.5, 1.5], np.float32)
    eager = f(x)
    assert eager.dtype == np.float32
    jitted = fg.jit(f)(x)
    assert jitted.dtype == np.float32
    _close(jitted, eager)
    batched = fg.vmap(f)(x)
    assert batched.dtype == np.float32
    # (bessel_jn's orders lead: vmap puts the batch first)
    _close(batched, np.moveaxis(eager, -1, 0) if eager.ndim == 2 else eager)
    g = fg.grad(lambda x: fg.numpy.sum(f(x)))(x)
    assert g.dtype == np.float32


def test_jit_and_vmap_of_derivatives_match_eager():
    x = np.array([0.3, 1.2, 2.5])
    for f in [fsp.dawsn, fsp.spence, lambda x: fsp.sici(x)[0], lambda x: fsp.expn(1, x),
              lambda x: fsp.owens_t(x, 0.4), lambda x: fsp.boxcox(2.0, x - 1.2)]:
        g = fg.grad(f)
        eager = np.array([float(g(v)) for v in x])
        _close(fg.jit(fg.vmap(g))(x), eager, rtol=1e-12)
    w = fg.jit(fsp.wofz)(x)
    assert w.dtype == np.complex128
    _close(w, sp.wofz(x))
    s, c = fg.jit(fsp.fresnel)(x)
    _close(s, sp.fresnel(x)[0])
    _close(c, sp.fresnel(x)[1])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_dtypes_are_kept(dtype):
    if dtype == "bfloat16":
        dt = pytest.importorskip("ml_dtypes").bfloat16
    else:
        dt = np.float16
    x = np.array([0.5, 2.0], dt)
    for f in F32:
        assert f(x).dtype == dt
    assert fsp.comb(x + 3, x, repetition=True).dtype == dt
    assert fsp.wofz(x).dtype == np.complex64


# ----------------------------------------------------------------------------- sph_harm_y
SPH_N = np.array([2, 3, 1, 4, 2, 0, 1])
SPH_M = np.array([1, -2, 0, 4, -1, 0, 2])          # (|m| > n: 0)
SPH_T = np.array([0.3, 1.2, 2.0, 0.7, 2.9, 1.0, 0.4])
SPH_P = np.array([0.5, -1.0, 2.0, 1.1, 0.2, 3.0, 0.1])


def test_sph_harm_y_matches_scipy():
    _close(fsp.sph_harm_y(SPH_N, SPH_M, SPH_T, SPH_P),
           sp.sph_harm_y(SPH_N, SPH_M, SPH_T, SPH_P), atol=1e-15)
    edges = np.array([0.0, np.pi, np.nan, np.inf])
    _close(fsp.sph_harm_y(2, 1, edges, 0.3), _scipy(sp.sph_harm_y, 2, 1, edges, 0.3), atol=1e-15)
    assert fsp.sph_harm_y(2, 1, np.float32(0.3), np.float32(0.5)).dtype == np.complex64
    # JAX 0.10.2's sph_harm_y(2, 1, 0.3, 0.5)
    _close(fsp.sph_harm_y(2, 1, 0.3, 0.5), -0.19140674 - 0.10456598j, rtol=1e-7)
    with pytest.raises(NotImplementedError, match="diff_n"):
        fsp.sph_harm_y(2, 1, 0.3, 0.5, diff_n=1)


@pytest.mark.parametrize("part", ["real", "imag"])
@pytest.mark.parametrize("argnum", [0, 1])
def test_sph_harm_y_slopes(part, argnum):
    def f(t, p):
        return getattr(fsp.sph_harm_y(SPH_N, SPH_M, t, p), part)
    got = fg.jacfwd(f, argnums=argnum)(SPH_T, SPH_P)
    h = 1e-6
    e = [0.0, 0.0]
    e[argnum] = h
    fd = (f(SPH_T + e[0], SPH_P + e[1]) - f(SPH_T - e[0], SPH_P - e[1])) / (2 * h)
    _close(np.diag(got), fd, rtol=1e-6, atol=1e-9)


def test_sph_harm_y_known_slopes_and_second_derivative():
    # JAX 0.10.2's d Re Y_2^1 / d theta and d Im Y_2^1 / d phi at (0.3, 0.5)
    def y(t, p):
        return fsp.sph_harm_y(2, 1, t, p)
    assert float(fg.grad(lambda t: y(t, 0.5).real)(0.3)) == pytest.approx(-0.5595569197969977)
    assert float(fg.grad(lambda p: y(0.3, p).imag)(0.5)) == pytest.approx(-0.19140674259771334)
    g = fg.grad(lambda t: fsp.sph_harm_y(3, 3, t, 0.4).real)   # m = n: the raised Y is 0
    assert float(fg.grad(g)(0.8)) == pytest.approx(_fd(g, 0.8, 1e-5), rel=1e-6)
    with pytest.raises(NotImplementedError, match="`n` is an integer"):
        fg.grad(lambda n: fsp.sph_harm_y(n, 0.0, 0.3, 0.5).real)(2.0)


def test_sph_harm_y_under_jit_and_vmap():
    want = sp.sph_harm_y(SPH_N, SPH_M, SPH_T, SPH_P)
    _close(fg.jit(fsp.sph_harm_y)(SPH_N, SPH_M, SPH_T, SPH_P), want, atol=1e-15)
    got = fg.vmap(lambda t: fsp.sph_harm_y(SPH_N, SPH_M, t, SPH_P))(np.stack([SPH_T, SPH_T]))
    _close(got, np.stack([want, want]), atol=1e-15)
