"""fg.nn.initializers against jax.nn.initializers (JAX 0.10.2), distribution by distribution.

The random bits differ from JAX's (fg.random is its own generator), so these tests compare
what the draws are distributed as: shapes, dtypes, fans, variances, supports, orthogonality,
the complex conventions, errors, and the stax layers' defaults. Expected numbers marked
"JAX" were computed with jax.nn.initializers 0.10.2 (x64 enabled) and written out here, so
JAX is not needed to run this file.

Statistical checks are seeded (fixed keys, so they are deterministic) and their tolerances
sit far outside sampling noise: the sample standard deviation of n draws has a relative
standard error of about 1/sqrt(2n) (normal) or less (uniform, truncated normal), 0.3% for
the n = 60000 used below, so a 3% tolerance is 10 standard errors away.
"""
import math

import ml_dtypes
import numpy as np
import pytest

import fungrad as fg
from fungrad.nn import initializers as init

KEY = fg.random.key(0)
TRUNC_STD = 0.87962566103423978            # std of a standard normal truncated to [-2, 2]
COMPLEX_TRUNC_DIVISOR = 0.95311164380491208  # JAX's divisor for complex truncated normals
REL = 0.03                                  # relative tolerance of sample stds (10 SE)
SHAPE = (3, 100, 200)                       # 60000 draws: fan_in 300, fan_out 600

REAL_DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
COMPLEX_DTYPES = [np.complex64, np.complex128]


def _std(w):
    return float(np.sqrt(np.mean(np.abs(np.asarray(w).astype(np.complex128)) ** 2)))


# ------------------------------------------------------------------------- fans
@pytest.mark.parametrize("shape,axes,fans", [
    # JAX: jax._src.nn.initializers._compute_fans(shape, **axes)
    ((20, 30), {}, (20.0, 30.0)),
    ((3, 5, 16, 32), {}, (240.0, 480.0)),                      # HWIO conv kernel
    ((3, 3, 16, 32), dict(in_axis=(0, 1, 2)), (144.0, 32.0)),
    ((2, 3, 4, 5), dict(in_axis=1, out_axis=2, batch_axis=0), (15.0, 20.0)),
    ((2, 3, 4, 5), dict(in_axis=(1, 2), out_axis=3, batch_axis=(0,)), (12.0, 5.0)),
    ((32, 16, 3, 3), dict(in_axis=1, out_axis=0), (144.0, 288.0)),  # OIHW
    ((4, 5), dict(in_axis=0, out_axis=0), (5.0, 5.0)),
    ((4, 5), dict(in_axis=-1, out_axis=-2), (5.0, 4.0)),
    ((4, 5), dict(in_axis=0, out_axis=1, batch_axis=1), (0.8, 1.0)),
    ((2, 3), dict(in_axis=[0], out_axis=[1]), (2.0, 3.0)),
    # 0-d and 1-d weights, whose axes are named (JAX rejects only the default in_axis)
    ((5,), dict(in_axis=0, out_axis=0), (1.0, 1.0)),
    ((), dict(in_axis=(), out_axis=()), (1.0, 1.0)),
    ((5,), dict(in_axis=0, out_axis=()), (5.0, 1.0)),
    ((5,), dict(in_axis=-1), (1.0, 1.0)),
    ((6,), dict(in_axis=0, out_axis=0, batch_axis=0), (1 / 6, 1 / 6)),
])
def test_fans_match_jax_for_every_rank(shape, axes, fans):
    np.testing.assert_allclose(init.compute_fans(shape, **axes), fans, rtol=1e-15)


def test_fans_errors_name_the_argument():
    for shape in [(), (5,), 5]:      # JAX: "Can't compute ... with default in_axis"
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            init.compute_fans(shape)
    with pytest.raises(ValueError, match="in_axis"):
        init.compute_fans((2, 3), in_axis=5)
    for bad in ("a", 1.0, (0, 1.5), None):
        with pytest.raises(TypeError, match="in_axis must be an int or a sequence of ints"):
            init.compute_fans((2, 3), in_axis=bad)
    with pytest.raises(TypeError, match="batch_axis"):
        init.compute_fans((2, 3), batch_axis=0.0)


def test_variance_divides_by_fractional_fans_as_jax():
    # fan_in 0.24 (batch_axis is the out axis too): JAX's variance is 1 / 0.24, not
    # clamped to 1 / max(1, fan)
    assert init.compute_fans((120, 500), 0, 1, 1)[0] == pytest.approx(0.24)
    w = init.variance_scaling(1.0, "fan_in", "normal", in_axis=0, out_axis=1,
                              batch_axis=1)(KEY, (120, 500))
    np.testing.assert_allclose(w.std(), math.sqrt(1 / (120 / 500)), rtol=REL)
    # a 1-d weight with every axis named: fan 1 / n, so variance n
    w1 = init.lecun_normal(in_axis=0, out_axis=0, batch_axis=0)(KEY, (40000,))
    np.testing.assert_allclose(w1.std(), math.sqrt(40000), rtol=REL)
    assert init.lecun_normal(in_axis=(), out_axis=())(KEY, ()).shape == ()


# ------------------------------------------------------------- variance scaling
MODES = {"fan_in": 300.0, "fan_out": 600.0, "fan_avg": 450.0,
         "fan_geo_avg": math.sqrt(300.0 * 600.0)}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_variance_scaling_real_dtypes(mode, distribution, dtype):
    std = math.sqrt(2.0 / MODES[mode])
    w = init.variance_scaling(2.0, mode, distribution)(KEY, SHAPE, dtype)
    assert w.shape == SHAPE and w.dtype == np.dtype(dtype)
    w = np.asarray(w, np.float64)
    np.testing.assert_allclose(w.std(), std, rtol=REL)
    assert abs(w.mean()) < 0.05 * std
    if distribution == "truncated_normal":   # support +-2 stddevs of the untruncated normal
        bound = 2 * std / TRUNC_STD
        assert np.abs(w).max() <= bound * (1 + 2 ** -7)   # (bfloat16's rounding)
        assert np.abs(w).max() >= 0.99 * bound
    elif distribution == "uniform":
        bound = math.sqrt(3) * std
        assert np.abs(w).max() <= bound * (1 + 2 ** -7) and np.abs(w).max() >= 0.99 * bound


@pytest.mark.parametrize("distribution,second_moment,max_modulus", [
    # JAX: E|w|^2 / variance and max|w| / sqrt(variance) of variance_scaling's complex draws
    ("normal", 1.0, None),
    ("uniform", 1.0, math.sqrt(2)),                   # a disk of radius sqrt(2)
    # modulus of a unit complex normal cut at 2, divided by JAX's constant: E|w|^2 is
    # (1 - exp(-4)) ** -1 = 1.01866 times the variance (JAX measured 1.0206 at n = 1e6)
    ("truncated_normal", 1 / (1 - math.exp(-4)), 2 / COMPLEX_TRUNC_DIVISOR),
])
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_variance_scaling_complex_follows_jax(distribution, second_moment, max_modulus, dtype):
    variance = 2.0 / 300
    w = init.variance_scaling(2.0, "fan_in", distribution)(KEY, SHAPE, dtype)
    assert w.shape == SHAPE and w.dtype == np.dtype(dtype)
    w = np.asarray(w, np.complex128)
    np.testing.assert_allclose(np.mean(np.abs(w) ** 2), second_moment * variance, rtol=REL)
    # circular: real and imaginary parts alike and uncorrelated, E[w^2] = 0
    np.testing.assert_allclose(w.real.std(), w.imag.std(), rtol=REL)
    assert abs(np.mean(w ** 2)) < 0.02 * variance and abs(w.mean()) < 0.02 * math.sqrt(variance)
    if max_modulus is not None:
        # the largest modulus pins the scale constant: P(no draw in the top 0.2%) < e^-18
        top = np.abs(w).max() / math.sqrt(variance)
        assert max_modulus * 0.998 <= top <= max_modulus * (1 + 1e-6)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_named_complex_initializers(dtype):
    # JAX: glorot_uniform / he_normal accept complex dtypes (variance_scaling's conventions)
    for make, variance in [(init.glorot_uniform(), 2 / 500), (init.he_normal(), 2 / 200 * 1.01866)]:
        w = make(KEY, (200, 300), dtype)
        assert w.dtype == np.dtype(dtype)
        np.testing.assert_allclose(np.mean(np.abs(w) ** 2), variance, rtol=REL)


def test_variance_scaling_errors_name_the_argument():
    with pytest.raises(ValueError, match="mode must be"):
        init.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(ValueError, match="distribution must be"):
        init.variance_scaling(1.0, "fan_in", "cauchy")
    # JAX draws all-NaN weights for a negative scale (sqrt of a negative variance)
    with pytest.raises(ValueError, match="scale must be >= 0"):
        init.variance_scaling(-1.0, "fan_in", "normal")
    assert not init.variance_scaling(0.0, "fan_in", "normal")(KEY, (3, 3)).any()
    with pytest.raises(TypeError, match="float dtype"):
        init.glorot_uniform()(KEY, (3, 3), np.int32)    # JAX: ValueError, float dtype


def test_empty_weights_are_empty_arrays():
    # JAX raises ZeroDivisionError computing the fans; an empty weight has no draws to scale
    for shape in [(0, 5), (5, 0), (3, 0, 4)]:
        w = init.glorot_uniform()(KEY, shape)
        assert w.shape == shape
        assert init.orthogonal()(KEY, shape).shape == shape


# ---------------------------------------------------- normal, uniform, truncated, constant
@pytest.mark.parametrize("dtype", REAL_DTYPES + COMPLEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_normal_initializer_dtypes(dtype):
    w = init.normal(0.5)(KEY, (300, 200), dtype)
    assert w.shape == (300, 200) and w.dtype == np.dtype(dtype)
    np.testing.assert_allclose(_std(w), 0.5, rtol=REL)
    if np.dtype(dtype).kind == "c":   # JAX: parts of variance stddev**2 / 2 each
        np.testing.assert_allclose(np.asarray(w).real.std(), 0.5 / math.sqrt(2), rtol=REL)
        np.testing.assert_allclose(np.asarray(w).imag.std(), 0.5 / math.sqrt(2), rtol=REL)


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_uniform_and_truncated_normal_initializers(dtype):
    u = np.asarray(init.uniform(0.5)(KEY, (60000,), dtype), np.float64)
    assert u.min() >= 0 and u.max() < 0.5
    np.testing.assert_allclose(u.std(), 0.5 / math.sqrt(12), rtol=REL)
    t = np.asarray(init.truncated_normal(0.5)(KEY, (60000,), dtype), np.float64)
    assert np.abs(t).max() <= 1.0                 # +-2 stddev; no variance correction
    np.testing.assert_allclose(t.std(), 0.5 * TRUNC_STD, rtol=REL)
    t = np.asarray(init.truncated_normal(0.5, lower=-1.0, upper=3.0)(KEY, (60000,), dtype),
                   np.float64)
    assert t.min() >= -0.5 and t.max() <= 1.5
    np.testing.assert_allclose(t.mean(), 0.14104, rtol=REL)   # JAX: 0.1417 (n = 60000)


def test_uniform_with_a_negative_scale_draws_below_zero():
    # JAX: u * scale, so (scale, 0]; fungrad drew an empty [0, scale) range (all zeros)
    w = init.uniform(-2.0)(KEY, (60000,))
    assert w.max() <= 0 and w.min() > -2.0
    np.testing.assert_allclose(w.mean(), -1.0, rtol=REL)


def test_bad_arguments_of_simple_initializers():
    # JAX draws lower * stddev everywhere for lower > upper; fungrad drew NaNs
    with pytest.raises(ValueError, match="lower 2.0 is above upper -2.0"):
        init.truncated_normal(1.0, lower=2.0, upper=-2.0)
    # JAX: TypeError; numpy would drop the imaginary part
    with pytest.raises(TypeError, match="value .* is complex"):
        init.constant(1 + 2j)(KEY, (2,), np.float32)
    np.testing.assert_array_equal(init.constant(1 + 2j)(KEY, (2,), np.complex64), [1 + 2j] * 2)
    with pytest.raises(TypeError, match="float dtype"):
        init.uniform()(KEY, (2,), np.complex64)       # JAX: must be a float dtype


def test_an_int_shape_is_one_dimensional():
    # JAX canonicalizes a bare int shape to (n,)
    for make in (init.zeros, init.ones, init.constant(2.0), init.normal(), init.uniform(),
                 init.truncated_normal()):
        assert make(KEY, 5).shape == (5,)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        init.glorot_uniform()(KEY, 5)


@pytest.mark.parametrize("dtype", REAL_DTYPES + COMPLEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_constant_initializers_dtypes(dtype):
    for make, value in ((init.zeros, 0), (init.ones, 1), (init.constant(-7), -7)):
        w = make(KEY, (3, 2), dtype)
        assert w.dtype == np.dtype(dtype) and w.shape == (3, 2)
        assert (np.asarray(w) == value).all()


# ------------------------------------------------------------------- orthogonal
@pytest.mark.parametrize("shape,column_axis", [((7, 3), -1), ((3, 7), -1), ((5, 5), 0),
                                               ((2, 3, 4), -1), ((4, 2, 3), 0),
                                               ((2, 3, 4), 1), ((3, 2, 5, 2), -2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64] + COMPLEX_DTYPES,
                         ids=lambda d: np.dtype(d).name)
def test_orthogonal_tall_wide_batched_and_complex(shape, column_axis, dtype):
    w = init.orthogonal(scale=-1.5, column_axis=column_axis)(KEY, shape, dtype)
    assert w.shape == shape and w.dtype == np.dtype(dtype)
    m = np.moveaxis(np.asarray(w), column_axis, -1).reshape(-1, shape[column_axis])
    gram = m.conj().T @ m if m.shape[0] >= m.shape[1] else m @ m.conj().T
    atol = 1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(gram, 2.25 * np.eye(len(gram)), atol=atol)


def test_complex_orthogonal_is_haar_unitary():
    # JAX draws Haar unitaries: entries with real and imaginary parts alike; fungrad cast a
    # real orthogonal matrix (imaginary part zero)
    w = np.asarray(init.orthogonal()(KEY, (300, 200), np.complex128))
    np.testing.assert_allclose(w.imag.std(), w.real.std(), rtol=REL)
    np.testing.assert_allclose(w.real.std(), 1 / math.sqrt(2 * 300), rtol=REL)


def test_orthogonal_errors_name_the_argument():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        init.orthogonal()(KEY, (5,))
    with pytest.raises(ValueError, match="column_axis"):
        init.orthogonal(column_axis=2)(KEY, (4, 3))
    with pytest.raises(TypeError, match="column_axis must be an int"):
        init.orthogonal(column_axis=0.0)(KEY, (4, 3))


@pytest.mark.parametrize("shape,centre", [((3, 4, 4), (1,)), ((4, 3, 4, 5), (1, 1)),
                                          ((3, 3, 3, 2, 2), (1, 1, 1)), ((2, 2, 3), (0,))])
def test_delta_orthogonal(shape, centre):
    # JAX: zero but at spatial index (k - 1) // 2, which holds an orthogonal (in, out)
    w = np.asarray(init.delta_orthogonal(2.0)(KEY, shape))
    assert w.shape == shape and w.dtype == np.float64
    np.testing.assert_array_equal(np.argwhere(np.abs(w).sum((-2, -1)) > 0), [centre])
    mid = w[centre]
    np.testing.assert_allclose(mid @ mid.T, 4 * np.eye(shape[-2]), atol=1e-12)
    assert init.delta_orthogonal()(KEY, shape, np.float32).dtype == np.float32


def test_delta_orthogonal_errors():
    with pytest.raises(ValueError, match="3, 4 or 5 dimensions"):
        init.delta_orthogonal()(KEY, (4, 4))
    with pytest.raises(ValueError, match="in channels .* must not exceed"):
        init.delta_orthogonal()(KEY, (3, 5, 4))
    assert init.delta_orthogonal is fg.nn.initializers.delta_orthogonal


# ------------------------------------------------------- determinism, jit and vmap
@pytest.mark.parametrize("name,factory,shape,dtype", [
    # (factories, built in the test: a missing one fails its case, not the collection)
    ("complex truncated", lambda: init.variance_scaling(1.0, "fan_in", "truncated_normal"),
     (5, 4), np.complex64),
    ("complex uniform", lambda: init.glorot_uniform(), (5, 4), np.complex128),
    ("complex normal", lambda: init.normal(), (5, 4), np.complex64),
    ("geometric fans", lambda: init.variance_scaling(1.0, "fan_geo_avg", "normal"), (5, 4),
     np.float32),
    ("complex orthogonal", lambda: init.orthogonal(), (5, 4), np.complex64),
    ("delta orthogonal", lambda: init.delta_orthogonal(), (3, 3, 4), np.float32),
    ("negative uniform", lambda: init.uniform(-1.0), (5, 4), np.float32),
])
def test_fixed_per_key_under_jit_and_vmap(name, factory, shape, dtype):
    make = factory()
    keys = fg.random.split(KEY, 3)
    eager = make(KEY, shape, dtype)
    np.testing.assert_array_equal(eager, make(KEY, shape, dtype))
    jitted = fg.jit(lambda k: make(k, shape, dtype))(KEY)
    assert jitted.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(jitted, eager)
    batched = fg.vmap(lambda k: make(k, shape, dtype))(keys)
    assert batched.shape == (3,) + shape and batched.dtype == np.dtype(dtype)
    for i in range(3):
        np.testing.assert_array_equal(batched[i], make(keys[i], shape, dtype))
    assert not np.array_equal(batched[0], batched[1])


# ----------------------------------------------------------- stax layer defaults
def test_stax_layer_defaults_match_jax_stax():
    # jax.example_libraries.stax: Dense W glorot_normal(), b normal() (stddev 1e-2); the conv
    # layers W glorot_normal(rhs I axis, rhs O axis), b normal(1e-6) of shape (1, .., C)
    _, (W, b) = fg.nn.Dense(300)[0](KEY, (-1, 400))
    assert W.shape == (400, 300) and b.shape == (300,) and W.dtype == b.dtype == np.float64
    np.testing.assert_allclose(W.std(), math.sqrt(2 / 700), rtol=REL)
    assert np.abs(W).max() <= 2 * math.sqrt(2 / 700) / TRUNC_STD
    np.testing.assert_allclose(b.std(), 1e-2, rtol=0.15)   # 300 draws: SE 4%
    for layer, in_shape, w_shape, b_shape in [
            (fg.nn.Conv(64, (3, 3)), (2, 12, 12, 32), (3, 3, 32, 64), (1, 1, 1, 64)),
            (fg.nn.ConvTranspose(64, (3, 3)), (2, 12, 12, 32), (3, 3, 32, 64), (1, 1, 1, 64)),
            (fg.nn.GeneralConv(("NCHW", "OIHW", "NCHW"), 64, (3, 3)), (2, 32, 12, 12),
             (64, 32, 3, 3), (1, 64, 1, 1))]:
        _, (W, b) = layer[0](KEY, in_shape)
        assert W.shape == w_shape and b.shape == b_shape
        np.testing.assert_allclose(W.std(), math.sqrt(2 / (9 * 32 + 9 * 64)), rtol=REL)
        np.testing.assert_allclose(b.std(), 1e-6, rtol=0.3)   # 64 draws: SE 9%
    _, (beta, gamma) = fg.nn.BatchNorm()[0](KEY, (2, 5, 5, 7))
    np.testing.assert_array_equal(beta, np.zeros(7))
    np.testing.assert_array_equal(gamma, np.ones(7))
    _, (beta, gamma) = fg.nn.LayerNorm()[0](KEY, (2, 7))
    np.testing.assert_array_equal(beta, np.zeros(7))
    np.testing.assert_array_equal(gamma, np.ones(7))
    # (stax has no Embedding; fungrad's default is Flax's, N(0, 1 / features))
    _, table = fg.nn.Embedding(1000, 64)[0](KEY, (2, 3))
    assert table.shape == (1000, 64)
    np.testing.assert_allclose(table.std(), 1 / 8, rtol=REL)
