"""fungrad.scipy.stats' second set (chi2, gennorm, geom, gumbel_l, gumbel_r, nbinom, pareto,
truncnorm, vonmises, wrapcauchy, betabinom, multinomial; sem, rankdata, mode): values
against SciPy on grids that reach the tails, the support's edges and invalid parameters;
tails where SciPy underflows against closed forms; derivatives against central
differences; float32 kept; jit and vmap."""
import math
import warnings

import numpy as np
import pytest

import fungrad as fg

pytest.importorskip("scipy")
import scipy.stats as sst  # noqa: E402

import fungrad.scipy.stats as fst  # noqa: E402

X = np.array([-np.inf, -50.0, -5.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.0, 5.0, 30.0, 100.0,
              np.inf, np.nan])
Q = np.array([-0.1, 0.0, 1e-300, 1e-20, 0.1, 0.5, 0.9, 1 - 1e-16, 1.0, 1.1, np.nan])
K = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 2.5, 20.0, 100.0, np.inf, np.nan])
CONTINUOUS_FNS = "logpdf pdf cdf logcdf sf logsf".split()


def _scipy(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


def _same(got, want, rtol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300, equal_nan=True)


# ----------------------------------------------------------------------------- values
VALUE_GRIDS = {   # distribution: (functions, args, rtol)
    "chi2": (CONTINUOUS_FNS, (X[:, None], np.array([0.5, 1, 2, 3.5, 50, -1, 0, np.nan]), 0.3,
                              1.5), 1e-12),
    "gumbel_r": (CONTINUOUS_FNS, (X, 0.3, 1.5), 1e-12),
    "gumbel_l": (CONTINUOUS_FNS, (X, 0.3, 1.5), 1e-12),
    "pareto": (CONTINUOUS_FNS, (X[:, None], np.array([0.5, 1, 3, -1, 0]), 0.3, 1.5), 1e-12),
    "truncnorm": (CONTINUOUS_FNS, (X[:, None], np.array([-np.inf, -3, 0.5, 10, 2, 1]),
                                   np.array([np.inf, 1, 4, 12, 1, 1]), 0.3, 1.5), 1e-9),
    "gennorm": ("logpdf pdf cdf".split(), (X[:, None], np.array([0.5, 1, 2, 8, -1, 0])), 1e-10),
    "vonmises": ("logpdf pdf".split(), (X[:, None], np.array([0, 0.5, 1, 50, 800, -1])), 1e-12),
    "wrapcauchy": ("logpdf pdf".split(), (np.r_[X, 2 * np.pi, 6.3][:, None],
                                          np.array([0.01, 0.5, 0.9, 0, 1])), 1e-12),
    "geom": ("logpmf pmf".split(), (K[:, None], np.array([0.01, 0.5, 1, 0, 1.2]), 1.0), 1e-12),
    "nbinom": ("logpmf pmf".split(), (K[:, None, None], np.array([0.5, 1, 3, 0, -1]),
                                      np.array([0.3, 1.0, 0.0])[:, None], 1.0), 1e-10),
    "betabinom": ("logpmf pmf".split(), (K[:, None], np.array([0, 3, 5, 100, 2.5, -1]), 0.7,
                                         2.3, 1.0), 1e-10),
}


@pytest.mark.parametrize("dist", sorted(VALUE_GRIDS))
def test_values_match_scipy(dist):
    fns, args, rtol = VALUE_GRIDS[dist]
    for f in fns:
        want = _scipy(getattr(getattr(sst, dist), f), *args)
        _same(getattr(getattr(fst, dist), f)(*args), want, rtol)


@pytest.mark.parametrize("dist, extra", [("gumbel_r", ()), ("gumbel_l", ()),
                                         ("pareto", (np.array([[0.5], [2.0], [-1.0]]),))])
def test_ppf_matches_scipy(dist, extra):
    args = (Q,) + extra + (0.3, 1.5)
    _same(getattr(fst, dist).ppf(*args), _scipy(getattr(sst, dist).ppf, *args), 1e-12)


def test_multinomial_matches_scipy():
    x = np.array([[1.0, 2, 0], [0, 0, 3], [1.5, 1.5, 0], [-1, 4, 0], [3, 0, 0], [1, 1, 0]])
    for p in [np.array([0.2, 0.3, 0.5]), np.array([0.0, 0.0, 1.0])]:
        for f in ["logpmf", "pmf"]:
            _same(getattr(fst.multinomial, f)(x, 3, p), getattr(sst.multinomial, f)(x, 3, p))
    # invalid n or p: nan (as SciPy)
    assert np.isnan(fst.multinomial.logpmf(x[0], 2.5, np.array([0.2, 0.3, 0.5])))
    assert np.isnan(fst.multinomial.logpmf(x[0], 3, np.array([-0.2, 0.7, 0.5])))


@pytest.mark.parametrize("z", [40.0, 700.0, 800.0, 1e5])
def test_gumbel_far_tails_do_not_underflow(z):
    # log(1 - exp(-exp(-z))) ~ -z - exp(-z)/2: SciPy's is -inf from z ~ 745
    want = -z - math.exp(-z) / 2
    assert float(fst.gumbel_r.logsf(z)) == pytest.approx(want, rel=1e-15)
    assert float(fst.gumbel_l.logcdf(-z)) == pytest.approx(want, rel=1e-15)
    assert float(fg.grad(fst.gumbel_r.logsf)(z)) == pytest.approx(-1.0, rel=1e-12)
    assert float(fst.gumbel_l.ppf(1e-300)) == pytest.approx(math.log(1e-300), rel=1e-15)


def test_pareto_tails():
    assert float(fst.pareto.logcdf(1e30, 1.0)) == pytest.approx(-1e-30, rel=1e-14)
    assert float(fst.pareto.cdf(1 + 1e-12, 2.0)) == pytest.approx(2e-12, rel=1e-9)
    assert float(fst.pareto.ppf(1e-20, 2.0)) == pytest.approx(1 + 0.5e-20, rel=1e-15)


# (x, a, b) far in one tail and near a bound; reference values from mpmath (400 digits)
TRUNCNORM_TAILS = [
    ((30.5, 30.0, 31.0), (-11.722694576861421, -2.655418343091889e-07, -15.141493573428324)),
    ((-30.5, -31.0, -30.0), (-11.722694576861421, -15.141493573428324, -2.655418343091889e-07)),
    ((35.0, 30.0, np.inf), (-159.09769457686147, -2.292594846926834e-71, -162.65385730557932)),
]


@pytest.mark.parametrize("args, want", TRUNCNORM_TAILS)
def test_truncnorm_far_tails(args, want):
    got = [float(f(*args)) for f in (fst.truncnorm.logpdf, fst.truncnorm.logcdf,
                                     fst.truncnorm.logsf)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_wrapcauchy_near_the_pole_without_cancellation():
    # 1 + c^2 - 2c cos x cancels at c -> 1, x -> 0; mpmath: 31.361356274047196
    assert float(fst.wrapcauchy.pdf(1e-3, 0.99)) == pytest.approx(31.361356274047196, rel=1e-14)


def test_invalid_parameters_give_nan():
    assert np.isnan(fst.truncnorm.logpdf(0.0, 1.0, -1.0))           # a > b
    assert np.isnan(fst.truncnorm.cdf(0.0, 1.0, 1.0))               # a == b
    assert np.isnan(fst.gumbel_r.ppf(0.5, 0.0, -1.0))
    assert np.isnan(fst.pareto.ppf(1.5, 1.0))
    assert np.isnan(fst.vonmises.logpdf(0.0, -1.0))
    assert np.isnan(fst.wrapcauchy.logpdf(1.0, 1.0))
    assert np.isnan(fst.betabinom.logpmf(1.0, 2.5, 1.0, 1.0))       # n not an integer
    assert np.isnan(fst.geom.pmf(1.0, 0.0))


# ----------------------------------------------------------------------------- derivatives
GRAD_POINTS = [   # (function, point, argnums differentiated)
    (fst.chi2.logpdf, (1.3, 2.5, 0.1, 1.2), (0, 1, 2, 3)),
    (fst.chi2.logcdf, (1.3, 2.5, 0.1, 1.2), (0, 2, 3)),
    (fst.chi2.sf, (9.0, 3.0, -0.5, 0.8), (0, 2, 3)),
    (fst.gennorm.logpdf, (-1.2, 3.0), (0, 1)),
    (fst.gennorm.cdf, (-1.2, 3.0), (0,)),
    (fst.gennorm.cdf, (2.5, 0.8), (0,)),
    (fst.gumbel_r.logpdf, (0.7, 0.2, 1.5), (0, 1, 2)),
    (fst.gumbel_r.logsf, (6.0, 0.1, 1.0), (0, 1, 2)),
    (fst.gumbel_r.logsf, (-1.2, 0.0, 0.7), (0, 1, 2)),
    (fst.gumbel_r.cdf, (0.7, 0.2, 1.5), (0, 1, 2)),
    (fst.gumbel_r.ppf, (0.3, 0.2, 1.5), (0, 1, 2)),
    (fst.gumbel_l.logcdf, (-6.0, 0.1, 1.0), (0, 1, 2)),
    (fst.gumbel_l.logsf, (0.7, 0.2, 1.5), (0, 1, 2)),
    (fst.gumbel_l.ppf, (0.3, 0.2, 1.5), (0, 1, 2)),
    (fst.pareto.logpdf, (2.3, 1.5, 0.1, 1.2), (0, 1, 2, 3)),
    (fst.pareto.logcdf, (1.2, 3.0, 0.0, 1.0), (0, 1, 2, 3)),
    (fst.pareto.sf, (2.3, 1.5, 0.1, 1.2), (0, 1, 2, 3)),
    (fst.pareto.ppf, (0.999, 0.5, 0.0, 1.0), (0, 1, 2, 3)),
    (fst.truncnorm.logpdf, (0.3, -1.0, 1.5, 0.1, 1.2), (0, 1, 2, 3, 4)),
    (fst.truncnorm.logcdf, (5.5, 5.0, 6.0, 0.0, 1.0), (0, 1, 2, 3, 4)),
    (fst.truncnorm.logsf, (5.5, 5.0, 6.0, 0.0, 1.0), (0, 1, 2, 3, 4)),
    (fst.truncnorm.cdf, (0.3, -1.0, 1.5, 0.1, 1.2), (0, 1, 2, 3, 4)),
    (fst.truncnorm.sf, (-0.2, -2.0, np.inf, 0.0, 1.0), (0, 1, 3, 4)),
    (fst.vonmises.logpdf, (-2.0, 30.0), (0, 1)),
    (fst.vonmises.pdf, (1.0, 0.3), (0, 1)),
    (fst.wrapcauchy.logpdf, (0.01, 0.99), (0, 1)),
    (fst.geom.logpmf, (3.0, 0.3), (1,)),
    (fst.nbinom.logpmf, (3.0, 2.5, 0.3), (1, 2)),
    (fst.betabinom.logpmf, (3.0, 5.0, 1.5, 0.7), (2, 3)),
    (fst.betabinom.pmf, (0.0, 4.0, 0.3, 2.0), (2, 3)),
]


@pytest.mark.parametrize("f, point, argnums", GRAD_POINTS,
                         ids=[f"{f.__module__.rsplit('.', 1)[1]}.{f.__name__}-{i}"
                              for i, (f, _, _) in enumerate(GRAD_POINTS)])
def test_gradients_match_central_differences(f, point, argnums):
    for i in argnums:
        g = float(fg.grad(f, argnums=i)(*point))
        h = 1e-6 * max(1.0, abs(point[i]))
        up, dn = list(point), list(point)
        up[i] += h
        dn[i] -= h
        fd = (float(f(*up)) - float(f(*dn))) / (2 * h)
        assert g == pytest.approx(fd, rel=2e-5, abs=1e-8), (i, g, fd)


def test_second_derivatives():
    fg.test_util.check_grads(lambda x: fst.truncnorm.logcdf(x, -1.0, 1.5), (0.3,), order=2)
    fg.test_util.check_grads(lambda x: fst.gumbel_r.logsf(x), (2.0,), order=2)
    fg.test_util.check_grads(lambda b: fst.pareto.logpdf(2.0, b), (1.5,), order=2)


def test_closed_form_derivatives():
    # d/dx chi2.logpdf = (df/2 - 1)/x - 1/2;  d/dp geom.logpmf = 1/p - (k - 1)/(1 - p)
    assert float(fg.grad(fst.chi2.logpdf)(2.0, 5.0)) == pytest.approx(1.5 / 2 - 0.5)
    assert float(fg.grad(fst.geom.logpmf, argnums=1)(4.0, 0.25)) == pytest.approx(0.0)
    # the half-normal: d/dx log pdf = -x
    assert float(fg.grad(fst.truncnorm.logpdf)(1.3, 0.0, np.inf)) == pytest.approx(-1.3)
    # gennorm at x = 0: finite slopes (no 0 * log 0): 1/beta + digamma(1/beta) / beta^2
    from scipy.special import digamma
    assert float(fg.grad(fst.gennorm.logpdf, argnums=1)(0.0, 2.0)) == pytest.approx(
        0.5 + digamma(0.5) / 4)
    p = np.array([0.2, 0.3, 0.5])
    _same(fg.grad(fst.multinomial.logpmf, argnums=2)(np.array([1.0, 2.0, 0.0]), 3.0, p),
          np.array([1.0, 2.0, 0.0]) / p)


# ----------------------------------------------------------------------------- descriptive
@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_rankdata_matches_scipy(method, axis):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, size=(3, 5, 4))
    for arr in (a, a.astype(float)):
        got, want = fst.rankdata(arr, method, axis=axis), sst.rankdata(arr, method, axis=axis)
        np.testing.assert_array_equal(got, want)
        assert got.shape == want.shape
        if arr.dtype.kind == "i":
            assert got.dtype == want.dtype
        np.testing.assert_array_equal(fg.jit(lambda v: fst.rankdata(v, method, axis=axis))(arr),
                                      want)
    b = a.astype(float)
    b[0, 1, 2] = np.nan
    np.testing.assert_array_equal(fst.rankdata(b, method, axis=2), sst.rankdata(b, method, axis=2))


@pytest.mark.parametrize("axis", [None, 0, 1, 2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mode_matches_scipy(axis, keepdims):
    if axis is None and keepdims:
        pytest.skip("keepdims with axis=None is not supported")
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, size=(3, 5, 4)).astype(float)
    a[0, :2, 0] = np.nan                        # NaNs count as one value, as SciPy's
    want = sst.mode(a, axis, keepdims=keepdims)
    for got in (fst.mode(a, axis, keepdims=keepdims),
                fg.jit(lambda v: fst.mode(v, axis, keepdims=keepdims))(a)):
        np.testing.assert_array_equal(got.mode, want.mode)
        np.testing.assert_array_equal(got.count, want.count)
    assert isinstance(fst.mode(a), fst.ModeResult)


def test_mode_gradient_goes_to_the_chosen_element():
    a = np.array([1.0, 3.0, 2.0, 7.0, 3.0])
    _same(fg.grad(lambda a: fst.mode(a).mode)(a), [0.0, 1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("ddof", [0, 1])
def test_sem_matches_scipy(axis, ddof):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 5))
    _same(fst.sem(a, axis, ddof), sst.sem(a, axis, ddof), 1e-13)
    a[1, 2] = np.nan
    _same(fst.sem(a, axis, ddof), sst.sem(a, axis, ddof), 1e-13)
    _same(fst.sem(a, axis, ddof, "omit"), sst.sem(a, axis, ddof, "omit"), 1e-13)
    fg.test_util.check_grads(lambda v: fst.sem(v, axis, ddof), (rng.standard_normal((3, 3)),),
                             order=1)


def test_nan_policy_errors():
    with pytest.raises(ValueError, match="nan_policy"):
        fst.sem(np.ones(3), nan_policy="skip")
    with pytest.raises(NotImplementedError, match="nan_policy"):
        fst.rankdata(np.ones(3), nan_policy="omit")
    with pytest.raises(ValueError, match="method"):
        fst.rankdata(np.ones(3), method="first")


# ----------------------------------------------------------------------------- dtypes, transforms
FLOAT32 = [
    (fst.chi2.logpdf, (1.3, 2.5)), (fst.chi2.cdf, (1.3, 2.5)), (fst.gennorm.logpdf, (0.3, 1.5)),
    (fst.gennorm.cdf, (0.3, 1.5)), (fst.geom.logpmf, (2.0, 0.3)), (fst.gumbel_r.logsf, (0.3,)),
    (fst.gumbel_l.logcdf, (0.3,)), (fst.gumbel_l.ppf, (0.3,)), (fst.gumbel_r.ppf, (0.3,)),
    (fst.nbinom.logpmf, (2.0, 3.0, 0.3)), (fst.pareto.logcdf, (2.0, 1.5)),
    (fst.pareto.ppf, (0.3, 1.5)), (fst.truncnorm.logpdf, (0.2, -1.0, 1.0)),
    (fst.truncnorm.logcdf, (0.2, -1.0, 1.0)), (fst.truncnorm.sf, (0.2, -1.0, 1.0)),
    (fst.vonmises.logpdf, (0.2, 2.0)), (fst.wrapcauchy.logpdf, (0.2, 0.5)),
    (fst.betabinom.logpmf, (2.0, 4.0, 0.5, 1.5)),
    (fst.multinomial.logpmf, (np.array([1.0, 2.0]), 3.0, np.array([0.4, 0.6]))),
    (fst.sem, (np.array([1.0, 2.0, 4.0]),)), (lambda a: fst.mode(a).mode, (np.array([1.0, 2.0, 2.0]),)),
]


@pytest.mark.parametrize("f, args", FLOAT32, ids=[str(i) for i in range(len(FLOAT32))])
def test_float32_stays_float32(f, args):
    out = f(*(np.asarray(a, np.float32) for a in args))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, f(*args), rtol=1e-5)
    g = fg.grad(lambda v: f(v, *(np.asarray(a, np.float32) for a in args[1:])))(
        np.asarray(args[0], np.float32)) if np.ndim(args[0]) == 0 and f not in (
            fst.geom.logpmf, fst.nbinom.logpmf, fst.betabinom.logpmf) else None
    assert g is None or g.dtype == np.float32


JIT_VMAP = [
    (fst.chi2.logcdf, (2.0,)), (fst.gennorm.cdf, (1.5,)), (fst.gumbel_r.logsf, ()),
    (fst.gumbel_l.logcdf, ()), (fst.pareto.logsf, (1.5, -1.0)), (fst.truncnorm.logcdf, (-1.0, 2.0)),
    (fst.vonmises.pdf, (2.0,)), (fst.wrapcauchy.pdf, (0.3,)), (fst.geom.pmf, (0.3,)),
    (fst.nbinom.pmf, (2.0, 0.3)), (fst.betabinom.pmf, (3.0, 2.0, 0.3)),
]


@pytest.mark.parametrize("f, params", JIT_VMAP, ids=[str(i) for i in range(len(JIT_VMAP))])
def test_jit_and_vmap(f, params):
    x = np.array([0.0, 1.0, 2.0, 3.0]) if "pmf" in f.__name__ else np.linspace(0.1, 3.0, 4)
    want = f(x, *params)
    _same(fg.jit(f)(x, *params), want, 1e-13)
    _same(fg.vmap(f, in_axes=(0,) + (None,) * len(params))(x, *params), want, 1e-13)
    if "pmf" not in f.__name__:
        g = fg.vmap(fg.grad(f))(x, *(np.full(4, p) for p in params))
        _same(g, [float(fg.grad(f)(v, *params)) for v in x], 1e-13)


def test_jit_and_vmap_of_multinomial_sem_rankdata_mode():
    x = np.array([[1.0, 2, 0], [0, 1, 2]])
    p = np.array([[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]])
    want = sst.multinomial.logpmf(x, 3, p)
    _same(fg.jit(fst.multinomial.logpmf)(x, 3.0, p), want)
    _same(fg.vmap(fst.multinomial.logpmf, in_axes=(0, None, 0))(x, 3.0, p), want)
    a = np.random.default_rng(3).integers(0, 3, size=(4, 6)).astype(float)
    _same(fg.vmap(fst.sem)(a), sst.sem(a, axis=1))
    _same(fg.vmap(lambda r: fst.rankdata(r))(a), sst.rankdata(a, axis=1))
    got = fg.vmap(fst.mode)(a)
    want = sst.mode(a, axis=1)
    _same(got.mode, want.mode)
    np.testing.assert_array_equal(got.count, want.count)


# ----------------------------------------------------------------------------- gaussian_kde
@pytest.mark.parametrize("bw", [None, "silverman", 0.7, lambda kde: 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_kde_matches_scipy(bw, weighted):
    rng = np.random.default_rng(4)
    w = rng.uniform(0.5, 2.0, size=6) if weighted else None
    for data, pts in [(rng.standard_normal(6), np.array([-1.0, 0.0, 0.3, 2.5, 40.0])),
                      (rng.standard_normal((2, 6)), rng.standard_normal((2, 3)))]:
        kde, ref = fst.gaussian_kde(data, bw, w), sst.gaussian_kde(data, bw, w)
        _same(kde.covariance, ref.covariance, 1e-12)
        _same(kde(pts), ref(pts), 1e-12)
        _same(kde.logpdf(pts), ref.logpdf(pts), 1e-12)     # (far out: no underflow)
        mean = np.zeros(kde.d) + 0.1
        _same(kde.integrate_gaussian(mean, np.eye(kde.d)),
              ref.integrate_gaussian(mean, np.eye(kde.d)), 1e-12)
        other = fst.gaussian_kde(data[..., :4])
        _same(kde.integrate_kde(other), ref.integrate_kde(sst.gaussian_kde(data[..., :4])), 1e-12)
        if kde.d == 1:
            _same(kde.integrate_box_1d(-0.5, 1.0), ref.integrate_box_1d(-0.5, 1.0), 1e-12)


def test_gaussian_kde_derivatives_and_transforms():
    data = np.array([-1.0, 0.0, 0.5, 2.0])
    kde = fst.gaussian_kde(data)
    # in the point, against the closed form of the mixture's log density
    fg.test_util.check_grads(lambda x: kde.logpdf(x), (np.array([0.3, 1.1]),), order=2)
    # in the dataset (the bandwidth moves with it) and the weights
    fg.test_util.check_grads(lambda d: fst.gaussian_kde(d).logpdf(0.3), (data,), order=1)
    fg.test_util.check_grads(lambda w: fst.gaussian_kde(data, weights=w).pdf(0.3),
                             (np.array([1.0, 2.0, 1.0, 0.5]),), order=1)
    x = np.array([0.0, 1.0, 40.0])
    _same(fg.jit(lambda k, x: k.logpdf(x))(kde, x), kde.logpdf(x), 1e-13)
    _same(fg.vmap(lambda v: kde.pdf(v))(x[:, None])[:, 0], kde.pdf(x), 1e-13)
    assert float(kde.integrate_box_1d(-np.inf, np.inf)) == pytest.approx(1.0)
    with pytest.raises(NotImplementedError):
        kde.resample(None)
    with pytest.raises(ValueError, match="bw_method"):
        fst.gaussian_kde(data, "bogus")
