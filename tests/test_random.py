"""fg.random: determinism (eager == jit == vmap, fixed values across machines), independence
of split / fold_in streams, and every sampler's support and moments against theory."""
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

R = fg.random
K = R.key(0)
N = 20000  # samples for moment checks: standard errors ~ 1 / sqrt(N) = 0.007

try:
    from scipy import stats
except ImportError:  # the moment checks below still run
    stats = None


def _keys(n, seed=1):
    return R.split(R.key(seed), n)


# ----------------------------------------------------------------------------- keys
def test_key_is_a_plain_uint32_pair():
    assert R.key(42).dtype == np.uint32 and R.key(42).shape == (2,)
    np.testing.assert_array_equal(R.key(2 ** 32 + 5), [1, 5])
    np.testing.assert_array_equal(R.key(-1), [2 ** 32 - 1, 2 ** 32 - 1])  # modulo 2**64
    np.testing.assert_array_equal(fg.jit(R.key)(np.int64(2 ** 32 + 5)), [1, 5])


def test_values_are_fixed_across_machines():
    """Philox's stream is fixed by its algorithm: these values hold on every machine."""
    np.testing.assert_array_equal(R.split(R.key(0)), [[3493329091, 4188131702],
                                                      [3226943899, 1277232997]])
    np.testing.assert_array_equal(R.bits(R.key(0), (3,)), [49592932, 149215387, 1037445899])
    np.testing.assert_array_equal(R.fold_in(R.key(0), 3), [4192397974, 1165920968])


def test_bad_key_names_the_fix():
    with pytest.raises(TypeError, match=r"uint32 array of shape \(2,\).*fg.vmap"):
        R.normal(np.zeros(2, np.int64), (2,))
    with pytest.raises(TypeError, match="fg.vmap"):
        R.normal(_keys(3), (2,))


# ----------------------------------------------------------------------------- determinism
SAMPLERS = {
    "uniform": lambda k: R.uniform(k, (5,)),
    "normal": lambda k: R.normal(k, (5,)),
    "bernoulli": lambda k: R.bernoulli(k, 0.3, (5,)),
    "categorical": lambda k: R.categorical(k, np.log([0.2, 0.3, 0.5]), shape=(5,)),
    "randint": lambda k: R.randint(k, (5,), -3, 7),
    "permutation": lambda k: R.permutation(k, 6),
    "permute_array": lambda k: R.permutation(k, np.arange(12.0).reshape(3, 4), axis=1),
    "choice": lambda k: R.choice(k, 6, (3,)),
    "choice_p": lambda k: R.choice(k, 4, (3,), p=np.array([0.1, 0.2, 0.3, 0.4])),
    "choice_noreplace": lambda k: R.choice(k, np.arange(6.0), (4,), replace=False),
    "choice_noreplace_p": lambda k: R.choice(k, 5, (3,), replace=False,
                                             p=np.array([0.1, 0.2, 0.3, 0.2, 0.2])),
    "truncated_normal": lambda k: R.truncated_normal(k, -1.0, 2.0, (5,)),
    "gumbel": lambda k: R.gumbel(k, (5,)),
    "exponential": lambda k: R.exponential(k, (5,)),
    "gamma": lambda k: R.gamma(k, 2.0, (5,)),
    "beta": lambda k: R.beta(k, 2.0, 3.0, (5,)),
    "dirichlet": lambda k: R.dirichlet(k, np.ones(3), (2,)),
    "multivariate_normal": lambda k: R.multivariate_normal(
        k, np.zeros(2), np.array([[2.0, 0.5], [0.5, 1.0]]), (3,)),
    "orthogonal": lambda k: R.orthogonal(k, 3),
    "split": lambda k: R.split(k, 3),
    "fold_in": lambda k: R.fold_in(k, 7),
    "bits": lambda k: R.bits(k, (4,), 64),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_eager_jit_and_vmap_agree(name):
    """Same key, same values; jit traces the key (one compilation for every key); vmap over a
    batch of keys equals the samples of each key stacked."""
    check_eager_jit_vmap(SAMPLERS[name], _keys(3))


def check_eager_jit_vmap(f, keys):
    """Sampler `f` of one key: eager, jit (one compilation for all `keys`) and vmap over
    `keys` agree, and different keys give different samples."""
    eager = [f(k) for k in keys]
    np.testing.assert_array_equal(f(keys[0]), eager[0])
    jf = fg.jit(f)
    for k, e in zip(keys, eager):
        got = jf(k)
        assert got.dtype == e.dtype and got.shape == e.shape
        np.testing.assert_allclose(got, e, rtol=1e-13, atol=0)
    assert jf.cache_info().misses == 1
    np.testing.assert_allclose(fg.vmap(f)(keys), np.stack(eager), rtol=1e-13, atol=0)
    assert len({e.tobytes() for e in eager}) > 1  # different keys, different samples


def test_vmap_over_fold_in_data_and_jit_with_traced_step():
    steps = np.arange(4)
    want = np.stack([R.normal(R.fold_in(K, int(s)), (2,)) for s in steps])
    np.testing.assert_array_equal(fg.vmap(lambda s: R.normal(R.fold_in(K, s), (2,)))(steps),
                                  want)
    jf = fg.jit(lambda k, s: R.normal(R.fold_in(k, s), (2,)))
    for s in steps:
        np.testing.assert_array_equal(jf(K, s), want[s])
    assert jf.cache_info().misses == 1


def test_vmap_of_split_keys_with_an_unbatched_key():
    keys = fg.vmap(lambda s: R.fold_in(K, s))(np.arange(3))
    np.testing.assert_array_equal(keys, np.stack([R.fold_in(K, s) for s in range(3)]))
    parts = fg.vmap(R.split)(keys)
    np.testing.assert_array_equal(parts, np.stack([R.split(k) for k in keys]))


# ----------------------------------------------------------------------------- independence
def _corr(a, b):
    return float(np.corrcoef(np.ravel(a), np.ravel(b))[0, 1])


def test_split_and_fold_in_streams_are_independent():
    k1, k2 = R.split(K)
    streams = [R.normal(k, (N,)) for k in (K, k1, k2, R.fold_in(K, 0), R.fold_in(K, 1),
                                            R.fold_in(k1, 0))]
    for i in range(len(streams)):
        assert abs(streams[i].mean()) < 0.04 and abs(streams[i].var() - 1) < 0.05
        for j in range(i):
            assert abs(_corr(streams[i], streams[j])) < 0.04, (i, j)
    # many split keys: their first draws are themselves uniform and uncorrelated
    firsts = fg.vmap(lambda k: R.uniform(k, (2,)))(R.split(K, 5000))
    assert abs(firsts.mean() - 0.5) < 0.01 and abs(_corr(firsts[:, 0], firsts[:, 1])) < 0.06
    # neighbouring fold_in data: no correlation between their streams
    a = fg.vmap(lambda s: R.uniform(R.fold_in(K, s)))(np.arange(5000))
    assert abs(a.mean() - 0.5) < 0.02 and abs(_corr(a[:-1], a[1:])) < 0.06
    # a key's split children differ from its own bits (separate purposes of one key)
    assert not np.array_equal(R.split(K, 1)[0], R.bits(K, (2,)))


# ----------------------------------------------------------------------------- samplers
def _ks(x, cdf):
    if stats is not None:
        assert stats.kstest(x, cdf).pvalue > 1e-4


def test_uniform_and_normal_moments_and_dtypes():
    for dt in (np.float64, np.float32, np.float16):
        u = R.uniform(K, (N,), dt)
        assert u.dtype == dt and u.min() >= 0 and u.max() < 1
        assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
        z = R.normal(K, (N,), dt)
        assert z.dtype == dt and np.all(np.isfinite(z))
        assert abs(z.mean()) < 0.03 and abs(z.var() - 1) < 0.05
    _ks(R.uniform(K, (N,)), "uniform")
    _ks(R.normal(K, (N,)), "norm")
    x = R.uniform(K, (N,), np.float32, -2.0, 3.0)
    assert x.dtype == np.float32 and x.min() >= -2 and x.max() < 3


def test_uniform_is_differentiable_in_its_bounds():
    g = fg.grad(lambda lo, hi: R.uniform(K, (10,), minval=lo, maxval=hi).sum(), (0, 1))(0.0, 2.0)
    u = R.uniform(K, (10,))
    np.testing.assert_allclose(g, [np.sum(1 - u), np.sum(u)])


def test_bernoulli_categorical_and_randint_frequencies():
    b = R.bernoulli(K, 0.3, (N,))
    assert b.dtype == np.bool_ and abs(b.mean() - 0.3) < 0.015
    p = np.array([0.1, 0.2, 0.3, 0.4])
    c = R.categorical(K, np.log(p), shape=(N,))
    np.testing.assert_allclose(np.bincount(c, minlength=4) / N, p, atol=0.015)
    # logits along axis 0 with a batch dim; shape defaults to the batch
    logits = np.log(np.array([[0.9, 0.1], [0.1, 0.9]]))
    c2 = R.categorical(K, logits, axis=0, shape=(N, 2))
    np.testing.assert_allclose(c2.mean(axis=0), [0.1, 0.9], atol=0.015)
    assert R.categorical(K, logits, axis=0).shape == (2,)
    r = R.randint(K, (N,), -3, 5, np.int32)
    assert r.dtype == np.int32 and r.min() == -3 and r.max() == 4
    np.testing.assert_allclose(np.bincount(r + 3) / N, np.full(8, 1 / 8), atol=0.015)
    if stats is not None:
        assert stats.chisquare(np.bincount(c, minlength=4), N * p).pvalue > 1e-4


def test_permutation_and_choice():
    perm = R.permutation(K, 10)
    assert perm.dtype == np.int64 and sorted(perm.tolist()) == list(range(10))
    x = np.arange(12.0).reshape(3, 4)
    px = R.permutation(K, x, axis=1)
    np.testing.assert_array_equal(np.sort(px, axis=1), x)
    # every position of a 3-permutation is uniform over the values
    perms = fg.vmap(lambda k: R.permutation(k, 3))(_keys(6000))
    np.testing.assert_allclose(np.mean(perms == 0, axis=0), np.full(3, 1 / 3), atol=0.03)
    c = R.choice(K, 5, (4,), replace=False)
    assert len(set(c.tolist())) == 4 and c.max() < 5
    cp = R.choice(K, 4, (N,), p=np.array([0.1, 0.2, 0.3, 0.4]))
    np.testing.assert_allclose(np.bincount(cp, minlength=4) / N, [0.1, 0.2, 0.3, 0.4], atol=0.015)
    # without replacement with p: the first pick follows p, zero-probability entries never come
    p = np.array([0.5, 0.5, 0.0, 0.0])
    picks = fg.vmap(lambda k: R.choice(k, 4, (2,), replace=False, p=p))(_keys(500))
    assert set(np.unique(picks)) == {0, 1} and np.all(picks[:, 0] != picks[:, 1])
    a = np.array([10.0, 20.0, 30.0])
    assert set(R.choice(K, a, (6,)).tolist()) <= {10.0, 20.0, 30.0}
    with pytest.raises(ValueError, match="without replacement"):
        R.choice(K, 3, (4,), replace=False)
    with pytest.raises(ValueError, match="p must have shape"):
        R.choice(K, 3, p=np.ones(4) / 4)


def _truncnorm_moments(a, b):
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
    z = cdf(b) - cdf(a)
    xpdf = lambda x: 0.0 if math.isinf(x) else x * pdf(x)  # noqa: E731
    mean = (pdf(a) - pdf(b)) / z
    var = 1 + (xpdf(a) - xpdf(b)) / z - mean ** 2
    return mean, var


@pytest.mark.parametrize("lo,hi", [(-1.0, 2.0), (1.5, 4.0), (-6.0, -4.0), (-np.inf, 0.5)])
def test_truncated_normal_support_and_moments(lo, hi):
    x = R.truncated_normal(K, lo, hi, (N,))
    assert x.min() >= lo and x.max() <= hi
    mean, var = _truncnorm_moments(lo, hi)
    assert abs(x.mean() - mean) < 4 * math.sqrt(var / N) + 1e-6
    assert abs(x.var() - var) < 0.1 * var
    if stats is not None:
        _ks(x, stats.truncnorm(lo, hi).cdf)
    assert R.truncated_normal(K, lo, hi, (3,), np.float32).dtype == np.float32


def test_truncated_normal_is_differentiable_in_its_bounds():
    g = fg.grad(lambda lo: R.truncated_normal(K, lo, 2.0, (50,)).sum())(-1.0)
    assert np.isfinite(g) and g > 0  # raising the lower bound raises the samples


def test_gumbel_exponential_moments():
    g = R.gumbel(K, (N,))
    assert abs(g.mean() - np.euler_gamma) < 0.03 and abs(g.var() - np.pi ** 2 / 6) < 0.1
    e = R.exponential(K, (N,), np.float32)
    assert e.dtype == np.float32 and e.min() > 0
    assert abs(e.mean() - 1) < 0.03 and abs(e.var() - 1) < 0.08
    _ks(R.exponential(K, (N,)), "expon")


def test_gamma_beta_dirichlet_moments():
    g = R.gamma(K, np.array([0.5, 2.0, 5.0]), (N, 3))
    np.testing.assert_allclose(g.mean(0), [0.5, 2.0, 5.0], rtol=0.05)
    np.testing.assert_allclose(g.var(0), [0.5, 2.0, 5.0], rtol=0.1)
    assert R.gamma(K, 2.0, (3,), np.float32).dtype == np.float32
    b = R.beta(K, 2.0, 3.0, (N,))
    assert 0 < b.min() and b.max() < 1 and abs(b.mean() - 0.4) < 0.01
    assert abs(b.var() - 6 / (25 * 6)) < 0.004
    alpha = np.array([1.0, 2.0, 3.0])
    d = R.dirichlet(K, alpha, (N,))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(0), alpha / 6, atol=0.01)


def test_gamma_has_no_silent_derivative_in_its_shape():
    with pytest.raises(NotImplementedError, match="fg.stop_gradient"):
        fg.grad(lambda a: R.gamma(K, a))(2.0)
    assert fg.grad(lambda a: R.gamma(K, fg.stop_gradient(a)) * a)(2.0) > 0


def test_multivariate_normal_covariance_and_gradient():
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, 0.3], [0.0, 0.3, 0.5]])
    mean = np.array([1.0, -1.0, 0.0])
    x = R.multivariate_normal(K, mean, cov, (N,))
    np.testing.assert_allclose(x.mean(0), mean, atol=0.04)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.06)
    np.testing.assert_allclose(R._cholesky(cov), np.linalg.cholesky(cov), rtol=1e-12)
    g = fg.grad(lambda m: R.multivariate_normal(K, m, cov, (4,)).sum())(mean)
    np.testing.assert_allclose(g, np.full(3, 4.0))
    assert R.multivariate_normal(K, mean, cov, (2,), np.float32).dtype == np.float32


def test_orthogonal_is_orthogonal_and_haar():
    q = R.orthogonal(K, 4, (2,))
    assert q.shape == (2, 4, 4)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), q.shape),
                               atol=1e-12)
    # Haar: each entry has mean 0 and variance 1/n
    qs = R.orthogonal(K, 3, (3000,))
    assert np.abs(qs.mean(0)).max() < 0.04
    np.testing.assert_allclose(qs.var(0), np.full((3, 3), 1 / 3), atol=0.04)
    assert R.orthogonal(K, 2, dtype=np.float32).dtype == np.float32


def test_samplers_inside_jit_with_a_traced_key_train_loop():
    """A typical use: dropout in a jitted step, one key per step from fold_in."""
    @fg.jit
    def step(w, k):
        mask = R.bernoulli(k, 0.5, w.shape)
        return fg.grad(lambda w: fnp.sum(fnp.where(mask, w, 0.0) ** 2))(w)
    w = np.ones(6)
    outs = [step(w, R.fold_in(K, i)) for i in range(3)]
    assert step.cache_info().misses == 1
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(o, 2.0 * R.bernoulli(R.fold_in(K, i), 0.5, (6,)))


# ------------------------------------------------- edges found against jax.random (session 8)
def test_truncated_normal_slope_at_a_zero_or_infinite_bound():
    # the truncated mean's slope in the upper bound b of (-1, b), and of (-inf, b), at b = 0:
    # d/db E[x] = phi(b) * (b - E[x]) / Z, by the quotient rule on E[x] = -(phi(b) - phi(a)) / Z
    def exact(a, b):
        pdf = lambda t: 0.0 if np.isinf(t) else math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
        cdf = lambda t: 0.5 * math.erfc(-t / math.sqrt(2))
        z = cdf(b) - cdf(a)
        mean = (pdf(a) - pdf(b)) / z
        return pdf(b) * (b - mean) / z
    for a in (-1.0, -np.inf):
        mean_of = lambda b: R.truncated_normal(K, a, b, (N,)).mean()
        for slope in (fg.grad(mean_of)(0.0), fg.jacfwd(mean_of)(0.0)):
            assert abs(slope - exact(a, 0.0)) < 0.03
    g_lo, g_hi = fg.grad(lambda a, b: R.truncated_normal(K, a, b, (100,)).mean(),
                         argnums=(0, 1))(-np.inf, 1.0)
    assert g_lo == 0.0 and np.isfinite(g_hi) and g_hi > 0


@pytest.mark.parametrize("lo,hi", [(20.0, 21.0), (-15.0, -14.0), (9.0, np.inf)])
def test_truncated_normal_far_tails_in_float32(lo, hi):
    x = R.truncated_normal(K, lo, hi, (2000,), np.float32)
    assert x.dtype == np.float32 and np.all(np.isfinite(x))
    assert x.min() >= lo and x.max() <= hi and np.unique(x).size > 1000


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_beta_and_dirichlet_at_small_concentrations_give_no_nan(dtype):
    b = R.beta(K, 1e-3, 1e-3, (N,), dtype)
    assert b.dtype == dtype and not np.isnan(b).any() and 0 <= b.min() and b.max() <= 1
    # Beta(eps, eps) puts mass ~1/2 near each end; the mean stays 1/2
    assert abs(b.mean() - 0.5) < 0.03 and np.mean((b > 0.01) & (b < 0.99)) < 0.02
    d = R.dirichlet(K, np.array([1e-3, 1e-3, 1e-2], dtype), (N,), dtype)
    assert d.dtype == dtype and not np.isnan(d).any()
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0), np.array([1, 1, 10]) / 12, atol=0.02)


def test_randint_clamps_bounds_like_jax():
    np.testing.assert_array_equal(R.randint(K, (5,), 5, 2), np.full(5, 5))  # empty range
    np.testing.assert_array_equal(fg.jit(lambda lo, hi: R.randint(K, (5,), lo, hi))(
        np.int64(5), np.int64(2)), np.full(5, 5))
    x = R.randint(K, (N,), 0, 2 ** 40, np.int32)  # maxval past int32: the max is reachable
    assert x.dtype == np.int32 and x.min() >= 0 and x.max() > 2 ** 30
    u = R.randint(K, (N,), 0, 300, np.uint8)  # [0, 255], uniform: no value twice as likely
    counts = np.bincount(u, minlength=256)
    assert 0.85 < counts[:44].mean() / counts[44:].mean() < 1.15  # 300 mod 256 = 44
    assert R.randint(K, (100,), -5, 5, np.uint8).max() < 5  # minval clamped to 0
    full = R.randint(K, (N,), np.iinfo(np.int64).min, 2 ** 63)  # the whole int64 range
    assert full.min() < -2 ** 62 and full.max() > 2 ** 62
    np.testing.assert_array_equal(R.randint(K, (6,), 0, 10), [9, 8, 9, 6, 3, 5])  # unchanged


@pytest.mark.parametrize("call", [
    lambda: R.uniform(K, (), minval=np.arange(3.0)),
    lambda: R.bernoulli(K, np.full((4, 3), 0.5), (3,)),
    lambda: R.randint(K, (2,), np.zeros(3, int), 5),
    lambda: R.truncated_normal(K, np.zeros(3), 1.0, (2,)),
])
def test_parameters_never_widen_the_requested_shape(call):
    with pytest.raises(ValueError, match="does not broadcast to shape"):
        call()


def test_multivariate_normal_symmetrizes_cov_and_takes_eigh_and_svd():
    cov = np.array([[1.0, 0.3], [0.3, 2.0]])
    def cross_moment(c, method="cholesky"):
        x = R.multivariate_normal(K, np.zeros(2), c, (N,), method=method)
        return (x[:, 0] * x[:, 1]).mean()
    g = fg.grad(cross_moment)(cov)  # d E[x0 x1] / d cov: 1/2 on each off-diagonal entry
    np.testing.assert_allclose(g, g.T, atol=1e-12)
    np.testing.assert_allclose(g, [[0.0, 0.5], [0.5, 0.0]], atol=0.03)
    upper_only = np.array([[1.0, 0.6], [0.0, 2.0]])  # read as its symmetric part
    np.testing.assert_allclose(R.multivariate_normal(K, np.zeros(2), upper_only, (3,)),
                               R.multivariate_normal(K, np.zeros(2), cov, (3,)))
    singular = np.ones((2, 2))
    assert np.isnan(R.multivariate_normal(K, np.zeros(2), singular, (3,))).all()
    for method in ("eigh", "svd"):
        x = R.multivariate_normal(K, np.zeros(2), singular, (N,), method=method)
        assert np.isfinite(x).all() and np.allclose(np.cov(x.T), singular, atol=0.05)
        np.testing.assert_allclose(np.cov(R.multivariate_normal(
            K, np.zeros(2), cov, (N,), method=method).T), cov, atol=0.06)
    with pytest.raises(ValueError, match="method must be"):
        R.multivariate_normal(K, np.zeros(2), cov, method="qr")


def test_choice_permutation_and_fold_in_edges():
    np.testing.assert_array_equal(R.choice(K, np.array(5), (3,)), R.choice(K, 5, (3,)))
    np.testing.assert_array_equal(R.permutation(K, np.array(4)), R.permutation(K, 4))
    assert R.permutation(K, 0).shape == (0,)
    with pytest.raises(ValueError, match="cannot choose from 0 entries"):
        R.choice(K, 0, (2,))
    with pytest.raises(ValueError, match="fold_in: data must be in"):
        R.fold_in(K, 2 ** 40)
    with pytest.raises(ValueError, match="fold_in: data must be in"):
        R.fold_in(K, -1)


def test_split_into_a_shape_of_keys():
    k = fg.random.key(0)
    keys = fg.random.split(k, (2, 3))
    assert keys.shape == (2, 3, 2) and keys.dtype == np.uint32
    np.testing.assert_array_equal(keys.reshape(6, 2), fg.random.split(k, 6))
    assert len({tuple(r) for r in keys.reshape(6, 2).tolist()}) == 6


def test_permutation_of_each_slice_independently():
    k = fg.random.key(1)
    x = np.arange(40.0).reshape(4, 10)
    p = fg.random.permutation(k, x, axis=1, independent=True)
    np.testing.assert_array_equal(np.sort(p, axis=1), x)  # each row keeps its entries
    orders = {tuple(np.argsort(r).tolist()) for r in p}
    assert len(orders) == 4  # rows are permuted differently
    np.testing.assert_array_equal(
        fg.jit(lambda k, x: fg.random.permutation(k, x, 1, independent=True))(k, x), p)


def test_orthogonal_of_size_zero():
    assert fg.random.orthogonal(fg.random.key(0), 0, (2,)).shape == (2, 0, 0)


def test_gamma_family_empty_shapes_and_invalid_shape_parameters():
    k = fg.random.key(0)
    # a 0-size output used to fail in the primitive's reshape
    for shape in ((0,), (2, 0)):
        assert fg.random.gamma(k, 2.0, shape).shape == shape
        assert fg.random.beta(k, 2.0, 3.0, shape).shape == shape
        assert fg.random.dirichlet(k, np.ones(3), shape).shape == shape + (3,)
        assert fg.jit(lambda kk: fg.random.gamma(kk, 2.0, shape))(k).shape == shape
    # a < 0 is NaN (as jax.random), not NumPy's "shape < 0", and not a silent 0 for beta
    with np.errstate(all="ignore"):
        g = fg.random.gamma(k, np.array([-1.0, 2.0, 0.0]))
        assert np.isnan(g[0]) and g[1] > 0 and g[2] == 0
        assert np.isnan(fg.jit(fg.random.gamma)(k, np.array([-1.0]))).all()
        assert np.isnan(fg.random.beta(k, -1.0, 1.0, (2,))).all()
        assert np.isnan(fg.random.dirichlet(k, np.array([-1.0, 1.0]))).all()


def test_beta_dirichlet_honour_narrow_dtypes():
    k = fg.random.key(1)
    for dt in (np.float16, np.float32):
        assert fg.random.beta(k, 2.0, 3.0, (3,), dt).dtype == dt
        assert fg.random.dirichlet(k, np.ones(3), (2,), dt).dtype == dt


def test_truncated_normal_empty_interval_is_nan():
    k = fg.random.key(2)
    assert np.isnan(fg.random.truncated_normal(k, 2.0, -1.0, (3,))).all()
    x = fg.random.truncated_normal(k, np.array([2.0, -1.0]), np.array([-1.0, 2.0]))
    assert np.isnan(x[0]) and -1 <= x[1] <= 2


def test_shape_and_seed_argument_errors():
    k = fg.random.key(0)
    with pytest.raises(TypeError, match=r"normal: shape must be a tuple of non-negative"):
        fg.random.normal(k, (2.5,))  # used to draw 2 silently
    with pytest.raises(ValueError, match=r"uniform: shape must be .* got \(-1,\)"):
        fg.random.uniform(k, (-1,))
    with pytest.raises(TypeError, match=r"split: num must be"):
        fg.random.split(k, 2.0)
    with pytest.raises(TypeError, match=r"key: seed must be an integer scalar, got float"):
        fg.random.key(1.5)
    with pytest.raises(ValueError, match=r"categorical: shape \(4,\) must end with the batch"):
        fg.random.categorical(k, np.zeros((2, 3)), shape=(4,))
    assert fg.random.categorical(k, np.zeros((2, 3)), shape=(5, 2)).shape == (5, 2)
    assert fg.random.normal(k, np.int64(3)).shape == (3,)


def test_orthogonal_and_multivariate_normal_same_numbers_under_vmap_and_jit():
    # batched einsum (BLAS) rounded vmap's draws differently from the eager ones
    keys = fg.random.split(fg.random.key(3), 3)
    a = np.random.RandomState(0).rand(6, 6)
    cov = a @ a.T + 6 * np.eye(6)
    for f in (lambda kk: fg.random.orthogonal(kk, 5, (3, 2)),
              lambda kk: fg.random.orthogonal(kk, 4, (), np.float32),
              lambda kk: fg.random.multivariate_normal(kk, np.zeros(6), cov, (4,))):
        eager = np.stack([f(kk) for kk in keys])
        np.testing.assert_array_equal(eager, fg.vmap(f)(keys))
        np.testing.assert_array_equal(eager[0], fg.jit(f)(keys[0]))
