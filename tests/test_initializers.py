"""fg.nn.initializers: jax.nn.initializers' semantics (variances by fan mode and distribution,
fans of conv kernels, shapes, dtypes, determinism per key, orthogonality)."""
import doctest
import math

import numpy as np
import pytest

import fungrad as fg
from fungrad.nn import initializers as init

KEY = fg.random.key(0)
TRUNC_STD = 0.87962566103423978


def test_fans_count_the_receptive_field():
    assert init.compute_fans((20, 30)) == (20.0, 30.0)
    assert init.compute_fans((3, 5, 16, 32)) == (3 * 5 * 16.0, 3 * 5 * 32.0)
    assert init.compute_fans((4, 6, 8), in_axis=0, out_axis=1, batch_axis=2) == (4.0, 6.0)
    with pytest.raises(ValueError, match=r"at least 2 dimensions.*\(5,\)"):
        init.compute_fans((5,))


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
def test_variance_scaling_variance_matches_the_formula(mode, distribution):
    shape = (3, 40, 50)                   # receptive field 3: fan_in 120, fan_out 150
    fan_in, fan_out = 120.0, 150.0
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    w = init.variance_scaling(2.0, mode, distribution)(KEY, shape)
    assert w.shape == shape and w.dtype == np.float64
    assert abs(w.mean()) < 0.01
    np.testing.assert_allclose(w.var(), 2.0 / n, rtol=0.05)
    bound = {"truncated_normal": 2 * math.sqrt(2.0 / n) / TRUNC_STD,
             "uniform": math.sqrt(3 * 2.0 / n), "normal": np.inf}[distribution]
    assert np.abs(w).max() <= bound


NAMED = {  # name -> (scale, mode, distribution), as jax.nn.initializers
    "glorot_uniform": (1.0, "fan_avg", "uniform"), "glorot_normal": (1.0, "fan_avg", "truncated_normal"),
    "xavier_uniform": (1.0, "fan_avg", "uniform"), "xavier_normal": (1.0, "fan_avg", "truncated_normal"),
    "he_uniform": (2.0, "fan_in", "uniform"), "he_normal": (2.0, "fan_in", "truncated_normal"),
    "kaiming_uniform": (2.0, "fan_in", "uniform"), "kaiming_normal": (2.0, "fan_in", "truncated_normal"),
    "lecun_uniform": (1.0, "fan_in", "uniform"), "lecun_normal": (1.0, "fan_in", "truncated_normal"),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_initializers_are_their_variance_scaling(name):
    scale, mode, dist = NAMED[name]
    w = getattr(fg.nn, name)()(KEY, (30, 20))
    np.testing.assert_array_equal(w, init.variance_scaling(scale, mode, dist)(KEY, (30, 20)))
    assert getattr(init, name) is getattr(fg.nn, name)


def test_dtype_and_determinism_per_key():
    for make in (init.glorot_uniform(), init.he_normal(), init.normal(), init.uniform(),
                 init.truncated_normal(), init.orthogonal(), init.constant(2.0)):
        a = make(KEY, (6, 4), np.float32)
        assert a.dtype == np.float32 and a.shape == (6, 4)
        np.testing.assert_array_equal(a, make(KEY, (6, 4), np.float32))
        assert make(KEY, (6, 4)).dtype == np.float64       # fungrad's default float
    k1, k2 = fg.random.split(KEY)
    assert not np.array_equal(init.normal()(k1, (5,)), init.normal()(k2, (5,)))
    # a factory's dtype is the default of its init
    assert init.lecun_normal(dtype=np.float32)(KEY, (3, 3)).dtype == np.float32


def test_simple_initializers():
    np.testing.assert_array_equal(init.zeros(KEY, (2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(init.ones(KEY, (2,), np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(init.constant(-1.5)(KEY, (2,)), [-1.5, -1.5])
    w = init.normal(0.5)(KEY, (20000,))
    np.testing.assert_allclose(w.std(), 0.5, rtol=0.03)
    u = init.uniform(0.3)(KEY, (20000,))
    assert u.min() >= 0 and u.max() < 0.3 and abs(u.mean() - 0.15) < 0.005
    t = init.truncated_normal(0.5)(KEY, (20000,))
    assert np.abs(t).max() <= 1.0
    np.testing.assert_allclose(t.std(), 0.5 * TRUNC_STD, rtol=0.03)  # no correction here


@pytest.mark.parametrize("shape,column_axis", [((5, 5), -1), ((7, 3), -1), ((3, 7), -1),
                                               ((2, 3, 4), -1), ((4, 2, 3), 0)])
def test_orthogonal_is_orthogonal(shape, column_axis):
    w = init.orthogonal(scale=2.0, column_axis=column_axis)(KEY, shape)
    assert w.shape == shape
    m = np.moveaxis(w, column_axis, -1).reshape(-1, shape[column_axis]) / 2.0
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)


def test_initializers_run_under_jit_and_vmap_over_keys():
    make = init.he_uniform()
    keys = fg.random.split(KEY, 3)
    batched = fg.vmap(lambda k: make(k, (4, 2)))(keys)
    for i in range(3):
        np.testing.assert_allclose(batched[i], make(keys[i], (4, 2)), rtol=1e-15)
    np.testing.assert_allclose(fg.jit(lambda k: make(k, (4, 2)))(KEY), make(KEY, (4, 2)),
                               rtol=1e-15)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="mode"):
        init.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(ValueError, match="distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")


def test_docstrings_and_examples():
    for name in init.__all__:
        f = getattr(init, name)
        if name == "Initializer":
            continue
        assert f.__doc__ and "Example" in f.__doc__, name
    result = doctest.testmod(init, extraglobs={"fg": fg, "np": np})
    assert result.attempted > 0 and result.failed == 0
