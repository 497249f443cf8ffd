"""fg.random at the edges of its parameters, dtypes and shapes (a sweep against SciPy and
exact probabilities). Every check is deterministic given its fixed key; the statistical
thresholds leave a wide margin (the fixed code's statistics sit far inside them, the old
code's far outside)."""
import math

import numpy as np
import pytest

import fungrad as fg

R = fg.random

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    BF16 = None

NARROW = [np.float16] + ([BF16] if BF16 is not None else [])


def _stats():
    return pytest.importorskip("scipy.stats")


# ----------------------------------------------------------------------------- uniform
@pytest.mark.parametrize("dt", NARROW + [np.float32])
def test_uniform_never_rounds_up_to_maxval(dt):
    # minval + span * u rounded to maxval: float16 [1, 2) gave 2.0 in ~1/2000 draws,
    # bfloat16 in ~1/250
    x = R.uniform(R.key(0), (50000,), dt, 1.0, 2.0)
    assert x.dtype == dt and x.astype(np.float64).max() < 2.0
    assert x.astype(np.float64).min() >= 1.0
    # float32 [1e7, 1e7 + 1): the only float32 in it is 1e7 (half the draws were 1e7 + 1)
    y = R.uniform(R.key(0), (1000,), np.float32, 1e7, 1e7 + 1)
    assert np.all(y == np.float32(1e7))


def test_uniform_empty_range_gives_minval_like_jax():
    np.testing.assert_array_equal(R.uniform(R.key(0), (5,), minval=2.0, maxval=1.0),
                                  np.full(5, 2.0))  # (was uniform in (1, 2])
    np.testing.assert_array_equal(R.uniform(R.key(0), (3,), np.float32, 2.0, 2.0),
                                  np.full(3, 2.0, np.float32))
    g = fg.grad(lambda lo, hi: R.uniform(R.key(0), (10,), minval=lo, maxval=hi).sum(),
                (0, 1))(1.0, 3.0)
    u = R.uniform(R.key(0), (10,))
    np.testing.assert_allclose(g, [np.sum(1 - u), np.sum(u)])  # slopes untouched


# ------------------------------------------------------- tails of narrow-float samplers
N_TAIL = 200000


@pytest.mark.parametrize("dt", NARROW)
def test_narrow_float_samplers_keep_their_tails(dt):
    """Box-Muller / -log(U) on uniforms of float16 (bfloat16) precision stopped at
    |z| = 3.9 (3.3) and 7.6 (5.5): tails of mass 1e-4 to 4e-3 were missing."""
    k = R.key(0)
    checks = [(np.abs(R.normal(k, (N_TAIL,), dt).astype(np.float64)), 4.0,
               math.erfc(4.0 / math.sqrt(2))),
              (R.exponential(k, (N_TAIL,), dt).astype(np.float64), 8.0, math.exp(-8.0)),
              (R.gumbel(k, (N_TAIL,), dt).astype(np.float64), 8.0,
               1 - math.exp(-math.exp(-8.0)))]
    for x, t, p in checks:
        assert np.all(np.isfinite(x))
        expected = N_TAIL * p  # 12.7 for the normal, 67 for the others
        count = int((x > t).sum())
        assert expected / 4 < count < 3 * expected + 10, (t, count, expected)


def test_bernoulli_small_p_in_float16():
    # u < p with 11-bit u: any p > 0 came out at least 2**-11 (p = 1e-5 gave 5e-4)
    b = R.bernoulli(R.key(0), np.float16(1e-5), (1000000,))
    assert b.dtype == np.bool_ and 0 < b.sum() < 40  # expected 10
    assert not R.bernoulli(R.key(0), np.float16(0.0), (1000,)).any()
    assert R.bernoulli(R.key(0), np.float16(1.0), (1000,)).all()


@pytest.mark.parametrize("dt", NARROW)
def test_categorical_over_narrow_logits_is_uniform(dt):
    # narrow Gumbels tie at the max; argmax gave ties to low indices (chi-square p ~ 0)
    stats = _stats()
    c = R.categorical(R.key(0), np.zeros(100, dt), shape=(200000,))
    assert stats.chisquare(np.bincount(c, minlength=100)).pvalue > 1e-6
    # -inf logits never drawn, huge logits fine
    c2 = R.categorical(R.key(1), np.array([-np.inf, 0, -np.inf, 0], dt), shape=(1000,))
    assert set(np.unique(c2)) == {1, 3}


@pytest.mark.parametrize("logits", [np.array([1e8, 1e8], np.float32),
                                    np.array([1e17, 1e17, -np.inf])])
def test_categorical_with_huge_equal_logits_is_fair(logits):
    # the Gumbel noise fell below the logits' spacing: [1e8, 1e8] in float32 drew index 0
    # 98% of the time (softmax is shift-invariant: the max logit is subtracted first)
    c = R.categorical(R.key(0), logits, shape=(20000,))
    assert abs(np.mean(c == 0) - 0.5) < 0.02 and not np.any(c == 2)
    fg.config.update("debug_nans", True)  # an all -inf row (index 0, as before): no NaN
    try:
        assert np.all(R.categorical(R.key(0), np.full((2, 3), -np.inf), axis=1) == 0)
    finally:
        fg.config.update("debug_nans", False)


def test_choice_with_float16_p_reaches_every_entry():
    # the inverse CDF summed p in float16: 4096 equal entries stalled at 0.5, so the upper
    # half of them was never drawn
    stats = _stats()
    n = 4096
    c = R.choice(R.key(0), n, (100000,), p=np.full(n, 1 / n, np.float16))
    assert stats.chisquare(np.bincount(c // 256, minlength=16)).pvalue > 1e-6


# ----------------------------------------------------------------------------- randint
@pytest.mark.parametrize("lo,hi,dt", [(-2 ** 63, 2 ** 62, np.int64),
                                      (0, 3 * 2 ** 62, np.uint64),
                                      (-2 ** 62, 2 ** 62 + 2 ** 61, np.int64)])
def test_randint_wide_ranges_are_uniform(lo, hi, dt):
    # 64 bits modulo a span of 1.5 * 2**63 made the lowest third twice as likely
    stats = _stats()
    r = R.randint(R.key(0), (100000,), lo, hi, dt)
    assert r.dtype == dt
    u = (r.astype(np.float64) - float(lo)) / (float(hi) - float(lo))
    assert 0 <= u.min() and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > 1e-6
    assert abs(np.mean(u < 1 / 3) - 1 / 3) < 0.01  # (was 1/2)
    # the same numbers under jit and vmap (bounds traced: the 128-bit path is always drawn)
    f = lambda k, lo, hi: R.randint(k, (4,), lo, hi, dt)  # noqa: E731
    keys = R.split(R.key(3), 2)
    los, his = np.array([lo, 0], dt), np.array([hi, 10], dt)
    eager = np.stack([f(keys[i], int(los[i]), int(his[i])) for i in range(2)])
    np.testing.assert_array_equal(fg.vmap(f)(keys, los, his), eager)
    np.testing.assert_array_equal(fg.jit(f)(keys[0], los[0], his[0]), eager[0])
    np.testing.assert_array_equal(R.randint(R.key(0), (6,), 0, 10), [9, 8, 9, 6, 3, 5])


# --------------------------------------------------------------------- truncated_normal
@pytest.mark.parametrize("lo,hi", [(2.0, 2.0 + 1e-6), (-5e-7, 5e-7), (-3.0, -3.0 + 1e-6),
                                   (0.3, 0.3 + 1e-6), (-50.0, -45.0), (45.0, 46.0),
                                   (-1e4, -1e4 + 1), (1e3, np.inf)])
def test_truncated_normal_narrow_and_far_intervals(lo, hi):
    """Narrow intervals: the quantile (Acklam) did not invert the CDF (NR's erfc, 1e-7 off,
    with a 3e-8 jump at 0), so draws fell outside and piled on a bound or on a wrong
    density; beyond x = -38 the CDF underflowed and every draw was the bound."""
    stats = _stats()
    x = R.truncated_normal(R.key(0), lo, hi, (50000,))
    assert np.all((lo <= x) & (x <= hi))
    assert np.mean((x == lo) | (x == hi)) < 1e-3
    assert stats.kstest(x, stats.truncnorm(lo, hi).cdf).pvalue > 1e-6


def test_truncated_normal_broadcast_bounds_and_slopes():
    stats = _stats()
    lo, hi = np.array([[-60.0], [1.0]]), np.array([-55.0, 2.0, np.inf])
    x = R.truncated_normal(R.key(1), lo, hi, (20000, 2, 3))
    for i, j in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2)]:
        assert stats.kstest(x[:, i, j], stats.truncnorm(lo[i, 0], hi[j]).cdf).pvalue > 1e-6
    assert np.isnan(x[:, 1, 0]).all()  # the empty interval (1, -55)
    # E[x | x < b] ~ b - 1/|b| far in the tail: slope ~ 1 - 1/b^2
    g = fg.grad(lambda b: R.truncated_normal(R.key(0), -np.inf, b, (1000,)).mean())(-50.0)
    assert abs(g - (1 - 1 / 2500)) < 1e-3


# ------------------------------------------------------------------ beta and dirichlet
def test_beta_dirichlet_tiny_concentrations_in_narrow_dtypes_are_not_nan():
    # log(U) / a overflowed float32 (float16) to -inf; -inf - logaddexp(-inf, -inf) = NaN
    for dt, a in ((np.float32, np.float32(1e-40)), (np.float16, np.float16(1e-5))):
        b = R.beta(R.key(0), a, a, (2000,), dt)
        assert b.dtype == dt and not np.isnan(b).any()
        assert 0.4 < np.mean(b == 1) < 0.6 and np.all((b == 0) | (b == 1))
        d = R.dirichlet(R.key(0), np.full(3, a, dt), (2000,), dt)
        assert d.dtype == dt and not np.isnan(d).any()
        np.testing.assert_allclose(d.astype(np.float64).sum(-1), 1.0)


# ------------------------------------------------------------------ multivariate_normal
@pytest.mark.parametrize("method", ["eigh", "svd", "cholesky"])
def test_multivariate_normal_indefinite_cov_is_nan(method):
    # eigh clamped a negative eigenvalue to 0, svd drew from |cov| (diag(1, -1) -> I)
    with np.errstate(all="ignore"):
        x = R.multivariate_normal(R.key(0), np.zeros(2), np.diag([1.0, -1.0]), (3,),
                                  method=method)
        assert np.isnan(x).all()
        covs = np.array([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])
        y = R.multivariate_normal(R.key(0), np.zeros(2), covs, method=method)
    assert np.isfinite(y[0]).all() and np.isnan(y[1]).all()
    # positive semi-definite (singular) covariances still sample for eigh and svd
    if method != "cholesky":
        z = R.multivariate_normal(R.key(0), np.zeros(3), np.diag([4.0, 1.0, 0.0]), (20000,),
                                  method=method)
        np.testing.assert_allclose(np.cov(z.T), np.diag([4.0, 1.0, 0.0]), atol=0.15)
    assert R.multivariate_normal(R.key(0), np.zeros(0), np.zeros((0, 0)), (2,),
                                 method=method).shape == (2, 0)
