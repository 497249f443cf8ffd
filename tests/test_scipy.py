"""fungrad.scipy against SciPy: values over ranges including extreme arguments, dtypes, the
derivatives that have a known closed form or limit, errors, and the import layering."""
import subprocess
import sys

import numpy as np
import pytest

import fungrad as fg

scipy = pytest.importorskip("scipy")
import scipy.integrate as si  # noqa: E402
import scipy.signal as ss  # noqa: E402
import scipy.special as sp  # noqa: E402
import scipy.stats as sst  # noqa: E402

import fungrad.scipy.integrate as fint  # noqa: E402
import fungrad.scipy.signal as fsig  # noqa: E402
import fungrad.scipy.special as fsp  # noqa: E402
import fungrad.scipy.stats as fst  # noqa: E402


def test_import_fungrad_does_not_import_scipy():
    code = ("import sys, fungrad, fungrad.scipy, fungrad.scipy.stats; "
            "print('scipy' in sys.modules, hasattr(fungrad, 'scipy'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]


def test_fg_scipy_is_reachable_after_import_fungrad():
    code = "import fungrad as fg; print(fg.scipy.special.gammaln(1.0))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert float(out) == 0.0


# ----------------------------------------------------------------------------- special values
X = np.linspace(-3, 3, 13)
POS = np.array([1e-3, 0.1, 0.5, 1.0, 2.5, 10.0, 171.0])
UNARY_VALUES = {
    "gammaln": np.concatenate([POS, [-0.5, -2.5, 1e300]]), "digamma": np.append(POS, -0.5),
    "gamma": np.append(POS[:-1], [-0.5, 171.5]), "erf": X, "erfc": np.append(X, [10.0, 30.0]),
    "erfinv": np.array([-1.0, -0.999, -0.5, 0.0, 0.3, 0.999999, 1.0]),
    "erfcx": np.append(X, [-30.0, 30.0, 1e5]), "ndtr": np.append(X, [-40.0, 40.0]),
    "log_ndtr": np.array([-1e4, -40.0, -10.0, -1.0, 0.0, 5.0, 40.0]),
    "ndtri": np.array([0.0, 1e-300, 1e-10, 0.3, 0.5, 0.999, 1.0]),
    "i0": np.append(X, [-50.0, 50.0]), "i1": np.append(X, [-50.0, 50.0]),
    "i0e": np.append(X, [-1e5, 1e5]), "i1e": np.append(X, [-1e5, 1e5]),
    "expit": np.append(X, [-800.0, 800.0]), "logit": np.array([0.0, 1e-10, 0.3, 0.5, 1 - 1e-10, 1.0]),
    "entr": np.array([-1.0, 0.0, 1e-300, 0.5, 1.0, 3.0]),
}


@pytest.mark.parametrize("name", sorted(UNARY_VALUES))
def test_unary_values_match_scipy(name):
    x = UNARY_VALUES[name]
    with np.errstate(all="ignore"):
        want = getattr(sp, name)(x)
    got = getattr(fsp, name)(x)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    traced = fg.jit(getattr(fsp, name))(x)
    np.testing.assert_allclose(traced, want, rtol=1e-13, atol=0)


BINARY_VALUES = {
    "polygamma": (np.array([0, 1, 2, 3]), np.array([0.5, 1.0, 2.0, 10.0])),
    "zeta": (np.array([2.0, 3.0, 1.5, 10.0]), np.array([1.0, 0.5, 3.0, 2.0])),
    "gammainc": (np.array([0.5, 1.0, 3.0, 30.0]), np.array([0.0, 1.0, 2.0, 100.0])),
    "gammaincc": (np.array([0.5, 1.0, 3.0, 30.0]), np.array([0.0, 1.0, 2.0, 100.0])),
    "betaln": (np.array([0.5, 1.0, 3.0, 1e5]), np.array([0.5, 2.0, 1e-3, 1e5])),
    "beta": (np.array([0.5, 1.0, 3.0, -0.5]), np.array([0.5, 2.0, 1e-3, 2.0])),
    "xlogy": (np.array([0.0, 0.0, 0.0, 2.0, 1.0]), np.array([0.0, -1.0, 2.0, 3.0, 0.0])),
    "xlog1py": (np.array([0.0, 0.0, 2.0, 1.0]), np.array([-1.0, -2.0, 3.0, -1.0])),
    "kl_div": (np.array([0.0, 0.0, 1.0, 2.0, -1.0]), np.array([0.0, 2.0, 1.0, 0.5, 1.0])),
    "rel_entr": (np.array([0.0, 0.0, 1.0, 2.0, -1.0]), np.array([0.0, 2.0, 1.0, 0.5, 1.0])),
}


@pytest.mark.parametrize("name", sorted(BINARY_VALUES))
def test_binary_values_match_scipy(name):
    a, b = BINARY_VALUES[name]
    with np.errstate(all="ignore"):
        want = getattr(sp, name)(a, b)
    np.testing.assert_allclose(getattr(fsp, name)(a, b), want, rtol=1e-13, atol=0)
    np.testing.assert_allclose(fg.jit(getattr(fsp, name))(a, b), want, rtol=1e-13, atol=0)


def test_betainc_and_multigammaln_match_scipy():
    a, b, x = np.array([0.5, 2.0, 5.0]), np.array([0.5, 3.0, 1.0]), np.array([0.1, 0.5, 0.99])
    np.testing.assert_allclose(fsp.betainc(a, b, x), sp.betainc(a, b, x), rtol=1e-13)
    for d in (1, 2, 3):
        np.testing.assert_allclose(fsp.multigammaln(np.array([2.0, 5.5]), d),
                                   sp.multigammaln(np.array([2.0, 5.5]), d), rtol=1e-13)


def test_riemann_zeta_default_q():
    np.testing.assert_allclose(fsp.zeta(2.0), np.pi ** 2 / 6, rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_narrow_floats_keep_their_dtype(dtype):
    x = np.array([0.5, 1.5, 3.0], dtype)
    for f in (fsp.gammaln, fsp.digamma, fsp.erfinv, fsp.log_ndtr, fsp.i1e):
        assert f(x).dtype == dtype
        assert fg.jit(f)(x).dtype == dtype
        assert fg.grad(lambda x: f(x).sum())(x).dtype == dtype
    assert fsp.polygamma(1, x).dtype == dtype


def test_integers_compute_in_float64():
    assert fsp.gammaln(np.array([1, 2, 3])).dtype == np.float64
    assert fg.jit(fsp.gammaln)(np.array([1, 2, 3])).dtype == np.float64


def test_complex_is_rejected():
    with pytest.raises(TypeError, match="complex"):
        fsp.gammaln(np.array([1 + 1j]))


# ----------------------------------------------------------------------------- logsumexp
LSE_CASES = [
    (np.array([0.0, -np.inf]), None), (np.array([-np.inf, -np.inf]), None),
    (np.array([1e4, 1e4 + 1]), None), (np.array([1.0, 2.0, 3.0]), np.array([1.0, -2.0, 0.5])),
    (np.array([1.0, 2.0]), np.array([1.0, -1.0])), (np.array([1.0, 2.0]), np.array([-1.0, -1.0])),
    (np.array([[1.0, 2.0], [3.0, -np.inf]]), np.array([[2.0, 0.0], [1.0, 1.0]])),
]


@pytest.mark.parametrize("a,b", LSE_CASES)
@pytest.mark.parametrize("axis", [None, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp_matches_scipy(a, b, axis, keepdims):
    with np.errstate(all="ignore"):
        want = sp.logsumexp(a, axis=axis, b=b, keepdims=keepdims)
        want_s = sp.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
    np.testing.assert_allclose(fsp.logsumexp(a, axis=axis, b=b, keepdims=keepdims), want)
    got_s = fsp.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
    np.testing.assert_allclose(got_s[0], want_s[0])
    np.testing.assert_allclose(got_s[1], want_s[1])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_softmax_matches_scipy(name, axis):
    x = np.array([[1.0, 2.0, -1e3], [3.0, 3.0, 1e3]])
    np.testing.assert_allclose(getattr(fsp, name)(x, axis=axis), getattr(sp, name)(x, axis=axis),
                               rtol=1e-13)


# ----------------------------------------------------------------------------- derivatives
def test_derivatives_in_closed_form():
    d = lambda f, *a, argnums=0: float(fg.grad(f, argnums=argnums)(*a))  # noqa: E731
    assert d(fsp.gammaln, 2.5) == pytest.approx(sp.digamma(2.5), rel=1e-14)
    assert d(fsp.digamma, 2.5) == pytest.approx(sp.polygamma(1, 2.5), rel=1e-14)
    assert d(lambda x: fsp.polygamma(2, x), 2.5) == pytest.approx(sp.polygamma(3, 2.5))
    assert d(fsp.erfinv, 0.3) == pytest.approx(np.sqrt(np.pi) / 2 * np.exp(sp.erfinv(0.3) ** 2))
    assert d(fsp.i1e, 0.0) == 0.5 and d(fsp.i1, 0.0) == 0.5
    assert d(fsp.i0e, 1.5) == pytest.approx(sp.i1e(1.5) - sp.i0e(1.5))
    assert d(fsp.zeta, 3.0, 2.0, argnums=1) == pytest.approx(-3.0 * sp.zeta(4.0, 2.0))
    g = fg.grad(fg.grad(fsp.gammaln))(2.5)
    assert g == pytest.approx(sp.polygamma(1, 2.5), rel=1e-13)


def test_log_ndtr_derivative_far_in_the_tail():
    # d/dx log ndtr(x) ~ -x for x -> -inf; exp(-x^2/2)/ndtr(x) would be 0/0
    for x in (-40.0, -1e3, -1e5):
        g = float(fg.grad(fsp.log_ndtr)(x))
        assert np.isfinite(g) and g == pytest.approx(-x, rel=1e-3)
    assert float(fg.grad(fst.norm.logcdf)(-40.0)) == pytest.approx(40.025, rel=1e-4)


def test_xlogy_at_zero():
    gx, gy = fg.grad(fsp.xlogy, argnums=(0, 1))(0.0, 2.0)
    assert gx == pytest.approx(np.log(2.0)) and gy == 0.0   # as JAX
    assert fsp.xlogy(0.0, 0.0) == 0.0
    gx, gy = fg.grad(fsp.xlogy, argnums=(0, 1))(0.0, 0.0)
    assert gy == 0.0   # (JAX: nan)
    gx, gy = fg.grad(fsp.xlog1py, argnums=(0, 1))(0.0, -1.0)
    assert gy == 0.0


MISSING_DERIVATIVES = [(fsp.zeta, "x", "q"), (fsp.gammainc, "a", "x"), (fsp.gammaincc, "a", "x")]
# every way a tangent can reach the missing coefficient: forward, reverse, batched, compiled
TANGENT_PATHS = {
    "grad": lambda f: fg.grad(f)(2.0),
    "jvp": lambda f: fg.jvp(f, (2.0,), (1.0,)),
    "jacfwd": lambda f: fg.jacfwd(f)(np.array([2.0, 2.5])),
    "vmap_grad": lambda f: fg.vmap(fg.grad(f))(np.array([2.0, 2.5])),
    "jit_grad": lambda f: fg.jit(fg.grad(f))(2.0),
}


@pytest.mark.parametrize("path", sorted(TANGENT_PATHS))
@pytest.mark.parametrize("f,operand,other", MISSING_DERIVATIVES)
def test_missing_derivatives_raise(f, operand, other, path):
    """A derivative SciPy has no closed form for raises (naming the operand and what IS
    differentiable), never a silent zero; the other operand's derivative is there."""
    with pytest.raises(NotImplementedError,
                       match=f"respect to `{operand}`.*differentiable in `{other}` only"):
        TANGENT_PATHS[path](lambda v: f(v, 1.5))
    assert np.isfinite(fg.grad(f, argnums=1)(2.0, 1.5))


def test_betainc_derivative_in_x_only():
    g = fg.grad(fsp.betainc, argnums=2)(2.0, 3.0, 0.4)
    assert g == pytest.approx(sst.beta.pdf(0.4, 2.0, 3.0))
    with pytest.raises(NotImplementedError):
        fg.grad(fsp.betainc, argnums=0)(2.0, 3.0, 0.4)


def test_vmap_and_jit_of_polygamma_with_integer_order():
    x = np.array([1.0, 2.0, 3.0])
    want = sp.polygamma(2, x)
    np.testing.assert_allclose(fg.vmap(lambda x: fsp.polygamma(2, x))(x), want)
    np.testing.assert_allclose(fg.jit(fsp.polygamma)(np.array([2, 2, 2]), x), want)


# ----------------------------------------------------------------------------- stats values
CONT = [
    ("norm", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), (), np.array([-40.0, -3, 0, 1.5, 40])),
    ("norm", ("ppf", "isf"), (), np.array([1e-10, 0.2, 0.5, 0.9])),
    ("t", ("logpdf", "pdf"), (3.5,), np.array([-50.0, -1, 0, 2])),
    ("beta", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), (2.0, 3.5),
     np.array([-0.5, 0.0, 0.2, 0.7, 1.0, 1.5])),
    ("gamma", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), (2.5,),
     np.array([-1.0, 0.0, 0.3, 2.0, 50.0])),
    ("logistic", ("logpdf", "pdf", "cdf", "sf"), (), np.array([-800.0, -2, 0, 3, 800])),
    ("logistic", ("ppf", "isf"), (), np.array([1e-10, 0.2, 0.5, 0.9])),
    ("expon", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), (),
     np.array([-1.0, 0.0, 1e-12, 0.5, 30.0])),
    ("expon", ("ppf",), (), np.array([0.0, 0.2, 0.5, 0.9])),
    ("uniform", ("logpdf", "pdf", "cdf"), (), np.array([-0.5, 0.0, 0.4, 1.0, 1.5])),
    ("uniform", ("ppf",), (), np.array([0.0, 0.2, 1.0])),
    ("laplace", ("logpdf", "pdf", "cdf"), (), np.array([-40.0, -1, 0, 2, 40])),
    ("cauchy", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), (), np.array([-1e3, -1, 0, 2])),
    ("cauchy", ("ppf", "isf"), (), np.array([0.01, 0.2, 0.5, 0.9])),
]


@pytest.mark.parametrize("dist,fns,shapes,x", CONT, ids=[f"{c[0]}-{c[1][0]}" for c in CONT])
@pytest.mark.parametrize("loc_scale", [(), (0.3, 1.7)])
def test_continuous_distributions_match_scipy(dist, fns, shapes, x, loc_scale):
    for fn in fns:
        with np.errstate(all="ignore"):
            want = getattr(getattr(sst, dist), fn)(x, *shapes, *loc_scale)
        got = getattr(getattr(fst, dist), fn)(x, *shapes, *loc_scale)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300, err_msg=f"{dist}.{fn}")


DISC = [
    ("poisson", ("logpmf", "pmf", "cdf"), (2.5,), np.array([-1.0, 0, 1, 2.5, 3, 40])),
    ("bernoulli", ("logpmf", "pmf", "cdf"), (0.3,), np.array([-1.0, 0, 0.5, 1, 2])),
    ("binom", ("logpmf", "pmf"), (6.0, 0.3), np.array([-1.0, 0, 1, 2.5, 6, 7])),
]


@pytest.mark.parametrize("dist,fns,params,k", DISC, ids=[c[0] for c in DISC])
@pytest.mark.parametrize("loc", [0.0, 1.0])
def test_discrete_distributions_match_scipy(dist, fns, params, k, loc):
    for fn in fns:
        with np.errstate(all="ignore"):
            want = getattr(getattr(sst, dist), fn)(k, *params, loc)
        got = getattr(getattr(fst, dist), fn)(k, *params, loc)
        np.testing.assert_allclose(got, want, rtol=1e-11, err_msg=f"{dist}.{fn}")


def test_bernoulli_ppf_matches_scipy():
    q = np.array([0.0, 0.1, 0.69, 0.71, 1.0])
    np.testing.assert_array_equal(fst.bernoulli.ppf(q, 0.3), sst.bernoulli.ppf(q, 0.3))


def test_dirichlet_matches_scipy():
    alpha = np.array([0.5, 2.0, 3.0])
    x = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(fst.dirichlet.logpdf(x, alpha), sst.dirichlet.logpdf(x, alpha))
    xs = np.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]])
    np.testing.assert_allclose(fst.dirichlet.pdf(xs, alpha), sst.dirichlet.pdf(xs, alpha))
    with pytest.raises(ValueError, match="alpha must have shape"):
        fst.dirichlet.logpdf(x, alpha[:2])


def test_distribution_parameter_gradients():
    # d/dscale norm.logpdf = ((x - loc)^2 / scale^2 - 1) / scale
    g = fg.grad(fst.norm.logpdf, argnums=2)(1.0, 0.5, 2.0)
    assert g == pytest.approx((0.25 / 4.0 - 1.0) / 2.0)
    # d/dmu poisson.logpmf = k / mu - 1
    assert fg.grad(lambda mu: fst.poisson.logpmf(3.0, mu))(2.0) == pytest.approx(0.5)
    # d/dx gamma.cdf = gamma.pdf
    assert fg.grad(fst.gamma.cdf)(1.3, 2.5) == pytest.approx(sst.gamma.pdf(1.3, 2.5))


# ----------------------------------------------------------------------------- signal
@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("sa,sb", [((5,), (3,)), ((3,), (5,)), ((4,), (4,)), ((4, 3), (2, 3)),
                                   ((2, 3), (4, 5)), ((3, 4, 2), (2, 2, 2))])
def test_signal_matches_scipy(name, mode, sa, sb):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    np.testing.assert_allclose(getattr(fsig, name)(a, b, mode),
                               getattr(ss, name)(a, b, mode), rtol=1e-12, atol=1e-12)
    if len(sa) == 2:
        np.testing.assert_allclose(getattr(fsig, name + "2d")(a, b, mode),
                                   getattr(ss, name + "2d")(a, b, mode), rtol=1e-12, atol=1e-12)


def test_signal_complex_and_integer_inputs():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(5) + 1j * rng.standard_normal(5)
    b = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(fsig.correlate(a, b, mode), ss.correlate(a, b, mode))
        np.testing.assert_allclose(fsig.correlate(b, a, mode), ss.correlate(b, a, mode)) \
            if mode != "valid" else None
        np.testing.assert_allclose(fsig.convolve(a, b, mode), ss.convolve(a, b, mode))
    ia, ib = np.arange(4), np.array([1, 2])
    got = fsig.convolve(ia, ib)
    assert got.dtype == ss.convolve(ia, ib).dtype
    np.testing.assert_array_equal(got, ss.convolve(ia, ib))


def test_signal_errors():
    a = np.ones((3, 2))
    with pytest.raises(ValueError, match="mode must be"):
        fsig.convolve(a, a, mode="nope")
    with pytest.raises(ValueError, match="method must be"):
        fsig.correlate(a, a, method="nope")
    with pytest.raises(ValueError, match="at least as large"):
        fsig.convolve(np.ones((3, 2)), np.ones((2, 3)), mode="valid")
    with pytest.raises(ValueError, match="same rank"):
        fsig.convolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(NotImplementedError, match="boundary='fill'"):
        fsig.convolve2d(a, a, boundary="wrap")


def test_convolve_gradient_is_a_correlation():
    rng = np.random.default_rng(2)
    a, b, ct = rng.standard_normal(6), rng.standard_normal(3), rng.standard_normal(8)
    ga, gb = fg.grad(lambda a, b: (fsig.convolve(a, b) * ct).sum(), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, ss.correlate(ct, b, "valid"), rtol=1e-12)
    np.testing.assert_allclose(gb, ss.correlate(ct, a, "valid"), rtol=1e-12)


# ----------------------------------------------------------------------------- integrate
@pytest.mark.parametrize("kw", [{}, {"dx": 0.3}, {"axis": 0}, {"x": "1d"}, {"x": "full"}])
def test_trapezoid_matches_scipy(kw):
    rng = np.random.default_rng(3)
    y = rng.standard_normal((3, 4))
    kw = dict(kw)
    if kw.get("x") == "1d":
        kw["x"] = np.sort(rng.standard_normal(4))
    elif kw.get("x") == "full":
        kw["x"] = np.sort(rng.standard_normal((3, 4)), axis=-1)
    np.testing.assert_allclose(fint.trapezoid(y, **kw), si.trapezoid(y, **kw), rtol=1e-13)
    np.testing.assert_allclose(fint.cumulative_trapezoid(y, **kw),
                               si.cumulative_trapezoid(y, **kw), rtol=1e-13)
    np.testing.assert_allclose(fint.cumulative_trapezoid(y, initial=0, **kw),
                               si.cumulative_trapezoid(y, initial=0, **kw), rtol=1e-13)


def test_trapezoid_errors():
    with pytest.raises(ValueError, match="x has length"):
        fint.trapezoid(np.ones(4), np.ones(3))
    with pytest.raises(ValueError, match="initial must be None or 0"):
        fint.cumulative_trapezoid(np.ones(4), initial=1.0)


# ----------------------------------------------------------------------------- docstrings
def test_module_doctests():
    import doctest
    import importlib
    import types
    mods = ["fungrad.scipy", "fungrad.scipy.special", "fungrad.scipy.signal",
            "fungrad.scipy.integrate", "fungrad.scipy.stats"] + [
        f"fungrad.scipy.stats.{d}" for d in fst.__all__
        if isinstance(getattr(fst, d), types.ModuleType)]
    attempted = 0
    for name in mods:
        result = doctest.testmod(importlib.import_module(name), extraglobs={"fg": fg, "np": np})
        assert result.failed == 0, name
        attempted += result.attempted
    assert attempted > 0


def test_gammainc_derivative_in_x_at_zero_for_a_equal_one():
    """gammainc(1, x) = 1 - exp(-x): its derivative at 0 is 1 (x^0 = 1, not 0 * log 0)."""
    d = fg.grad(lambda x: fg.scipy.special.gammainc(1.0, x))
    assert d(0.0) == 1.0 and fg.grad(d)(0.0) == -1.0
    assert fg.grad(lambda x: fg.scipy.special.gammaincc(1.0, x))(0.0) == -1.0


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def test_special_nan_and_inf_edges_match_scipy():
    e = np.array([0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan])
    x, y = np.repeat(e, len(e)), np.tile(e, len(e))
    with np.errstate(all="ignore"):
        for name in ("xlogy", "xlog1py", "rel_entr", "kl_div"):   # 0 * log(inf) is 0; nan stays
            _same(fg.jit(getattr(fsp, name))(x, y), getattr(sp, name)(x, y))
        _same(fg.jit(fsp.entr)(e), sp.entr(e))                        # entr(nan) is nan


@pytest.mark.parametrize("a", [np.array([np.nan, 1.0]), np.array([np.inf, 1.0]),
                               np.array([-np.inf, -np.inf]), np.array([np.inf, np.inf])])
def test_logsumexp_and_softmax_propagate_nan_as_scipy(a):
    with np.errstate(all="ignore"):
        _same(fg.jit(fsp.logsumexp)(a), sp.logsumexp(a))
        for name in ("softmax", "log_softmax"):
            _same(fg.jit(getattr(fsp, name))(a), getattr(sp, name)(a))


def test_logsumexp_of_an_empty_slice_and_promoted_weights():
    assert fg.jit(fsp.logsumexp)(np.zeros(0)) == -np.inf
    _same(fg.jit(lambda a: fsp.logsumexp(a, axis=1))(np.zeros((2, 0))), [-np.inf, -np.inf])
    a, b = np.array([1.0, 2.0, 3.0], np.float16), np.array(2)   # computes in float64, as SciPy
    got = fg.jit(lambda a: fsp.logsumexp(a, b=b))(a)
    assert got.dtype == np.float64 and got == pytest.approx(sp.logsumexp(a, b=b), rel=1e-12)
    with pytest.raises(TypeError, match="complex"):
        fsp.logsumexp(np.array([1j]))


def test_distributions_give_nan_outside_the_parameter_domain():
    x = np.array([-1.0, 0.0, 0.5, 2.0, np.nan])
    with np.errstate(all="ignore"):
        for f, g, args in [(fst.norm.logpdf, sst.norm.logpdf, (0.0, -1.0)),
                           (fst.expon.cdf, sst.expon.cdf, (0.0, 0.0)),
                           (fst.uniform.logpdf, sst.uniform.logpdf, (0.0, 1.0)),
                           (fst.gamma.logpdf, sst.gamma.logpdf, (-1.0,)),
                           (fst.gamma.logpdf, sst.gamma.logpdf, (1.0,)),
                           (fst.beta.sf, sst.beta.sf, (2.0, 0.0)),
                           (fst.t.logpdf, sst.t.logpdf, (np.nan,)),
                           (fst.poisson.logpmf, sst.poisson.logpmf, (-1.0,)),
                           (fst.bernoulli.cdf, sst.bernoulli.cdf, (1.5,)),
                           (fst.binom.logpmf, sst.binom.logpmf, (3.0, 0.3))]:
            _same(fg.jit(lambda x: f(x, *args))(x), g(x, *args))


def test_distribution_edges_match_scipy():
    q = np.array([-0.1, 0.0, 0.5, 1.0, 1.1])
    with np.errstate(all="ignore"):
        for name in ("ppf", "isf"):   # +-inf at q = 0, 1; nan outside
            _same(fg.jit(getattr(fst.cauchy, name))(q), getattr(sst.cauchy, name)(q))
        _same(fg.jit(fst.expon.ppf)(q), sst.expon.ppf(q))
        _same(fg.jit(lambda q: fst.bernoulli.ppf(q, 0.0))(q), sst.bernoulli.ppf(q, 0.0))
        x = np.array([-np.inf, 0.0, np.inf])    # not inf - inf
        _same(fg.jit(fst.logistic.logpdf)(x), sst.logistic.logpdf(x))
        _same(fg.jit(lambda x: fst.gamma.logpdf(x, 1.0))(x), sst.gamma.logpdf(x, 1.0))
    x = np.array([[np.nan, 1.0], [np.inf, 0.0]])   # eager: no check_finite error
    _same(fst.multivariate_normal.logpdf(x, np.zeros(2), np.eye(2)),
          sst.multivariate_normal.logpdf(x, np.zeros(2), np.eye(2)))


def test_correlate2d_valid_with_the_larger_second_input_is_not_conjugated():
    a = np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]])
    b = np.array([[1, 2j, 3], [4, 5, 6j], [1j, 1, 1]])
    _same(fg.jit(lambda a: fsig.correlate2d(a, b, mode="valid"))(a),
          ss.correlate2d(a, b, mode="valid"))


def test_cumulative_trapezoid_initial_on_one_sample():
    y = np.array([[3.0], [4.0]])
    _same(fg.jit(lambda y: fint.cumulative_trapezoid(y, initial=0))(y),
          si.cumulative_trapezoid(y, initial=0))
    with pytest.raises(ValueError, match="at least one point"):
        fint.cumulative_trapezoid(np.zeros(0))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32])
def test_linalg_small_integers_compute_in_float32_as_lapack(dtype):
    import fungrad.scipy.linalg as fla
    import scipy.linalg as sla
    a, b = np.eye(2, dtype=dtype), np.ones(2, dtype)
    assert fg.jit(lambda a: fla.solve_triangular(a, b))(a).dtype == \
        sla.solve_triangular(a, b).dtype
    assert fg.jit(lambda a: fla.lu_factor(a)[0])(a).dtype == sla.lu_factor(a)[0].dtype
    assert fg.jit(fla.expm)(a).dtype == sla.expm(a).dtype
