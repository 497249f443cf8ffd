"""fg.random's samplers beyond the first set (jax.random's cauchy ... weibull_min, poisson,
binomial, geometric, multinomial) and key helpers: distributions against SciPy (KS tests
and chi-square tests with fixed keys and wide margins), shapes and dtypes, parameter
broadcasting, eager == jit == vmap, invalid parameters, and reparameterization gradients
against finite differences of the same key."""
import math

import numpy as np
import pytest

import fungrad as fg
from test_random import check_eager_jit_vmap

R = fg.random
stats = pytest.importorskip("scipy.stats")

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    BF16 = None

N = 20000
P_MIN = 1e-6  # KS / chi-square p-values of correct samplers with these keys sit far above


def _ks(x, cdf):
    return stats.kstest(np.ravel(np.asarray(x, np.float64)), cdf).pvalue


def _chisq_discrete(x, dist):
    """Chi-square of integer samples against a SciPy discrete distribution: one bin per
    value run expecting >= 20 draws, the tails merged into the end bins."""
    x = np.ravel(np.asarray(x)).astype(np.int64)
    n = x.size
    lo, hi = int(dist.ppf(1e-9)), int(dist.ppf(1 - 1e-9))
    cdf = dist.cdf(np.arange(lo - 1, hi + 1))  # cdf[j] = P(X <= lo - 1 + j)
    edges, last = [lo], cdf[0]  # bins [edges[i], edges[i + 1])
    for j in range(1, len(cdf)):
        if n * (cdf[j] - last) >= 20:
            edges.append(lo + j)
            last = cdf[j]
    if len(edges) > 2 and n * (1 - last) < 20:
        edges.pop()  # (merge a short last bin into the one before)
    probs = np.diff(np.concatenate([[0.0], cdf[np.array(edges[1:]) - lo], [1.0]]))
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(probs) - 1)
    observed = np.bincount(idx, minlength=len(probs))
    if len(probs) < 2:  # (a point mass)
        return 1.0 if observed[0] == n else 0.0
    return stats.chisquare(observed, n * probs / probs.sum()).pvalue


# ------------------------------------------------------------------------- signatures
JAX_SIGNATURES = {  # jax.random 0.10.2's parameters (without out_sharding); * = keyword-only
    "PRNGKey": "seed, *impl=None",
    "key_data": "keys",
    "wrap_key_data": "key_bits_array, *impl=None, *dtype=None",
    "clone": "key",
    "ball": "key, d, p=2, shape=(), dtype=None",
    "binomial": "key, n, p, shape=None, dtype=None",
    "cauchy": "key, shape=(), dtype=None",
    "chisquare": "key, df, shape=None, dtype=None",
    "double_sided_maxwell": "key, loc, scale, shape=(), dtype=None",
    "f": "key, dfnum, dfden, shape=None, dtype=None",
    "generalized_normal": "key, p, shape=(), dtype=None",
    "geometric": "key, p, shape=None, dtype=None",
    "laplace": "key, shape=(), dtype=None",
    "loggamma": "key, a, shape=None, dtype=None",
    "logistic": "key, shape=(), dtype=None",
    "lognormal": "key, sigma=1.0, shape=None, dtype=None",
    "maxwell": "key, shape=(), dtype=None",
    "multinomial": "key, n, p, *shape=None, *dtype=None, *unroll=1",
    "pareto": "key, b, shape=None, dtype=None",
    "poisson": "key, lam, shape=None, dtype=None",
    "rademacher": "key, shape=(), dtype=None",
    "rayleigh": "key, scale, shape=None, dtype=None",
    "t": "key, df, shape=None, dtype=None",
    "triangular": "key, left, mode, right, shape=None, dtype=None",
    "wald": "key, mean, shape=None, dtype=None",
    "weibull_min": "key, scale, concentration, shape=(), dtype=None",
}


@pytest.mark.parametrize("name", sorted(JAX_SIGNATURES))
def test_signatures_match_jax_random(name):
    import inspect
    parts = []
    for p in inspect.signature(getattr(R, name)).parameters.values():
        s = ("*" if p.kind == p.KEYWORD_ONLY else "") + p.name
        parts.append(s if p.default is p.empty else f"{s}={p.default!r}")
    assert ", ".join(parts) == JAX_SIGNATURES[name]
    assert name in R.__all__


# ----------------------------------------------------------------------------- keys
def test_prngkey_and_key_data_helpers():
    k = R.key(42)
    np.testing.assert_array_equal(R.PRNGKey(42), k)
    assert R.PRNGKey(42).dtype == np.uint32 and R.PRNGKey(42).shape == (2,)
    np.testing.assert_array_equal(fg.jit(R.PRNGKey)(np.int64(42)), k)
    np.testing.assert_array_equal(R.key_data(k), k)
    keys = R.split(k, 3)
    np.testing.assert_array_equal(R.key_data(keys), keys)  # a batch of keys
    w = R.wrap_key_data(np.array([0, 42], np.uint32))
    np.testing.assert_array_equal(R.normal(w, (3,)), R.normal(k, (3,)))
    c = R.clone(k)
    np.testing.assert_array_equal(c, k)
    assert c is not k
    np.testing.assert_array_equal(fg.jit(R.clone)(k), k)
    np.testing.assert_array_equal(fg.vmap(R.key_data)(keys), keys)


def test_key_helpers_reject_bad_data():
    with pytest.raises(TypeError, match=r"key_data: keys must be a uint32 array of shape"):
        R.key_data(np.zeros(3, np.uint32))
    with pytest.raises(TypeError, match=r"wrap_key_data: key_bits_array must be a uint32"):
        R.wrap_key_data(np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="impl must be None"):
        R.wrap_key_data(np.zeros(2, np.uint32), impl="threefry2x32")
    with pytest.raises(ValueError, match="at most one of impl and dtype"):
        R.wrap_key_data(np.zeros(2, np.uint32), impl="rbg", dtype="rbg")
    with pytest.raises(TypeError, match="clone: key must be"):
        R.clone(np.zeros((2, 3), np.uint32))
    with pytest.raises(TypeError, match="seed must be an integer"):
        R.PRNGKey(1.5)
    with pytest.raises(ValueError, match="PRNGKey: .* impl must be None"):
        R.PRNGKey(0, impl="threefry2x32")


# ------------------------------------------------------------------- continuous: vs SciPy
CONTINUOUS = [
    ("cauchy", lambda k: R.cauchy(k, (N,)), stats.cauchy().cdf),
    ("laplace", lambda k: R.laplace(k, (N,)), stats.laplace().cdf),
    ("logistic", lambda k: R.logistic(k, (N,)), stats.logistic().cdf),
    ("maxwell", lambda k: R.maxwell(k, (N,)), stats.maxwell().cdf),
    ("lognormal", lambda k: R.lognormal(k, 0.7, (N,)), stats.lognorm(0.7).cdf),
    ("lognormal_default", lambda k: R.lognormal(k, shape=(N,)), stats.lognorm(1.0).cdf),
    ("pareto", lambda k: R.pareto(k, 2.5, (N,)), stats.pareto(2.5).cdf),
    ("pareto_small_b", lambda k: R.pareto(k, 0.2, (N,)), stats.pareto(0.2).cdf),
    ("rayleigh", lambda k: R.rayleigh(k, 1.7, (N,)), stats.rayleigh(scale=1.7).cdf),
    ("weibull_min", lambda k: R.weibull_min(k, 2.0, 0.6, (N,)),
     stats.weibull_min(0.6, scale=2.0).cdf),
    ("weibull_min_peaked", lambda k: R.weibull_min(k, 0.5, 5.0, (N,)),
     stats.weibull_min(5.0, scale=0.5).cdf),
    ("triangular", lambda k: R.triangular(k, -1.0, 0.5, 3.0, (N,)),
     stats.triang(1.5 / 4.0, loc=-1.0, scale=4.0).cdf),
    ("triangular_mode_left", lambda k: R.triangular(k, 0.0, 0.0, 2.0, (N,)),
     stats.triang(0.0, loc=0.0, scale=2.0).cdf),
    ("triangular_mode_right", lambda k: R.triangular(k, 0.0, 2.0, 2.0, (N,)),
     stats.triang(1.0, loc=0.0, scale=2.0).cdf),
    ("wald", lambda k: R.wald(k, 1.5, (N,)), stats.invgauss(1.5).cdf),
    ("wald_large_mean", lambda k: R.wald(k, 200.0, (N,)), stats.invgauss(200.0).cdf),
    ("wald_small_mean", lambda k: R.wald(k, 0.01, (N,)), stats.invgauss(0.01).cdf),
    ("loggamma", lambda k: R.loggamma(k, 2.5, (N,)), stats.loggamma(2.5).cdf),
    ("loggamma_tiny_a", lambda k: R.loggamma(k, 0.01, (N,)), stats.loggamma(0.01).cdf),
    ("chisquare", lambda k: R.chisquare(k, 3.0, (N,)), stats.chi2(3.0).cdf),
    ("chisquare_small_df", lambda k: R.chisquare(k, 0.3, (N,)), stats.chi2(0.3).cdf),
    ("f", lambda k: R.f(k, 3.0, 7.0, (N,)), stats.f(3.0, 7.0).cdf),
    ("f_small_df", lambda k: R.f(k, 0.5, 0.8, (N,)), stats.f(0.5, 0.8).cdf),
    ("t", lambda k: R.t(k, 4.0, (N,)), stats.t(4.0).cdf),
    ("t_cauchy", lambda k: R.t(k, 1.0, (N,)), stats.t(1.0).cdf),
    ("t_large_df", lambda k: R.t(k, 1e4, (N,)), stats.t(1e4).cdf),
    ("generalized_normal", lambda k: R.generalized_normal(k, 1.5, (N,)),
     stats.gennorm(1.5).cdf),
    ("generalized_normal_p4", lambda k: R.generalized_normal(k, 4.0, (N,)),
     stats.gennorm(4.0).cdf),
    ("generalized_normal_p_half", lambda k: R.generalized_normal(k, 0.5, (N,)),
     stats.gennorm(0.5).cdf),
]


@pytest.mark.parametrize("name,draw,cdf", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_matches_scipy(name, draw, cdf):
    x = draw(R.fold_in(R.key(0), [c[0] for c in CONTINUOUS].index(name)))
    assert x.dtype == np.float64 and x.shape == (N,)
    assert np.all(np.isfinite(x))
    assert _ks(x, cdf) > P_MIN


def test_double_sided_maxwell_distribution_and_shape():
    loc, scale = 1.5, 2.0
    x = R.double_sided_maxwell(R.key(0), loc, scale, (N,))
    assert x.shape == (N,)
    z = (x - loc) / scale
    assert _ks(np.abs(z), stats.maxwell().cdf) > P_MIN
    assert abs(np.mean(z > 0) - 0.5) < 0.02
    # jax.random's shape rule: shape + broadcast(loc, scale)
    assert R.double_sided_maxwell(R.key(0), np.zeros(2), 1.0, (3,)).shape == (3, 2)
    assert R.double_sided_maxwell(R.key(0), np.zeros(2), np.ones((4, 1))).shape == (4, 2)


@pytest.mark.parametrize("d,p", [(1, 2.0), (2, 2.0), (3, 2.0), (2, 1.0), (3, 0.7), (4, 5.0)])
def test_ball_is_uniform_in_the_lp_ball(d, p):
    x = R.ball(R.key(0), d, p, (N,))
    assert x.shape == (N, d)
    r = (np.abs(x) ** p).sum(-1) ** (1 / p)
    assert np.all(r <= 1)
    # volume ~ r**d: r**d is uniform on (0, 1); the direction is symmetric
    assert _ks(r ** d, stats.uniform().cdf) > P_MIN
    assert np.all(np.abs(np.mean(x > 0, axis=0) - 0.5) < 0.02)
    if d == 1:  # the unit interval
        assert _ks(x[:, 0], stats.uniform(-1, 2).cdf) > P_MIN
    assert R.ball(R.key(0), 0, shape=(2,)).shape == (2, 0)
    assert R.ball(R.key(0), d).shape == (d,)


def test_rademacher_values_and_dtypes():
    r = R.rademacher(R.key(0), (N,))
    assert r.dtype == np.int64 and set(np.unique(r)) == {-1, 1}
    assert abs(r.mean()) < 0.03
    assert R.rademacher(R.key(0), (3,), np.float32).dtype == np.float32
    assert R.rademacher(R.key(0), (3,), np.int8).dtype == np.int8


# ------------------------------------------------------------------ discrete: exact laws
@pytest.mark.parametrize("lam", [0.0, 1e-3, 0.7, 3.0, 9.99, 10.0, 42.5, 1e4, 1e6])
def test_poisson_matches_scipy(lam):
    x = R.poisson(R.key(1), lam, (N,))
    assert x.dtype == np.int64 and x.shape == (N,)
    if lam == 0:
        assert np.all(x == 0)
        return
    assert _chisq_discrete(x, stats.poisson(lam)) > P_MIN
    assert abs(x.mean() - lam) < 6 * math.sqrt(lam / N)


@pytest.mark.parametrize("n,p", [(0, 0.3), (10, 0.0), (10, 1.0), (1, 0.5), (10, 0.3),
                                 (100, 0.05), (50, 0.93), (1000, 0.5), (1e6, 0.3),
                                 (1e6, 1e-5), (1e6, 0.999)])
def test_binomial_matches_scipy(n, p):
    x = R.binomial(R.key(2), n, p, (N,))
    assert x.dtype == np.float64 and x.shape == (N,)
    assert np.all(x == np.floor(x)) and np.all((0 <= x) & (x <= n))
    if p in (0.0, 1.0) or n == 0:
        np.testing.assert_array_equal(x, np.full(N, n * p))
        return
    assert _chisq_discrete(x, stats.binom(int(n), p)) > P_MIN


def test_binomial_floors_n_and_special_values_like_jax():
    assert np.all(R.binomial(R.key(0), 2.7, 0.999, (100,)) <= 2)
    x = R.binomial(R.key(0), np.array([-1.0, 5, 5, 5, np.inf, np.nan]),
                   np.array([0.5, 1.5, -0.5, np.nan, 0.5, 0.5]))
    assert np.isnan(x[[0, 1, 2, 3, 5]]).all() and x[4] == np.inf  # as jax.random


@pytest.mark.parametrize("p", [1e-3, 0.05, 0.3, 0.9])
def test_geometric_matches_scipy(p):
    x = R.geometric(R.key(3), p, (N,))
    assert x.dtype == np.int64 and x.min() >= 1
    assert _chisq_discrete(x, stats.geom(p)) > P_MIN
    assert abs(x.mean() - 1 / p) < 6 * math.sqrt(1 - p) / p / math.sqrt(N)


def test_geometric_edges():
    assert np.all(R.geometric(R.key(0), 1.0, (50,)) == 1)
    g = R.geometric(R.key(0), np.array([0.0, 1e-300]))
    assert np.all(g == np.iinfo(np.int64).max)  # never (jax.random: the dtype's max)
    g32 = R.geometric(R.key(0), np.array([0.0, 1e-12, 0.5]), dtype=np.int32)
    assert g32.dtype == np.int32 and np.all(g32[:2] == np.iinfo(np.int32).max)


@pytest.mark.parametrize("n,p", [(10, [0.2, 0.3, 0.5]), (1000, [0.1, 0.0, 0.6, 0.3]),
                                 (7.0, [1.0, 1.0, 2.0]), (1e6, [1e-4, 0.5, 0.4999])])
def test_multinomial_matches_binomial_marginals(n, p):
    p = np.asarray(p)
    x = R.multinomial(R.key(4), n, p, shape=(4000, len(p)))
    assert x.dtype == np.float64 and x.shape == (4000, len(p))
    np.testing.assert_array_equal(x.sum(-1), np.full(4000, math.floor(n)))
    q = p / p.sum()  # p is normalized, as jax.random
    for i in range(len(p)):
        if q[i] == 0:
            assert np.all(x[:, i] == 0)
        else:
            assert _chisq_discrete(x[:, i], stats.binom(int(n), q[i])) > P_MIN
    # categories are negatively correlated: -sqrt(q_i q_j / ((1 - q_i) (1 - q_j)))
    if n >= 1000:
        c = np.corrcoef(x[:, 0], x[:, 2])[0, 1]
        want = -math.sqrt(q[0] * q[2] / ((1 - q[0]) * (1 - q[2])))
        assert abs(c - want) < 6 / math.sqrt(4000)


def test_multinomial_shapes_and_broadcasting():
    k = R.key(0)
    p = np.array([0.2, 0.3, 0.5])
    assert R.multinomial(k, 10, p).shape == (3,)
    x = R.multinomial(k, np.array([10.0, 20.0]), p, shape=(2, 3))
    np.testing.assert_array_equal(x.sum(-1), [10, 20])
    assert R.multinomial(k, 10, p, dtype=np.float32).dtype == np.float32
    assert R.multinomial(k, 10.5, np.array([0.5, 0.5])).sum() == 10  # n floored
    assert R.multinomial(k, 5, np.ones((2, 0))).shape == (2, 0)
    with pytest.raises(ValueError, match="p must have at least 1 dimension"):
        R.multinomial(k, 10, 0.5)
    with pytest.raises(ValueError, match="p of shape"):
        R.multinomial(k, 10, np.ones(3), shape=(2, 4))
    with pytest.raises(ValueError, match="n of shape"):
        R.multinomial(k, np.ones(3), np.ones(3) / 3)
    with pytest.raises(TypeError, match="dtype must be a float dtype"):
        R.multinomial(k, 10, p, dtype=np.int32)


# ------------------------------------------------------------------ shapes, broadcasting
FLOAT_SAMPLERS = {
    "cauchy": lambda k, s, dt: R.cauchy(k, s, dt),
    "laplace": lambda k, s, dt: R.laplace(k, s, dt),
    "logistic": lambda k, s, dt: R.logistic(k, s, dt),
    "maxwell": lambda k, s, dt: R.maxwell(k, s, dt),
    "double_sided_maxwell": lambda k, s, dt: R.double_sided_maxwell(k, 0.5, 2.0, s, dt),
    "lognormal": lambda k, s, dt: R.lognormal(k, 0.5, s, dt),
    "pareto": lambda k, s, dt: R.pareto(k, 3.0, s, dt),
    "rayleigh": lambda k, s, dt: R.rayleigh(k, 2.0, s, dt),
    "weibull_min": lambda k, s, dt: R.weibull_min(k, 1.5, 2.0, s, dt),
    "triangular": lambda k, s, dt: R.triangular(k, 0.0, 1.0, 3.0, s, dt),
    "wald": lambda k, s, dt: R.wald(k, 1.5, s, dt),
    "loggamma": lambda k, s, dt: R.loggamma(k, 0.5, s, dt),
    "chisquare": lambda k, s, dt: R.chisquare(k, 3.0, s, dt),
    "f": lambda k, s, dt: R.f(k, 3.0, 5.0, s, dt),
    "t": lambda k, s, dt: R.t(k, 4.0, s, dt),
    "generalized_normal": lambda k, s, dt: R.generalized_normal(k, 1.5, s, dt),
    "ball": lambda k, s, dt: R.ball(k, 3, 2.0, s, dt),
    "binomial": lambda k, s, dt: R.binomial(k, 20, 0.3, s, dt),
    "multinomial": lambda k, s, dt: R.multinomial(k, 20, np.array([0.3, 0.7]),
                                                  shape=s + (2,), dtype=dt),
}
DTYPES = [np.float64, np.float32, np.float16] + ([BF16] if BF16 is not None else [])


@pytest.mark.parametrize("name", sorted(FLOAT_SAMPLERS))
def test_float_dtypes_and_shapes(name):
    f = FLOAT_SAMPLERS[name]
    extra = (3,) if name == "ball" else (2,) if name == "multinomial" else ()
    for dt in DTYPES:
        x = f(R.key(0), (200, 2), dt)
        assert x.dtype == np.dtype(dt) and x.shape == (200, 2) + extra, (dt, x.dtype)
        assert np.all(np.isfinite(x.astype(np.float64))), dt
    assert f(R.key(0), (), np.float64).shape == extra
    assert f(R.key(0), (0, 3), np.float64).shape == (0, 3) + extra
    assert R.cauchy(R.key(0)).dtype == np.float64  # dtype=None: float64
    with pytest.raises(TypeError, match=f"fg.random.{name}: dtype must be a float dtype"):
        f(R.key(0), (2,), np.int32)


@pytest.mark.parametrize("name", ["geometric", "poisson"])
def test_integer_dtypes(name):
    f = getattr(R, name)
    par = 0.3 if name == "geometric" else 3.0
    assert f(R.key(0), par, (5,)).dtype == np.int64
    for dt in (np.int32, np.int16, np.uint8):
        assert f(R.key(0), par, (5,), dt).dtype == dt
    with pytest.raises(TypeError, match=f"fg.random.{name}: dtype must be an integer"):
        f(R.key(0), par, (5,), np.float32)
    # a narrower dtype clips at its max instead of wrapping
    assert np.all(R.poisson(R.key(0), 1e12, (3,), np.int32) == np.iinfo(np.int32).max)


PARAM_SAMPLERS = {  # name: (sampler(key, params, shape), params)
    "lognormal": (lambda k, a, s: R.lognormal(k, a[0], s), ([0.5, 1.0],)),
    "pareto": (lambda k, a, s: R.pareto(k, a[0], s), ([1.0, 3.0],)),
    "rayleigh": (lambda k, a, s: R.rayleigh(k, a[0], s), ([1.0, 3.0],)),
    "wald": (lambda k, a, s: R.wald(k, a[0], s), ([1.0, 3.0],)),
    "loggamma": (lambda k, a, s: R.loggamma(k, a[0], s), ([0.5, 3.0],)),
    "chisquare": (lambda k, a, s: R.chisquare(k, a[0], s), ([1.0, 3.0],)),
    "t": (lambda k, a, s: R.t(k, a[0], s), ([2.0, 5.0],)),
    "f": (lambda k, a, s: R.f(k, a[0], a[1], s), ([2.0, 5.0], [[3.0], [6.0], [9.0]])),
    "triangular": (lambda k, a, s: R.triangular(k, a[0], a[1], a[2], s),
                   ([0.0, -1.0], [[1.0], [2.0], [2.5]], 3.0)),
    "geometric": (lambda k, a, s: R.geometric(k, a[0], s), ([0.2, 0.7],)),
    "poisson": (lambda k, a, s: R.poisson(k, a[0], s), ([2.0, 30.0],)),
    "binomial": (lambda k, a, s: R.binomial(k, a[0], a[1], s), ([10.0, 50.0], [[0.1], [0.5],
                                                                              [0.9]])),
}


@pytest.mark.parametrize("name", sorted(PARAM_SAMPLERS))
def test_parameter_broadcasting(name):
    f, params = PARAM_SAMPLERS[name]
    params = tuple(np.asarray(a, np.float64) for a in params)
    bshape = np.broadcast_shapes(*(a.shape for a in params))
    k = R.key(0)
    assert f(k, params, None).shape == bshape  # shape=None: the parameters' shape
    assert f(k, params, (4,) + bshape).shape == (4,) + bshape
    # a parameter must broadcast to shape (never widen it: that would repeat draws)
    with pytest.raises(ValueError, match=f"fg.random.{name}: .* does not broadcast"):
        f(k, params, (5,))
    # each entry draws from its own parameter: columns with different parameters differ
    x = np.asarray(f(k, params, (3000,) + bshape), np.float64)
    means = x.reshape(3000, -1).mean(0)
    assert len(np.unique(np.round(means, 6))) > 1


def test_weibull_min_shape_broadcasts_with_parameters():
    # jax.random draws `shape` and broadcasts the parameters over it; fungrad draws one
    # value per entry of the broadcast shape (no repeated draws)
    x = R.weibull_min(R.key(0), np.ones((4, 1)), np.array([1.0, 2.0]), (3, 1, 1))
    assert x.shape == (3, 4, 2)
    assert len(np.unique(x)) == x.size
    with pytest.raises(ValueError, match="do not broadcast together"):
        R.weibull_min(R.key(0), np.ones(3), 1.0, (2,))


# ----------------------------------------------------------------------------- determinism
SAMPLERS = {
    "cauchy": lambda k: R.cauchy(k, (5,)),
    "laplace": lambda k: R.laplace(k, (5,)),
    "logistic": lambda k: R.logistic(k, (5,)),
    "maxwell": lambda k: R.maxwell(k, (5,)),
    "double_sided_maxwell": lambda k: R.double_sided_maxwell(k, np.zeros(2), 1.0, (3,)),
    "rademacher": lambda k: R.rademacher(k, (8,)),
    "lognormal": lambda k: R.lognormal(k, 0.5, (5,)),
    "pareto": lambda k: R.pareto(k, np.array([1.0, 3.0]), (3, 2)),
    "rayleigh": lambda k: R.rayleigh(k, 2.0, (5,)),
    "weibull_min": lambda k: R.weibull_min(k, 1.0, np.array([0.5, 2.0]), (3, 1)),
    "triangular": lambda k: R.triangular(k, 0.0, 1.0, 3.0, (5,)),
    "wald": lambda k: R.wald(k, 1.5, (5,)),
    "loggamma": lambda k: R.loggamma(k, np.array([0.01, 2.0]), (3, 2)),
    "chisquare": lambda k: R.chisquare(k, 3.0, (5,)),
    "f": lambda k: R.f(k, 3.0, 5.0, (5,)),
    "t": lambda k: R.t(k, 4.0, (5,)),
    "generalized_normal": lambda k: R.generalized_normal(k, 1.5, (5,)),
    "ball": lambda k: R.ball(k, 3, 1.5, (2,)),
    "geometric": lambda k: R.geometric(k, 0.3, (5,)),
    "poisson": lambda k: R.poisson(k, np.array([0.0, 3.0, 50.0, 1e4])),
    "binomial": lambda k: R.binomial(k, np.array([0.0, 10, 1e6]), 0.3, (2, 3)),
    "multinomial": lambda k: R.multinomial(k, 10, np.array([0.2, 0.3, 0.5]), shape=(2, 3)),
    "clone": lambda k: R.clone(k),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_eager_jit_and_vmap_agree(name):
    check_eager_jit_vmap(SAMPLERS[name], R.split(R.key(1), 3))


@pytest.mark.parametrize("name", ["poisson", "binomial", "geometric", "pareto", "t",
                                  "triangular"])
def test_vmap_and_jit_over_parameters(name):
    """Parameters traced by jit and batched by vmap (alongside the keys, or alone)."""
    f = {"poisson": lambda k, a: R.poisson(k, a, (4,)),
         "binomial": lambda k, a: R.binomial(k, 100.0, a, (4,)),
         "geometric": lambda k, a: R.geometric(k, a, (4,)),
         "pareto": lambda k, a: R.pareto(k, a, (4,)),
         "t": lambda k, a: R.t(k, a, (4,)),
         "triangular": lambda k, a: R.triangular(k, 0.0, a, 1.0, (4,))}[name]
    keys = R.split(R.key(5), 3)
    params = np.array([0.1, 0.5, 0.9]) if name != "poisson" else np.array([0.5, 20.0, 1e4])
    if name in ("pareto", "t"):
        params = params * 4
    eager = np.stack([f(k, a) for k, a in zip(keys, params)])
    np.testing.assert_allclose(fg.vmap(f)(keys, params), eager, rtol=1e-13, atol=0)
    jf = fg.jit(f)
    np.testing.assert_allclose(np.stack([jf(k, a) for k, a in zip(keys, params)]), eager,
                               rtol=1e-13, atol=0)
    one_key = np.stack([f(keys[0], a) for a in params])
    np.testing.assert_allclose(fg.vmap(f, in_axes=(None, 0))(keys[0], params), one_key,
                               rtol=1e-13, atol=0)


# ----------------------------------------------------------------------------- invalid params
INVALID = [  # (call, argument name): a concrete invalid value raises
    (lambda: R.pareto(R.key(0), -1.0, (3,)), "b"),
    (lambda: R.rayleigh(R.key(0), np.array([1.0, -2.0])), "scale"),
    (lambda: R.weibull_min(R.key(0), 0.0, 1.0), "scale"),
    (lambda: R.weibull_min(R.key(0), 1.0, np.array([1.0, -2.0])), "concentration"),
    (lambda: R.triangular(R.key(0), 0.0, 2.0, 1.0), r"\(left, mode, right\)"),
    (lambda: R.triangular(R.key(0), 1.0, 1.0, 1.0), r"\(left, mode, right\)"),
    (lambda: R.chisquare(R.key(0), -1.0), "df"),
    (lambda: R.f(R.key(0), 0.0, 2.0), "dfnum"),
    (lambda: R.f(R.key(0), 1.0, -2.0), "dfden"),
    (lambda: R.geometric(R.key(0), 1.5), "p"),
    (lambda: R.geometric(R.key(0), np.array([0.5, np.nan])), "p"),
    (lambda: R.multinomial(R.key(0), 10, np.array([-0.1, 0.6, 0.5])), "p"),
    (lambda: R.multinomial(R.key(0), -3, np.array([0.5, 0.5])), "n"),
]


@pytest.mark.parametrize("i", range(len(INVALID)))
def test_invalid_parameters_raise_naming_the_argument(i):
    call, name = INVALID[i]
    with pytest.raises(ValueError, match=f"{name} must be"):
        call()


def test_invalid_parameters_under_jit_give_nan_or_minus_one():
    k = R.key(0)
    assert np.isnan(fg.jit(lambda b: R.pareto(k, b, (3,)))(-1.0)).all()
    assert np.isnan(fg.jit(lambda s: R.rayleigh(k, s, (3,)))(-1.0)).all()
    assert np.isnan(fg.jit(lambda c: R.weibull_min(k, 1.0, c, (3,)))(-1.0)).all()
    assert np.isnan(fg.jit(lambda m: R.triangular(k, 0.0, m, 1.0, (3,)))(2.0)).all()
    assert np.isnan(fg.jit(lambda d: R.chisquare(k, d, (3,)))(-1.0)).all()
    assert np.isnan(fg.jit(lambda d: R.f(k, d, 1.0, (3,)))(-1.0)).all()
    assert np.all(fg.jit(lambda p: R.geometric(k, p, (3,)))(1.5) == -1)
    assert np.isnan(fg.jit(lambda p: R.multinomial(k, 10, p))(np.array([-0.1, 1.1]))).all()


def test_nan_and_minus_one_where_jax_random_gives_them():
    """jax.random's own conventions: NaN (t, wald, loggamma, generalized_normal, binomial)
    or -1 (poisson) for invalid parameters, never an error."""
    k = R.key(0)
    x = R.t(k, np.array([-1.0, 0.0, 3.0]))
    assert np.isnan(x[:2]).all() and np.isfinite(x[2])
    x = R.wald(k, np.array([-1.0, 0.0, 2.0]))
    assert np.isnan(x[:2]).all() and np.isfinite(x[2])
    assert np.isnan(R.loggamma(k, -1.0, (3,))).all()
    assert np.isnan(R.generalized_normal(k, -1.0, (3,))).all()
    assert np.isnan(R.generalized_normal(k, 0.0, (3,))).all()
    assert np.isnan(R.ball(k, 2, -1.0)).all()
    np.testing.assert_array_equal(R.poisson(k, np.array([-1.0, np.nan, np.inf, 0.0])),
                                  [-1, -1, -1, 0])
    # limits that are not invalid
    assert np.all(R.pareto(k, 0.0, (3,)) == np.inf)
    assert np.all(R.chisquare(k, 0.0, (3,)) == 0)
    assert np.all(R.rayleigh(k, 0.0, (3,)) == 0)


def test_structural_errors_name_the_argument():
    k = R.key(0)
    with pytest.raises(ValueError, match="ball: d .* must be an integer >= 0"):
        R.ball(k, -1)
    with pytest.raises(TypeError, match="ball: d .* must be an integer"):
        R.ball(k, 2.5)
    with pytest.raises(TypeError, match="ball: p must be a scalar"):
        R.ball(k, 2, np.ones(2))
    with pytest.raises(TypeError, match="shape must be a tuple of non-negative integers"):
        R.cauchy(k, (2.5,))
    with pytest.raises(ValueError, match="parameter shapes .* do not broadcast together"):
        R.triangular(k, np.zeros(2), np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="p of shape"):
        R.generalized_normal(k, np.ones(3), (2,))
    with pytest.raises(ValueError, match="do not broadcast together"):
        R.double_sided_maxwell(k, np.zeros(2), np.ones(3))
    with pytest.raises(TypeError, match=r"uint32 array of shape \(2,\)"):
        R.poisson(R.split(k, 2), 3.0)
    with pytest.raises(TypeError, match="unroll must be an int or bool"):
        R.multinomial(k, 3, np.ones(2), unroll="no")


# ----------------------------------------------------------------------------- gradients
def _fd(fn, args, i, h=1e-6):
    up, dn = list(args), list(args)
    up[i], dn[i] = args[i] + h, args[i] - h
    return (fn(*up) - fn(*dn)) / (2 * h)


GRADS = {  # name: (f(key, *params) -> samples, params)
    "pareto": (lambda k, b: R.pareto(k, b, (50,)), (2.5,)),
    "rayleigh": (lambda k, s: R.rayleigh(k, s, (50,)), (1.7,)),
    "weibull_min": (lambda k, s, c: R.weibull_min(k, s, c, (50,)), (1.5, 0.8)),
    "triangular": (lambda k, a, m, b: R.triangular(k, a, m, b, (50,)), (-1.0, 0.5, 3.0)),
    "wald": (lambda k, m: R.wald(k, m, (50,)), (1.5,)),
    "lognormal": (lambda k, s: R.lognormal(k, s, (50,)), (0.7,)),
    "double_sided_maxwell": (lambda k, loc, s: R.double_sided_maxwell(k, loc, s, (50,)),
                             (0.3, 2.0)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_reparameterization_gradients_match_finite_differences(name):
    f, params = GRADS[name]
    k = R.key(7)
    weights = np.linspace(0.5, 1.5, 50)  # a weighted sum: every sample's slope counts

    def loss(*ps):
        return (f(k, *ps) * weights).sum()
    grads = fg.grad(loss, tuple(range(len(params))))(*params)
    for i in range(len(params)):
        want = _fd(lambda *ps: float(loss(*ps)), params, i)
        np.testing.assert_allclose(grads[i], want, rtol=1e-5, atol=1e-7)
    # per-sample slopes too (jacfwd), against finite differences of each sample
    jac = fg.jacfwd(lambda p0: f(k, p0, *params[1:]))(params[0])
    want = _fd(lambda *ps: np.asarray(f(k, *ps)), params, 0)
    np.testing.assert_allclose(jac, want, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("call", [lambda a: R.loggamma(R.key(0), a),
                                  lambda a: R.chisquare(R.key(0), a),
                                  lambda a: R.t(R.key(0), a),
                                  lambda a: R.f(R.key(0), a, 3.0),
                                  lambda a: R.generalized_normal(R.key(0), a)])
def test_gamma_based_samplers_have_no_shape_derivative(call):
    """As fg.random.gamma: no derivative in the gamma shape parameter (it raises rather
    than silently giving 0)."""
    with pytest.raises(NotImplementedError, match="stop_gradient"):
        fg.grad(call)(2.0)
    # with the parameter stopped, the rest of the computation still differentiates
    assert np.isfinite(fg.grad(lambda a: call(fg.stop_gradient(a)) * a)(2.0))


def test_integer_samplers_have_zero_derivative():
    k = R.key(0)
    assert fg.grad(lambda lam: R.poisson(k, lam).astype(np.float64))(3.0) == 0
    assert fg.grad(lambda p: R.binomial(k, 10.0, p))(0.3) == 0
    assert fg.grad(lambda n: R.binomial(k, n, 0.3))(10.0) == 0
    assert fg.grad(lambda p: R.geometric(k, p).astype(np.float64))(0.3) == 0
    g = fg.grad(lambda p: R.multinomial(k, 10.0, p).sum())(np.array([0.3, 0.7]))
    np.testing.assert_array_equal(g, [0.0, 0.0])


def test_multinomial_vmap_and_jit_over_n_and_p():
    f = lambda k, n, p: R.multinomial(k, n, p, shape=(2, 3))  # noqa: E731
    keys = R.split(R.key(9), 3)
    ns = np.array([5.0, 10.0, 1e6])
    ps = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [1.0, 1.0, 1.0]])
    eager = np.stack([f(keys[i], ns[i], ps[i]) for i in range(3)])
    np.testing.assert_array_equal(fg.vmap(f)(keys, ns, ps), eager)
    np.testing.assert_array_equal(np.stack([fg.jit(f)(keys[i], ns[i], ps[i])
                                            for i in range(3)]), eager)
    np.testing.assert_array_equal(eager.sum(-1), np.broadcast_to(ns[:, None], (3, 2)))
