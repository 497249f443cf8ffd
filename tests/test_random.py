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
    f = SAMPLERS[name]
    keys = _keys(3)
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
