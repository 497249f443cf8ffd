"""Edge cases of fungrad.scipy.stats found by a sweep against SciPy: Student's t for large
and infinite df, the Cauchy quantiles in the far tails, float32 kept with default scale."""
import numpy as np
import pytest

import fungrad as fg

pytest.importorskip("scipy")
import scipy.stats as sst  # noqa: E402

import fungrad.scipy.stats as fst  # noqa: E402


@pytest.mark.parametrize("df", [1e10, 1e16, 1e300, np.inf])
def test_t_logpdf_large_df(df):
    # gammaln((df+1)/2) - gammaln(df/2) cancelled: -18.99 for -0.92 at df = 1e16, nan at inf
    x = np.array([0.0, 1.5, -40.0, 1e3])
    np.testing.assert_allclose(fst.t.logpdf(x, df, 0.5, 2.0), sst.t.logpdf(x, df, 0.5, 2.0),
                               rtol=1e-13)
    np.testing.assert_allclose(fst.t.pdf(x, df), sst.t.pdf(x, df), rtol=1e-13, atol=1e-300)


def test_t_logpdf_series_matches_gammaln_near_switch():
    df = np.array([20.0, 99.0, 100.0, 100.5, 150.0, 1e4])
    # (SciPy's own gammaln difference is off by 2e-12 at df = 1e4; mpmath: -1.1639815...)
    np.testing.assert_allclose(fst.t.logpdf(0.7, df), sst.t.logpdf(0.7, df), rtol=1e-11)
    # derivatives: in x at df = inf the normal's -x; in df by central differences
    assert float(fg.grad(fst.t.logpdf)(1.5, np.inf)) == pytest.approx(-1.5)
    f = lambda d: float(fst.t.logpdf(0.7, d))  # noqa: E731
    for d in [99.0, 101.0, 500.0]:
        g = float(fg.grad(fst.t.logpdf, argnums=1)(0.7, d))
        assert g == pytest.approx((f(d + 1e-3) - f(d - 1e-3)) / 2e-3, rel=1e-5)


def test_cauchy_ppf_isf_far_tails():
    # tan(pi (q - 1/2)) rounded q = 1e-20 to the -inf endpoint
    q = np.array([0.0, 1e-300, 1e-20, 0.1, 0.3, 0.5, 0.8, 1 - 1e-16, 1.0])
    np.testing.assert_allclose(fst.cauchy.ppf(q, 1.0, 2.0), sst.cauchy.ppf(q, 1.0, 2.0),
                               rtol=1e-14)
    np.testing.assert_allclose(fst.cauchy.isf(q, 1.0, 2.0), sst.cauchy.isf(q, 1.0, 2.0),
                               rtol=1e-14)
    assert np.isnan(fst.cauchy.ppf(np.array([-0.1, 1.1]))).all()
    g = fg.vmap(fg.grad(fst.cauchy.ppf))(np.array([0.1, 0.3, 0.8]))
    np.testing.assert_allclose(g, np.pi / np.sin(np.pi * np.array([0.1, 0.3, 0.8])) ** 2)


@pytest.mark.parametrize("f, args", [
    (fst.beta.logpdf, (0.3, 2.0, 3.0)), (fst.beta.pdf, (0.3, 2.0, 3.0)),
    (fst.gamma.logpdf, (0.7, 1.5)), (fst.gamma.pdf, (0.7, 1.5)),
    (fst.t.logpdf, (0.3, 4.0)), (fst.t.pdf, (0.3, 4.0)), (fst.bernoulli.ppf, (0.9, 0.3)),
])
def test_float32_with_default_scale(f, args):
    # fnp.log of the default Python scale 1.0 (and bernoulli.ppf's Python 0.0 / 1.0) was a
    # strong float64, so float32 arguments gave float64 results
    out = f(*(np.float32(a) for a in args))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, f(*args), rtol=1e-5)
