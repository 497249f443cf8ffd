"""Regressions from a differential sweep of fg.optim against optax 0.2.8: each test pins one
place where fungrad's answer differed from optax's. The expected values come from NumPy
references written from the published formulas (optax's conventions), or from behaviour
observed in optax and stated in a comment; optax itself is not needed here."""
import ml_dtypes
import numpy as np
import pytest

import fungrad as fg

optim = fg.optim
BF16 = np.dtype(ml_dtypes.bfloat16)


# --------------------------------------------------------------- NaN gradients in adagrad

@pytest.mark.parametrize("use_jit", [False, True])
def test_adagrad_nan_gradient_gives_a_nan_update_not_a_silent_zero(use_jit):
    # optax multiplies the gradient by `where(s > 0, rsqrt(s + eps), 0)`: a NaN gradient
    # makes s NaN, and 0 * NaN is NaN, so the NaN reaches the parameter where it shows.
    # The old `where(s > 0, g / sqrt(s + eps), 0)` returned 0 and froze that parameter.
    opt = optim.adagrad(0.1)
    params = np.zeros(3)
    update = fg.jit(opt.update) if use_jit else opt.update
    updates, state = update(np.array([np.nan, 1.0, 0.0]), opt.init(params), params)
    assert np.isnan(updates[0])
    np.testing.assert_allclose(updates[1:], [-0.1 / np.sqrt(1.1 + 1e-7), 0.0], rtol=1e-12)
    # a zero accumulator (initial value 0, zero gradient) still gives 0, without a warning
    opt0 = optim.adagrad(0.1, initial_accumulator_value=0.0, eps=0.0)
    with np.errstate(all="raise"):
        updates, _ = opt0.update(np.array([0.0, 2.0]), opt0.init(np.zeros(2)))
    np.testing.assert_array_equal(updates, [0.0, -0.1])


# --------------------------------------------------------------- complex gradients

def _complex(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _abs_sq(x):
    return (x * np.conj(x)).real


def _rms(x):
    return np.sqrt(np.mean(_abs_sq(x)))


# Each reference is one step from a fresh state, written from the formula with `|g|**2`
# (optax's abs_sq) wherever a square enters a second moment, a norm or an rms.
COMPLEX_CASES = {
    "scale_by_rms": (lambda: optim.scale_by_rms(decay=0.9, eps=1e-8),
                     lambda g, p: g / np.sqrt(0.1 * _abs_sq(g) + 1e-8)),
    "scale_by_stddev": (lambda: optim.scale_by_stddev(decay=0.9, eps=1e-8),
                        lambda g, p: g / np.sqrt(0.1 * _abs_sq(g) - _abs_sq(0.1 * g) + 1e-8)),
    "scale_by_rss": (lambda: optim.scale_by_rss(0.1, 1e-7),
                     lambda g, p: g / np.sqrt(0.1 + _abs_sq(g) + 1e-7)),
    "clip_by_block_rms": (lambda: optim.clip_by_block_rms(0.5),
                          lambda g, p: g / max(1.0, _rms(g) / 0.5)),
    "scale_by_trust_ratio": (lambda: optim.scale_by_trust_ratio(),
                             lambda g, p: g * np.linalg.norm(p) / np.linalg.norm(g)),
    "scale_by_param_block_rms": (lambda: optim.scale_by_param_block_rms(),
                                 lambda g, p: g * max(_rms(p), 1e-3)),
    # first step: decay 1 - 1**-0.8 = 0, so V = |g|**2 + eps exactly
    "scale_by_factored_rms_whole": (lambda: optim.scale_by_factored_rms(factored=False),
                                    lambda g, p: g / np.sqrt(_abs_sq(g) + 1e-30)),
    # (2, 3): row statistic over axis 1, column statistic over axis 0, V = outer / mean(row)
    "scale_by_factored_rms_factored": (
        lambda: optim.scale_by_factored_rms(min_dim_size_to_factor=2),
        lambda g, p: g / np.sqrt(np.outer(np.mean(_abs_sq(g) + 1e-30, axis=1),
                                          np.mean(_abs_sq(g) + 1e-30, axis=0))
                                 / np.mean(np.mean(_abs_sq(g) + 1e-30, axis=1)))),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_CASES))
def test_complex_gradients_use_the_squared_modulus(name):
    # `g * g` is a complex square (its phase doubles, its real part can be negative), so
    # the old statistics were wrong for complex leaves; optax uses |g|**2
    make, reference = COMPLEX_CASES[name]
    g, p = _complex((2, 3), 0), _complex((2, 3), 1)
    t = make()
    for update in (t.update, fg.jit(t.update)):
        out, _ = update(g, t.init(p), p)
        assert out.dtype == np.complex128
        np.testing.assert_allclose(out, reference(g, p), rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------- float16 adam with eps_root

@pytest.mark.parametrize("name", ["adam", "adamw"])
@pytest.mark.parametrize("use_jit", [False, True])
def test_adam_float16_eps_root_keeps_zero_gradients_finite(name, use_jit):
    # the folded form adds eps_root * (1 - b2**t) to v; in float16 that product (1e-9)
    # flushes to 0 where eps_root = 1e-6 does not, and a zero gradient gave 0 / 0 = NaN.
    # optax (unfolded: sqrt(v_hat + eps_root)) returns 0 there.
    opt = getattr(optim, name)(0.1, eps_root=1e-6, **({"weight_decay": 0.0}
                                                      if name == "adamw" else {}))
    params = np.ones(3, np.float16)
    update = fg.jit(opt.update) if use_jit else opt.update
    state = opt.init(params)
    for _ in range(3):
        updates, state = update(np.zeros(3, np.float16), state, params)
        assert updates.dtype == np.float16
        np.testing.assert_array_equal(updates, np.zeros(3, np.float16))


def test_adam_float16_matches_the_unfolded_formula():
    # a NumPy float16 reference, in optax's order: m_hat, v_hat, the direction, times -lr
    b1, b2, eps, eps_root, lr = 0.9, 0.999, 1e-8, 1e-6, 0.1
    f16 = np.float16
    grads = [np.array([0.5, -0.01, 0.0, 2.0], f16), np.array([0.25, 0.02, 0.0, -1.0], f16)]
    opt = optim.adam(lr, b1, b2, eps, eps_root)
    params = np.zeros(4, f16)
    state = opt.init(params)
    m = v = np.zeros(4, f16)
    for t, g in enumerate(grads, 1):
        updates, state = opt.update(g, state, params)
        m = (f16(1 - b1) * g + f16(b1) * m).astype(f16)
        v = (f16(1 - b2) * g * g + f16(b2) * v).astype(f16)
        m_hat, v_hat = m / f16(1 - b1 ** t), v / f16(1 - b2 ** t)
        want = m_hat / (np.sqrt(v_hat + f16(eps_root)) + f16(eps)) * f16(-lr)
        assert np.all(np.isfinite(updates))
        np.testing.assert_allclose(updates.astype(np.float64), want.astype(np.float64),
                                   rtol=5e-3, atol=1e-4)


# --------------------------------------------------------------- zero_nans' state

@pytest.mark.parametrize("use_jit", [False, True])
def test_zero_nans_state_records_per_leaf_whether_a_nan_was_found(use_jit):
    # optax's zero_nans keeps ZeroNansState(found_nan): the params' tree of 0-d bools
    t = optim.zero_nans()
    params = {"a": np.zeros(2, np.float32), "b": np.zeros(3, np.float32), "c": None}
    state = t.init(params)
    assert fg.tree.tree_structure(state.found_nan) == fg.tree.tree_structure(params)
    assert not any(bool(x) for x in fg.tree.tree_leaves(state.found_nan))
    update = fg.jit(t.update) if use_jit else t.update
    grads = {"a": np.array([np.nan, 1.0], np.float32), "b": np.ones(3, np.float32), "c": None}
    updates, state = update(grads, state)
    np.testing.assert_array_equal(updates["a"], np.array([0.0, 1.0], np.float32))
    assert updates["a"].dtype == np.float32
    assert bool(state.found_nan["a"]) and not bool(state.found_nan["b"])
    assert all(np.asarray(x).dtype == np.bool_ and np.ndim(x) == 0
               for x in fg.tree.tree_leaves(state.found_nan))
    _, state = update({"a": np.ones(2, np.float32), "b": np.ones(3, np.float32), "c": None},
                      state)
    assert not bool(state.found_nan["a"])


# --------------------------------------------------------------- MultiSteps accumulator

@pytest.mark.parametrize("use_jit", [False, True])
def test_multisteps_accumulates_bfloat16_gradients_in_float32(use_jit):
    # optax's MultiSteps keeps its accumulator in float32 (accumulator_dtype). In bfloat16,
    # 256 + 1 rounds back to 256 (8 significant bits), so a bfloat16 sum of 256, 1, 1 is
    # 256; in float32 it is 258, which bfloat16 holds exactly.
    params = np.zeros(1, BF16)
    grads = [np.array([256.0], BF16), np.array([1.0], BF16), np.array([1.0], BF16)]
    for acc_dtype, want, stored in ((np.float32, -258.0, np.float32), (None, -256.0, BF16)):
        opt = optim.MultiSteps(optim.sgd(1.0), 3, use_grad_mean=False,
                               accumulator_dtype=acc_dtype)
        update = fg.jit(opt.update) if use_jit else opt.update
        state = opt.init(params)
        assert state.acc_grads.dtype == stored
        for g in grads:
            updates, state = update(g, state, params)
            assert state.acc_grads.dtype == stored and updates.dtype == BF16
        np.testing.assert_array_equal(updates.astype(np.float32), [want])


def test_multisteps_accumulator_dtype_is_float32_by_default_as_optax():
    # float64 params: optax stores the running mean in float32, and the inner optimizer
    # sees it cast back to the gradients' dtype
    params = {"w": np.zeros(2), "z": np.zeros(2, np.complex128)}
    opt = optim.MultiSteps(optim.sgd(1.0), 2)
    state = opt.init(params)
    assert state.acc_grads["w"].dtype == np.float32
    assert state.acc_grads["z"].dtype == np.complex128   # (a real one would drop imag)
    g = np.array([0.1, 1.0 / 3.0])
    _, state = opt.update({"w": g, "z": g * 1j}, state, params)
    updates, state = opt.update({"w": g, "z": g * 1j}, state, params)
    assert updates["w"].dtype == np.float64
    stored = g.astype(np.float32).astype(np.float64)    # the first mean, kept in float32
    np.testing.assert_array_equal(updates["w"], -(stored + (g - stored) / 2))
    assert not np.array_equal(updates["w"], -g)          # (float64 all the way would be -g)
    np.testing.assert_allclose(updates["z"], -g * 1j, rtol=1e-15)


def test_skip_not_finite_reports_its_skip_state_as_optax():
    # optax's skip_not_finite returns {'should_skip', 'num_not_finite'} as the skip state
    skip, info = optim.skip_not_finite({"a": np.array([np.nan, 1.0, np.inf]),
                                        "b": np.float32(-np.inf)}, 0, None)
    assert bool(skip) and sorted(info) == ["num_not_finite", "should_skip"]
    assert int(info["num_not_finite"]) == 3 and bool(info["should_skip"])
    skip, info = optim.skip_not_finite({}, 0, None)
    assert not bool(skip) and int(info["num_not_finite"]) == 0
    opt = optim.MultiSteps(optim.sgd(1.0), 2, use_grad_mean=False,
                           should_skip_update_fn=optim.skip_not_finite)
    update = fg.jit(opt.update)
    state = opt.init(np.zeros(2))
    _, state = update(np.array([1.0, 1.0]), state)
    _, state = update(np.array([np.nan, 1.0]), state)
    assert int(state.skip_state["num_not_finite"]) == 1 and int(state.mini_step) == 1
    updates, state = update(np.array([3.0, 3.0]), state)
    np.testing.assert_array_equal(updates, [-4.0, -4.0])
    assert int(state.skip_state["num_not_finite"]) == 0


# --------------------------------------------------------------- inject_hyperparams

def test_inject_hyperparams_static_args_string_is_one_name():
    # optax reads a string as one argument name; a substring test made "eps_root" also
    # freeze `eps` (so `state.hyperparams["eps"]` was missing)
    opt = optim.inject_hyperparams(optim.adam, static_args="eps_root")(0.1, eps_root=1e-3)
    state = opt.init(np.zeros(2))
    assert sorted(state.hyperparams) == ["b1", "b2", "eps", "learning_rate"]
    with pytest.raises(ValueError, match="static_args"):
        optim.inject_hyperparams(optim.adam, static_args=("not_an_argument",))


def test_inject_hyperparams_dtype_is_the_widest_of_the_params():
    # optax: tree.dtype(params, 'highest'), so a float64 leaf anywhere makes the
    # hyperparameters float64 (before: the first float leaf's dtype, float32 here)
    params = {"a": np.zeros(2, np.float32), "b": np.zeros(2, np.float64)}
    opt = optim.inject_hyperparams(optim.sgd)(learning_rate=0.1)
    state = opt.init(params)
    assert state.hyperparams["learning_rate"].dtype == np.float64
    _, state = opt.update(params, state, params)
    assert state.hyperparams["learning_rate"].dtype == np.float64
    # hyperparam_dtype overrides it (optax's argument)
    opt = optim.inject_hyperparams(optim.adam, hyperparam_dtype=np.float32)(learning_rate=0.1)
    state = opt.init(params)
    assert {v.dtype for v in state.hyperparams.values()} == {np.dtype(np.float32)}
    _, state = opt.update(params, state, params)
    assert {v.dtype for v in state.hyperparams.values()} == {np.dtype(np.float32)}
