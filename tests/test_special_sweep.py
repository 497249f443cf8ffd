"""Edge cases of fungrad.scipy.special and fungrad.scipy.stats found by a differential sweep
against SciPy (values) and JAX 0.10.2 (derivatives; the expected slopes below are JAX's,
written out as constants: the tests do not need JAX)."""
import numpy as np
import pytest

import fungrad as fg

pytest.importorskip("scipy")
import scipy.special as ss  # noqa: E402
import scipy.stats as sst  # noqa: E402

import fungrad.scipy.special as fsp  # noqa: E402
import fungrad.scipy.stats as fst  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


# ----------------------------------------------------------------------------- special
def test_entr_slope_at_nan_is_nan():
    # the nan branch passed x itself through: slope 1 (JAX's slope is nan, first and second)
    assert np.isnan(fg.grad(fsp.entr)(np.nan))
    assert np.isnan(fg.grad(fg.grad(fsp.entr))(np.nan))
    x = np.array([np.nan, 0.0, -1.0, 0.5, np.inf])
    np.testing.assert_array_equal(fsp.entr(x), ss.entr(x))
    g = fg.vmap(fg.grad(fsp.entr))(x)
    np.testing.assert_array_equal(g, [np.nan, 0.0, 0.0, -np.log(0.5) - 1.0, -np.inf])


def test_kl_div_slopes_in_its_inf_region_are_jax_ones():
    # kl_div is inf for x < 0, y < 0, or x > 0 with y == 0; JAX's slopes there are (-1, 1)
    # (the -x + y terms), fungrad's were (0, 0)
    x = np.array([1.0, -1.0, 1.0, -1.0, 0.0, -1.0, 0.0])
    y = np.array([0.0, 1.0, -1.0, 0.0, -1.0, -1.0, np.inf])
    np.testing.assert_array_equal(fsp.kl_div(x, y), ss.kl_div(x, y))
    gx, gy = fg.vmap(fg.grad(fsp.kl_div, argnums=(0, 1)))(x, y)
    np.testing.assert_array_equal(gx, -np.ones(7))
    np.testing.assert_array_equal(gy, np.ones(7))
    # second derivatives there: 0
    np.testing.assert_array_equal(fg.vmap(fg.grad(fg.grad(fsp.kl_div)))(x, y), np.zeros(7))


@pytest.mark.parametrize("f", [fsp.xlogy, fsp.xlog1py, fsp.rel_entr, fsp.kl_div])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_binary_functions_keep_a_narrow_dtype(f, dtype):
    # a where between an operand and a Python constant (xlogy's safe y, rel_entr's 0 / inf)
    # made a float64 array: rel_entr(float32, float32) and xlogy(float32, 2.0) were float64
    x = np.array([0.0, 0.5, 2.0], dtype)
    for out in [f(x, x), f(x, 2.0), f(2.0, x), fg.jit(f)(x, x)]:
        assert out.dtype == dtype
    np.testing.assert_allclose(f(x, x).astype(np.float64),
                               getattr(ss, f.__name__)(x.astype(np.float64), x), rtol=1e-3)


def test_multigammaln_keeps_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.array([3.0, 4.0], ml_dtypes.bfloat16)
    # NumPy promotes bfloat16 with a Python float to float32
    out = fsp.multigammaln(a, 2)
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(out.astype(np.float64), ss.multigammaln(np.array([3.0, 4.0]), 2),
                               rtol=2e-2)


# ----------------------------------------------------------------------------- stats
def test_beta_logpdf_pole_with_tiny_shapes():
    # below a = b = 1e-308 SciPy's betaln is inf, and at the poles x = 0, 1 the log density
    # was inf - inf = nan (pdf nan; SciPy's pdf is inf)
    for a, b, x in [(1e-308, 1e-308, 0.0), (1e-308, 1e-308, 1.0), (1e-320, 1.0, 0.0),
                    (1.0, 1e-320, 1.0), (0.5, 2.0, 0.0)]:
        assert fst.beta.logpdf(x, a, b) == np.inf
        assert fst.beta.pdf(x, a, b) == np.inf
    assert fst.beta.pdf(0.0, 1e-308, 1e-308) == sst.beta.pdf(0.0, 1e-308, 1e-308)
    # the slopes at a pole stay those of x^(a-1) (JAX's: -inf in x, -inf in a)
    assert fg.grad(fst.beta.logpdf)(0.0, 0.5, 2.0) == -np.inf
    assert fg.grad(fst.beta.logpdf, argnums=1)(0.0, 0.5, 2.0) == -np.inf
    # away from the poles: SciPy's values
    x = np.array([0.3, 0.0, 1.0, 0.5])
    np.testing.assert_allclose(fst.beta.logpdf(x, 2.0, 3.0), sst.beta.logpdf(x, 2.0, 3.0))


@pytest.mark.parametrize("a, b", [(0.1, 1.0), (0.1, 2.0), (0.01, 3.0), (1e-3, 1.0),
                                  (2.0, 3.0), (1.0, 1000.0), (0.5, 0.5)])
def test_beta_sf_near_zero(a, b):
    # sf was betainc(b, a, 1 - x), and 1 - 1e-20 is 1: sf(1e-20, 0.1, 1) was 1, not 0.99
    mp = pytest.importorskip("mpmath")
    x = np.array([1e-20, 1e-8, 1e-3, 0.1, 0.3, 0.5, 0.7, 1 - 1e-8])
    # (mpmath's, not SciPy's: SciPy's sf(1e-20, 0.5, 0.5) is 1, not 1 - 6.4e-11)
    with mp.workdps(60):   # (1 - x exact at this precision: the mirrored lower integral)
        exact = [mp.betainc(b, a, 0, 1 - mp.mpf(v), regularized=True) for v in x]
        want = np.array([float(e) for e in exact])
        log_want = np.array([float(mp.log(e)) for e in exact])
    np.testing.assert_allclose(fst.beta.sf(x, a, b), want, rtol=1e-12)
    shown = want > 0   # (where sf underflows logsf is -inf, as SciPy's)
    np.testing.assert_allclose(fst.beta.logsf(x, a, b)[shown], log_want[shown], rtol=1e-12)
    g = fg.vmap(fg.grad(fst.beta.sf), in_axes=(0, None, None))(x[2:], a, b)
    np.testing.assert_allclose(g, -sst.beta.pdf(x[2:], a, b), rtol=1e-10)


def test_cauchy_distribution_functions_far_tails():
    # 1/2 + arctan(z) / pi cancelled: cdf(-1e10) was 3.183098230e-11 (3.183098862e-11),
    # logcdf(-1e20) -inf, logsf(1e20) -inf; log1p(z^2) overflowed: logpdf(1e300) was -inf
    x = np.array([-1e300, -1e20, -1e10, -1e5, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1e5, 1e10,
                  1e20, 1e300, np.inf, -np.inf, np.nan])
    for name in ["cdf", "sf", "logcdf", "logsf", "logpdf", "pdf"]:
        np.testing.assert_allclose(getattr(fst.cauchy, name)(x, 0.5, 2.0),
                                   getattr(sst.cauchy, name)(x, 0.5, 2.0), rtol=1e-14,
                                   err_msg=name)
    # slopes: d logcdf / dz = pdf / cdf, ~ -1/z in the far left tail; d logpdf = -2z/(1+z^2)
    z = np.array([-1e100, -1e10, -3.0, 0.0, 3.0, 1e10])
    np.testing.assert_allclose(fg.vmap(fg.grad(fst.cauchy.logcdf))(z),
                               np.exp(sst.cauchy.logpdf(z) - sst.cauchy.logcdf(z)), rtol=1e-12)
    np.testing.assert_allclose(fg.vmap(fg.grad(fst.cauchy.logsf))(z),
                               -np.exp(sst.cauchy.logpdf(z) - sst.cauchy.logsf(z)), rtol=1e-12)
    z = np.array([-1e300, -1e100, -3.0, 0.0, 0.5, 3.0, 1e10])
    np.testing.assert_allclose(fg.vmap(fg.grad(fst.cauchy.logpdf))(z),
                               [2e-300, 2e-100, 0.6, 0.0, -0.8, -0.6, -2e-10], rtol=1e-12)
    np.testing.assert_allclose(fg.vmap(fg.grad(fg.grad(fst.cauchy.logpdf)))(z[2:-1]),
                               [0.16, -2.0, -0.96, 0.16], rtol=1e-12)


ALPHA = np.array([2.0, 3.0, 1.5])


@pytest.mark.parametrize("x, message", [
    ([-0.1, 0.6, 0.5], "greater than or equal to zero"),
    ([1.2, -0.1, -0.1], "greater than or equal to zero"),
    ([[0.2, 0.1], [0.3, -0.4], [0.5, 1.3]], "greater than or equal to zero")])
def test_dirichlet_components_outside_zero_one(x, message):
    # logpdf did not check x: a negative component got a finite log density (xlogy of a
    # negative x_i is nan, or finite for alpha_i == 1). SciPy raises ValueError for concrete
    # values; under a transform JAX's -inf
    x = np.array(x)
    with pytest.raises(ValueError):
        sst.dirichlet.logpdf(x, ALPHA)
    with pytest.raises(ValueError, match=message):
        fst.dirichlet.logpdf(x, ALPHA)
    out = fg.jit(fst.dirichlet.logpdf)(x, ALPHA)
    assert np.all(out == -np.inf) if x.ndim == 1 else out[1] == -np.inf


def test_dirichlet_on_the_simplex_and_k_minus_one_components():
    x = np.array([[0.2, 0.1], [0.3, 0.4], [0.5, 0.5]])
    want = sst.dirichlet.logpdf(x, ALPHA)
    # (x of a row outside [0, 1] under jit: -inf for that column only)
    assert fg.jit(fst.dirichlet.logpdf)(x * [[1.0], [1.0], [-1.0]], ALPHA).tolist() == [-np.inf] * 2
    np.testing.assert_allclose(fst.dirichlet.logpdf(x, ALPHA), want)
    np.testing.assert_allclose(fg.jit(fst.dirichlet.logpdf)(x, ALPHA), want)
    # K - 1 components: the last is 1 - sum (SciPy's and JAX's; fungrad raised)
    np.testing.assert_allclose(fst.dirichlet.logpdf(x[:2], ALPHA), want)
    np.testing.assert_allclose(fst.dirichlet.logpdf(np.array([0.2, 0.3, 0.5 + 1e-12]), ALPHA),
                               sst.dirichlet.logpdf(np.array([0.2, 0.3, 0.5 + 1e-12]), ALPHA))
    # a zero component with alpha > 1: SciPy's -inf; nan stays nan
    assert fst.dirichlet.logpdf(np.array([0.0, 0.5, 0.5]), ALPHA) == -np.inf
    assert np.isnan(fst.dirichlet.logpdf(np.array([np.nan, 0.5, 0.5]), ALPHA))
    # float32 components summing to 1 within float32 rounding
    x32 = np.array([0.1, 0.2, 0.7], np.float32)
    np.testing.assert_allclose(fst.dirichlet.logpdf(x32, ALPHA.astype(np.float32)),
                               sst.dirichlet.logpdf(x32, ALPHA.astype(np.float32)), rtol=1e-5)
    # slope in the K - 1 free components: (a_i - 1) / x_i - (a_K - 1) / x_K
    g = fg.grad(fst.dirichlet.logpdf)(np.array([0.2, 0.3]), ALPHA)
    np.testing.assert_allclose(g, [1 / 0.2 - 0.5 / 0.5, 2 / 0.3 - 0.5 / 0.5])


def test_dirichlet_alpha_not_positive():
    with pytest.raises(ValueError):
        sst.dirichlet.logpdf(np.array([0.2, 0.8]), np.array([-1.0, 2.0]))
    with pytest.raises(ValueError, match="greater than 0"):
        fst.dirichlet.logpdf(np.array([0.2, 0.8]), np.array([-1.0, 2.0]))
    assert np.isnan(fg.jit(fst.dirichlet.logpdf)(np.array([0.2, 0.8]), np.array([-1.0, 2.0])))


@pytest.mark.parametrize("x", [12.0, 30.0, 1e3, 1e5, 1e8, 1e20])
def test_erfcx_slopes_for_large_x(x):
    # erfcx' = 2x erfcx(x) - 2/sqrt(pi) cancels for large x: the slope was off by 1.6e-6
    # relative at 1e5 and 0 from ~1e8 on (the second derivative 1.8e-11 for 1.1e-15 at 1e5)
    mp = pytest.importorskip("mpmath")
    with mp.workdps(40):
        f = lambda t: mp.erfc(t) * mp.exp(t * t)  # noqa: E731
        d1, d2 = float(mp.diff(f, mp.mpf(x), 1)), float(mp.diff(f, mp.mpf(x), 2))
    assert float(fg.grad(fsp.erfcx)(x)) == pytest.approx(d1, rel=1e-13, abs=0)
    assert float(fg.grad(fg.grad(fsp.erfcx))(x)) == pytest.approx(d2, rel=1e-12, abs=0)


@pytest.mark.parametrize("x", [-1e8, -1e5, -100.0, -30.0, -10.0])
def test_log_ndtr_second_derivative_far_left(x):
    # log_ndtr'' goes through erfcx': -1.0000004 at -1e5, 0 at -1e20 (-1 + 1/x^2 + ...)
    mp = pytest.importorskip("mpmath")
    with mp.workdps(40):
        want = float(mp.diff(lambda t: mp.log(mp.ncdf(t)), mp.mpf(x), 2))
    assert float(fg.grad(fg.grad(fsp.log_ndtr))(x)) == pytest.approx(want, rel=1e-12)
    assert float(fg.grad(fg.grad(fst.norm.logcdf))(x)) == pytest.approx(want, rel=1e-12)


def test_polygamma_integer_order_keeps_x_dtype_and_has_no_order_derivative():
    # an int64 order promoted a float32 x to float64 (JAX's result is float32)
    n = np.array([1, 2])
    for dtype in [np.float16, np.float32]:
        x = np.array([2.0, 3.0], dtype)
        out = fsp.polygamma(n, x)
        assert out.dtype == dtype
        np.testing.assert_allclose(out, ss.polygamma(n, x.astype(np.float64)), rtol=1e-3)
        assert fg.jit(fsp.polygamma)(n, x).dtype == dtype
    assert fsp.polygamma(n, np.array([2.0, 3.0])).dtype == np.float64
    # the order's slope was silently 0 (polygamma is nan between integer orders)
    with pytest.raises(NotImplementedError, match="order `n`"):
        fg.grad(fsp.polygamma)(1.0, 2.0)
    assert float(fg.grad(fsp.polygamma, argnums=1)(1.0, 2.0)) == pytest.approx(ss.polygamma(2, 2.0))


@pytest.mark.parametrize("f, args", [
    (fst.t.logpdf, (3.0,)), (fst.t.pdf, (3.0,)), (fst.gamma.logpdf, (2.5,)),
    (fst.gamma.pdf, (2.5,)), (fst.beta.logpdf, (2.0, 3.0)), (fst.beta.pdf, (2.0, 3.0)),
    (fst.bernoulli.cdf, (0.3,)), (fst.binom.logpmf, (10, 0.3)), (fst.binom.pmf, (10, 0.3))])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_stats_keep_narrow_dtype_with_python_parameters(f, args, dtype):
    # gammaln of a Python shape parameter (or a where between two Python floats) was a
    # float64 array: t.logpdf(float32 x, 3.0) was float64
    x = np.array([0.0, 0.5, 1.0, 2.0], dtype)
    out = f(x, *args)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.astype(np.float64), f(x.astype(np.float64), *args),
                               rtol=2e-2 if dtype == np.float16 else 1e-5)


def test_logsumexp_where():
    # JAX's `where` argument was a TypeError; the values below are JAX's (and SciPy's over
    # the kept elements)
    a = np.array([[1.0, 2.0, np.nan], [np.inf, 0.0, 1.0]])
    keep = np.array([[True, True, False], [False, True, True]])
    np.testing.assert_allclose(fsp.logsumexp(a, axis=1, where=keep),
                               [ss.logsumexp([1.0, 2.0]), ss.logsumexp([0.0, 1.0])])
    assert fsp.logsumexp(a, axis=1, where=keep, keepdims=True).shape == (2, 1)
    np.testing.assert_array_equal(fsp.logsumexp(a, axis=1, where=np.zeros_like(keep)),
                                  [-np.inf, -np.inf])
    b = np.array([[1.0, -2.0, 0.0], [1.0, 1.0, -1.0]])
    out, sign = fsp.logsumexp(a, axis=1, b=b, where=keep, return_sign=True)
    want, want_sign = ss.logsumexp([[1.0, 2.0], [0.0, 1.0]], axis=1, b=[[1.0, -2.0], [1.0, -1.0]],
                                   return_sign=True)
    np.testing.assert_allclose(out, want)
    np.testing.assert_array_equal(sign, want_sign)
    # slopes: the softmax over the kept elements, 0 elsewhere
    x = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 1.0]])
    g = fg.grad(lambda x: fsp.logsumexp(x, axis=1, where=keep).sum())(x)
    np.testing.assert_allclose(g, [[ss.expit(-1.0), ss.expit(1.0), 0.0],
                                   [0.0, ss.expit(-1.0), ss.expit(1.0)]])
    np.testing.assert_allclose(fg.vmap(lambda x, w: fsp.logsumexp(x, where=w))(x, keep),
                               fsp.logsumexp(x, axis=1, where=keep))
    np.testing.assert_allclose(fg.jit(lambda x, w: fsp.logsumexp(x, axis=1, where=w))(x, keep),
                               fsp.logsumexp(x, axis=1, where=keep))


def test_incomplete_beta_gamma_slopes_at_the_ends():
    # x^0 (1-x)^0 at x = 0 and 1 was 0 * log(0) = nan: the uniform density (a = b = 1)
    # had a nan slope at its ends; gammainc(1, x) at x < 0 is nan, its slope was e^-x
    x = np.array([0.0, 0.3, 1.0, np.nan, -0.1])
    g = fg.vmap(fg.grad(lambda x: fsp.betainc(1.0, 1.0, x)))(x)
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0, np.nan, np.nan])
    g = fg.vmap(fg.grad(lambda x: fsp.betainc(1e-300, 1.0, x)))(np.array([1.0]))
    np.testing.assert_allclose(g, sst.beta.pdf(1.0, 1e-300, 1.0))
    g = fg.vmap(fg.grad(lambda x: fsp.betainc(2.0, 1.0, x)))(x)
    np.testing.assert_allclose(g, [0.0, 0.6, 2.0, np.nan, np.nan])
    g = fg.vmap(fg.grad(lambda x: fsp.gammainc(1.0, x)))(np.array([-1.0, 0.0, 1.0]))
    np.testing.assert_allclose(g, [np.nan, 1.0, np.exp(-1.0)])
    assert np.isnan(fsp.gammainc(1.0, -1.0))
