"""fg.scipy.stats.multivariate_normal: SciPy's values, shapes and errors; derivatives in x,
mean and cov against finite differences (and JAX's where it computes the same function)."""
from __future__ import annotations

import numpy as np
import pytest

import fungrad as fg
import fungrad.scipy.stats as fst

sst = pytest.importorskip("scipy.stats")
MVN = fst.multivariate_normal
RNG = np.random.default_rng(0)
_A = RNG.normal(size=(3, 3))
COV = _A @ _A.T + np.eye(3)
MEAN = RNG.normal(size=3)

# (x, mean, cov): SciPy's shape rules (1-D x is one point, or n points when d = 1; scalar
# and diagonal covs; mean=None reads d off cov; the output squeezed)
SHAPE_CASES = [
    (RNG.normal(size=(4, 1, 3)), MEAN, COV), (RNG.normal(size=3), MEAN, COV),
    (RNG.normal(size=5), None, 2.0), (0.5, None, 1), (RNG.normal(size=(2, 3)), MEAN, [1., 2, 3]),
    (RNG.normal(size=(2, 3)), MEAN, 1.5), (RNG.normal(size=(5, 1)), np.zeros(1), [[2.0]]),
    (RNG.normal(size=(2, 3)), None, COV),
]


@pytest.mark.parametrize("fn", ["logpdf", "pdf"])
@pytest.mark.parametrize("allow_singular", [False, True])
@pytest.mark.parametrize("case", range(len(SHAPE_CASES)))
def test_values_and_shapes_are_scipys(case, allow_singular, fn):
    x, mean, cov = SHAPE_CASES[case]
    want = getattr(sst.multivariate_normal, fn)(x, mean, cov, allow_singular=allow_singular)
    f = getattr(MVN, fn)
    for got in (f(x, mean, cov, allow_singular),
                fg.jit(lambda x: f(x, mean, cov, allow_singular))(np.asarray(x, float))):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_singular_covariance_matches_scipy_on_and_off_the_support():
    b = RNG.normal(size=(3, 2))
    cov = b @ b.T                                           # rank 2
    x = np.concatenate([RNG.normal(size=(3, 2)) @ b.T, RNG.normal(size=(2, 3))])
    want = sst.multivariate_normal.logpdf(x, None, cov, allow_singular=True)
    assert np.isinf(want[3:]).all() and np.isfinite(want[:3]).all()
    np.testing.assert_allclose(MVN.logpdf(x, None, cov, allow_singular=True), want, rtol=1e-9)
    np.testing.assert_allclose(
        fg.jit(lambda x, c: MVN.logpdf(x, None, c, allow_singular=True))(x, cov), want,
        rtol=1e-9)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("allow_singular", [False, True])
@pytest.mark.parametrize("argnum", [0, 1, 2])
def test_gradients_match_finite_differences_of_scipy(argnum, allow_singular):
    x = RNG.normal(size=(4, 3))
    args = [x, MEAN, COV]
    g = fg.grad(lambda *a: MVN.logpdf(*a, allow_singular=allow_singular).sum(),
                argnums=argnum)(*args)

    def scipy_sum(v):
        a = list(args)
        a[argnum] = v
        return sst.multivariate_normal.logpdf(*a).sum()
    np.testing.assert_allclose(g, _fd(scipy_sum, args[argnum]), atol=1e-7)


def test_gradient_at_a_singular_covariance_keeps_the_rank():
    """allow_singular=True at a rank-2 cov: the derivative in x, mean (within the support)
    and along a rank-preserving change of cov (cov = B B^T, moved through B)."""
    b = RNG.normal(size=(3, 2))
    x = RNG.normal(size=(2, 2)) @ b.T
    gx = fg.grad(lambda x: MVN.logpdf(x, None, b @ b.T, allow_singular=True).sum())(x)
    gb = fg.grad(lambda b: MVN.logpdf(x, None, b @ b.T, allow_singular=True).sum())(b)

    def scipy_x(v):   # moves stay in the support only along B's span: compare projections
        return sst.multivariate_normal.logpdf(v, None, b @ b.T, allow_singular=True).sum()
    proj = b @ np.linalg.pinv(b)
    direction = RNG.normal(size=x.shape) @ proj
    eps = 1e-6
    fd = (scipy_x(x + eps * direction) - scipy_x(x - eps * direction)) / (2 * eps)
    assert np.sum(gx * direction) == pytest.approx(fd, rel=1e-6)
    fdb = _fd(lambda v: sst.multivariate_normal.logpdf(x, None, v @ v.T,
                                                       allow_singular=True).sum(), b)
    np.testing.assert_allclose(gb, fdb, atol=1e-6)


def test_second_order_and_vmap():
    x = RNG.normal(size=3)
    h = fg.hessian(lambda x: MVN.logpdf(x, MEAN, COV))(x)
    np.testing.assert_allclose(h, -np.linalg.inv(COV), rtol=1e-10)
    covs = np.stack([COV, 2 * COV])
    got = fg.vmap(lambda c: MVN.logpdf(x, MEAN, c))(covs)
    np.testing.assert_allclose(got, [sst.multivariate_normal.logpdf(x, MEAN, c) for c in covs])


def test_matches_jax_in_x_and_mean():
    jax_mvn = pytest.importorskip("jax.scipy.stats").multivariate_normal
    import jax
    jax.config.update("jax_enable_x64", True)
    x = RNG.normal(size=(4, 3))
    for argnum in (0, 1):
        want = jax.grad(lambda *a: jax_mvn.logpdf(*a).sum(), argnums=argnum)(x, MEAN, COV)
        got = fg.grad(lambda *a: MVN.logpdf(*a).sum(), argnums=argnum)(x, MEAN, COV)
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-9)
    # JAX symmetrizes cov's tangent; fungrad's (like SciPy's value) reads the lower
    # triangle, so the two agree on every symmetric direction
    gj = np.asarray(jax.grad(lambda c: jax_mvn.logpdf(x, MEAN, c).sum())(COV))
    g = fg.grad(lambda c: MVN.logpdf(x, MEAN, c).sum())(COV)
    s = RNG.normal(size=(3, 3))
    s = s + s.T
    assert np.sum(g * s) == pytest.approx(np.sum(gj * s), rel=1e-9)


def test_float32_keeps_its_dtype():
    x = RNG.normal(size=(2, 3)).astype(np.float32)
    out = fg.jit(lambda x: MVN.logpdf(x, MEAN.astype(np.float32), COV.astype(np.float32)))(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, sst.multivariate_normal.logpdf(x, MEAN, COV), rtol=1e-4)


@pytest.mark.parametrize("kw,error,match", [
    ({"cov": np.ones((2, 3))}, ValueError, r"square.*\(2, 3\)"),
    ({"cov": np.ones((2, 2, 2))}, ValueError, "at most two-dimensional.*vmap"),
    ({"cov": np.eye(4)}, ValueError, r"\(4, 4\) does not match mean.*length 3"),
    ({"mean": np.zeros((2, 3))}, ValueError, "mean must be a vector of length 6"),
    ({"cov": np.ones(4)}, ValueError, "1-D cov is the diagonal and must have length 3"),
    ({"cov": np.diag([1.0, 1.0, 0.0])}, np.linalg.LinAlgError, "allow_singular=True"),
    ({"cov": np.diag([1.0, 1.0, -1.0])}, ValueError, "positive semidefinite"),
])
def test_errors(kw, error, match):
    args = {"mean": np.zeros(3), "cov": np.eye(3), **kw}
    with pytest.raises(error, match=match):
        MVN.logpdf(np.zeros(3), **args)
    with pytest.raises(error, match=match):
        fg.grad(lambda x: MVN.logpdf(x, **args).sum())(np.zeros(3))
    with pytest.raises(ValueError, match="3 components along its last axis"):
        MVN.logpdf(np.zeros((2, 4)), np.zeros(3), np.eye(3))
