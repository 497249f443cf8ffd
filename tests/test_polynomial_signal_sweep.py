"""Regression tests from a differential sweep of the polynomial functions, fg.scipy.signal
and fg.scipy.integrate against NumPy / SciPy (values, dtypes, warnings) and finite
differences (derivatives)."""
import warnings

import numpy as np
import pytest
import scipy.integrate

import fungrad as fg
import fungrad.numpy as fnp
import fungrad.scipy.integrate as fint

X = np.linspace(-1.0, 2.0, 7)


def _complex_y():
    rng = np.random.default_rng(0)
    return rng.standard_normal(7) + 1j * rng.standard_normal(7)


# --------------------------------------------------------------------------- polyfit
@pytest.mark.parametrize("kwargs", [{"full": True}, {"cov": True}, {"cov": "unscaled"}])
def test_polyfit_complex_y_diagnostics_are_real_as_numpy(kwargs):
    # NumPy's residuals are sum(|r|**2) (real) and its covariance and singular values come
    # from the real Vandermonde matrix; the old code built A in complex and summed r**2
    y = _complex_y()
    ref = np.polyfit(X, y, 2, **kwargs)
    out = fg.jit(lambda x, y: fnp.polyfit(x, y, 2, **kwargs))(X, y)
    for r, o in zip(ref, out):
        r, o = np.asarray(r), np.asarray(o)
        assert o.dtype == r.dtype and o.shape == r.shape
        np.testing.assert_allclose(o, r, rtol=1e-10, atol=1e-12)


def test_polyfit_complex_y_residual_is_abs_squared():
    y = _complex_y()
    resid = fg.jit(lambda y: fnp.polyfit(X, y, 1, full=True)[1])(y)
    c = np.polyfit(X, y, 1)
    r = y - np.polyval(c, X)
    np.testing.assert_allclose(resid, [np.sum(np.abs(r) ** 2)], rtol=1e-10)


def test_polyfit_default_rcond_has_x_float_dtype():
    # NumPy's full=True returns rcond = len(x) * eps as a scalar of x's dtype
    x32 = X.astype(np.float32)
    ref = np.polyfit(x32, X, 1, full=True)[4]
    out = fg.jit(lambda y: fnp.polyfit(x32, y, 1, full=True))(X)[4]
    assert np.asarray(out).dtype == np.asarray(ref).dtype == np.float32
    assert out == ref


def test_polyfit_warns_rank_warning_when_underdetermined_under_jit():
    # 7 points, 10 coefficients: rank-deficient whatever the values, so jit can warn too
    with pytest.warns(np.exceptions.RankWarning):
        fg.jit(lambda y: fnp.polyfit(X, y, 9))(np.sin(X))


def test_polyfit_warns_rank_warning_under_grad():
    # the values are known under grad: a numerically rank-deficient fit warns as in NumPy
    x = np.arange(6) % 2 == 0           # two distinct points, quadratic fit
    y = np.linspace(0.0, 1.0, 6)
    with pytest.warns(np.exceptions.RankWarning):
        np.polyfit(x, y, 2)
    with pytest.warns(np.exceptions.RankWarning):
        fg.grad(lambda y: fnp.sum(fnp.polyfit(x, y, 2)))(y)


def test_polyfit_well_conditioned_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fg.grad(lambda y: fnp.sum(fnp.polyfit(X, y, 2)))(np.cos(X))


def test_polyfit_gradient_in_x_y_w_matches_finite_differences():
    y, w = np.cos(3 * X), np.linspace(0.5, 1.5, 7)

    def loss(x, y, w):
        return fnp.sum(fnp.sin(fnp.polyfit(x, y, 2, w=w)))

    def loss_np(x, y, w):
        return np.sum(np.sin(np.polyfit(x, y, 2, w=w)))

    args = [X, y, w]
    for i in range(3):
        g = fg.grad(loss, argnums=i)(*args)
        num = np.zeros(7)
        for j in range(7):
            up = [a.copy() for a in args]
            dn = [a.copy() for a in args]
            up[i][j] += 1e-6
            dn[i][j] -= 1e-6
            num[j] = (loss_np(*up) - loss_np(*dn)) / 2e-6
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


# --------------------------------------------------------------------------- integrate
@pytest.mark.parametrize("ydt, xdt", [(np.float32, np.float64), (np.float32, np.int64),
                                      (np.float16, np.float32)])
def test_trapezoid_result_has_y_float_dtype_as_scipy(ydt, xdt):
    # SciPy sums in y's float dtype whatever x's dtype (float32 y, float64 x: float32)
    y = np.linspace(0.0, 1.0, 5).astype(ydt)
    x = np.arange(5).astype(xdt)
    ref = scipy.integrate.trapezoid(y, x)
    for f in (fint.trapezoid, fg.jit(fint.trapezoid)):
        out = f(y, x)
        assert np.asarray(out).dtype == np.asarray(ref).dtype == ydt
        np.testing.assert_allclose(out, ref, rtol=1e-3)


@pytest.mark.parametrize("ydt, xdt", [(np.float32, np.bool_), (np.bool_, np.float32),
                                      (np.float16, np.bool_)])
def test_cumulative_trapezoid_dtype_follows_numpy_promotion(ydt, xdt):
    # SciPy: d * (y[1:] + y[:-1]) / 2.0 in NumPy's promotion; bool x (diff: not_equal) and
    # float32 y stay float32 (the old code made every bool float64 first)
    y = (np.arange(5) % 3).astype(ydt) if ydt is not np.bool_ else np.arange(5) % 3 == 0
    x = np.arange(5) % 2 == 0 if xdt is np.bool_ else np.arange(5).astype(xdt)
    ref = scipy.integrate.cumulative_trapezoid(y, x, initial=0)
    out = fint.cumulative_trapezoid(y, x, initial=0)
    assert out.dtype == ref.dtype
    if ydt is not np.bool_:   # (SciPy adds bool y as logical or: True + True is True)
        np.testing.assert_allclose(out, ref, rtol=1e-3)


def test_trapezoid_and_cumulative_trapezoid_accept_complex_y():
    x = np.linspace(0.0, 1.0, 6)
    y = np.exp(2j * x)
    np.testing.assert_allclose(fint.trapezoid(y, x), scipy.integrate.trapezoid(y, x))
    np.testing.assert_allclose(fg.jit(fint.cumulative_trapezoid)(y, x),
                               scipy.integrate.cumulative_trapezoid(y, x))
    # d/dt Re(integral of exp(i t x)) = Re(integral of i x exp(i t x)), by the same rule
    g = fg.grad(lambda t: fnp.real(fint.trapezoid(fnp.exp(1j * t * x), x)))(0.7)
    np.testing.assert_allclose(g, np.real(np.trapezoid(1j * x * np.exp(0.7j * x), x)))
