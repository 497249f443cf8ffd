"""More of optax's transformations, optimizers and schedules in fg.optim (AMSGrad, AdaBelief,
Yogi, NovoGrad, Adan, SM3, Rprop, signSGD/Signum, Polyak SGD, Fromage, optimistic methods,
lookahead, apply_every, centralize, adaptive clipping, ...) against independent NumPy
references written from the published formulas in optax 0.2.8's conventions (eps placement,
bias correction, state layout), over several steps, in float32 and float64, with schedules
as learning rates, eagerly and under fg.jit. (The references were checked once against
optax itself, with JAX's float64 enabled.)"""
import functools
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

from test_optim import leafwise, make_grads, make_params

optim = fg.optim
TOL = {np.float32: 3e-5, np.float64: 1e-12}


def loss_value(params):
    """The loss `value=` handed to Polyak's step (any number that changes with params)."""
    return np.asarray(1.0 + 0.5 * sum(float(np.sum(np.asarray(p, np.float64) ** 2))
                                      for p in params.values()))


def run_opt(opt, params, grads_seq, jit=False, with_value=False):
    """Params after each step; state and updates keep the params' dtype."""
    def step(params, state, grads, value=None):
        extra = {} if value is None else {"value": value}
        updates, state = opt.update(grads, state, params, **extra)
        return optim.apply_updates(params, updates), state, updates
    step = fg.jit(step) if jit else step
    state = opt.init(params)
    out = []
    for grads in grads_seq:
        value = loss_value(params) if with_value else None
        params, state, updates = step(params, state, grads, value)
        dtype = grads["w"].dtype
        for leaf in fg.tree.tree_leaves((params, updates, state)):
            leaf = np.asarray(leaf)
            if np.issubdtype(leaf.dtype, np.floating):
                assert leaf.dtype == dtype, (leaf.dtype, dtype)
        out.append(params)
    return out


def check_close(got, want, dtype):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for k in w:
            np.testing.assert_allclose(g[k], w[k], rtol=TOL[dtype], atol=TOL[dtype])


# --------------------------------------------------------------- NumPy references
# `ref(params, grads_list) -> list of params after each step` (test_optim's `leafwise`: per
# leaf, in the leaf's dtype; scalars made from the step count t are cast to it, as optax).

def rate(lr, t, dt):
    """The learning rate of step t (schedules see the count t - 1), in the leaf's dtype."""
    return dt(lr(t - 1) if callable(lr) else lr)


def zeros2(p):
    return (np.zeros_like(p), np.zeros_like(p))


def ref_amsgrad(lr, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0):
    def step(g, s, p, t):
        m, v, vmax = s
        dt = g.dtype.type
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        vmax = np.maximum(vmax, v / dt(1 - b2 ** t))
        u = (m / dt(1 - b1 ** t)) / (np.sqrt(vmax + eps_root) + eps)
        return -rate(lr, t, dt) * u, (m, v, vmax)
    return leafwise(step, lambda p: (np.zeros_like(p),) * 3)


def ref_adabelief(lr, b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16, nesterov=False):
    def step(g, s_, p, t):
        m, s = s_
        dt = g.dtype.type
        m = (1 - b1) * g + b1 * m
        s = (1 - b2) * (g - m) ** 2 + b2 * s + eps_root      # eps_root kept in the state
        if nesterov:
            m_hat = b1 * m / dt(1 - b1 ** (t + 1)) + (1 - b1) * g / dt(1 - b1 ** t)
        else:
            m_hat = m / dt(1 - b1 ** t)
        u = m_hat / (np.sqrt(s / dt(1 - b2 ** t)) + eps)
        return -rate(lr, t, dt) * u, (m, s)
    return leafwise(step, zeros2)


def ref_yogi(lr, b1=0.9, b2=0.999, eps=1e-3, init=1e-6):
    def step(g, s, p, t):
        m, v = s
        dt = g.dtype.type
        m = (1 - b1) * g + b1 * m
        v = v - (1 - b2) * np.sign(v - g * g) * g * g
        u = (m / dt(1 - b1 ** t)) / (np.sqrt(v / dt(1 - b2 ** t)) + eps)
        return -rate(lr, t, dt) * u, (m, v)
    return leafwise(step, lambda p: (np.full_like(p, init), np.full_like(p, init)))


def ref_novograd(lr, b1=0.9, b2=0.25, eps=1e-6, wd=0.0):
    def step(g, s, p, t):
        m, n = s
        dt = g.dtype.type
        sq = dt(np.sum(g * g))
        n = sq if t == 1 else dt((1 - b2) * sq + b2 * n)
        d = g / (np.sqrt(n) + eps) + wd * p
        m = d if t == 1 else b1 * m + d
        return -rate(lr, t, dt) * m, (m, n)
    return leafwise(step, lambda p: (np.zeros_like(p), p.dtype.type(0)))


def ref_adam_dir(b1=0.9, b2=0.999, eps=1e-8, nesterov=False):
    """Adam's direction for one leaf: `(g, (m, v), t) -> (u, (m, v))`."""
    def direction(g, s, t):
        m, v = s
        dt = g.dtype.type
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        if nesterov:
            m_hat = b1 * m / dt(1 - b1 ** (t + 1)) + (1 - b1) * g / dt(1 - b1 ** t)
        else:
            m_hat = m / dt(1 - b1 ** t)
        return m_hat / (np.sqrt(v / dt(1 - b2 ** t)) + eps), (m, v)
    return direction


def ref_nadamw(lr, wd):
    direction = ref_adam_dir(nesterov=True)

    def step(g, s, p, t):
        u, s = direction(g, s, t)
        return -rate(lr, t, g.dtype.type) * (u + wd * p), s
    return leafwise(step, zeros2)


def ref_adamaxw(lr, b1=0.9, b2=0.999, eps=1e-8, wd=1e-4):
    def step(g, s, p, t):
        m, n = s
        dt = g.dtype.type
        m = (1 - b1) * g + b1 * m
        n = np.maximum(b2 * n, np.abs(g) + eps)
        u = (m / dt(1 - b1 ** t)) / n + wd * p
        return -rate(lr, t, dt) * u, (m, n)
    return leafwise(step, zeros2)


def ref_sign_sgd(lr):
    return leafwise(lambda g, s, p, t: (-rate(lr, t, g.dtype.type) * np.sign(g), s),
                    lambda p: None)


def ref_signum(lr, beta=0.9):
    def step(g, m, p, t):
        m = (1 - beta) * g + beta * m
        return -rate(lr, t, g.dtype.type) * np.sign(m), m
    return leafwise(step, np.zeros_like)


def ref_rprop(lr, eta_minus=0.5, eta_plus=1.2, lo=1e-6, hi=50.0):
    def step(g, s, p, t):
        sizes, prev = s
        dt = g.dtype.type
        prod = g * prev
        grown = np.clip(sizes * np.where(prod > 0, dt(eta_plus), dt(eta_minus)), dt(lo), dt(hi))
        sizes = np.where(prod == 0, sizes, grown)
        # optax 0.2.8 applies the step recorded the step before (0 after a sign flip)
        u = np.where(prod < 0, 0, prev).astype(dt)
        prev = np.where(prod < 0, 0, sizes * np.sign(g)).astype(dt)
        return -u, (sizes, prev)
    return leafwise(step, lambda p: (np.full_like(p, lr), np.zeros_like(p)))


def ref_adan(lr, b1=0.98, b2=0.92, b3=0.99, eps=1e-8, eps_root=1e-8, wd=0.0):
    def step(g, s, p, t):
        m, v, n, prev = s
        dt = g.dtype.type
        d = np.zeros_like(g) if t == 1 else g - prev
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * d + b2 * v
        n = (1 - b3) * (g + (1 - b2) * d) ** 2 + b3 * n
        m_hat, v_hat, n_hat = m / dt(1 - b1 ** t), v / dt(1 - b2 ** t), n / dt(1 - b3 ** t)
        u = (m_hat + (1 - b2) * v_hat) / (np.sqrt(n_hat + eps_root) + eps) + wd * p
        return -rate(lr, t, dt) * u, (m, v, n, g)
    return leafwise(step, lambda p: (np.zeros_like(p),) * 4)


def ref_fromage(lr, min_norm=1e-6):
    def step(g, s, p, t):
        dt = g.dtype.type
        r = lr(t - 1) if callable(lr) else lr
        mult = 1 / math.sqrt(1 + r * r)
        pn, gn = max(np.linalg.norm(p), min_norm), max(np.linalg.norm(g), min_norm)
        u = g * dt(pn / gn)
        return u * dt(-r * mult) + dt(mult - 1) * p, s
    return leafwise(step, lambda p: None)


def ref_sm3(lr, b1=0.9, eps=1e-8):
    # b2 = 1: the accumulator is g**2 plus the min over the per-axis maxima (broadcast)
    def step(g, s, p, t):
        mus, nu = s
        dt = g.dtype.type
        if g.ndim == 1:
            a = g * g + mus[0]
            new_mus = [a]
        else:
            a = g * g + np.minimum(mus[0][:, None], mus[1][None, :])
            new_mus = [a.max(axis=1), a.max(axis=0)]
        inv = np.where(a > 0, 1 / np.sqrt(np.where(a > 0, a, 1) + dt(eps)), 0).astype(dt)
        nu = (1 - b1) * (g * inv) + b1 * nu
        return -dt(lr) * nu, (new_mus, nu)
    return leafwise(step, lambda p: ([np.zeros(n, p.dtype) for n in p.shape], np.zeros_like(p)))


def ref_optimistic(lr, alpha=1.0, beta=1.0, adam=False):
    direction = ref_adam_dir(nesterov=True)

    def step(g, s, p, t):
        adam_state, prev = s
        if adam:
            g, adam_state = direction(g, adam_state, t)
        prev = g if t == 1 else prev
        u = (alpha + beta) * g - beta * prev
        return -rate(lr, t, g.dtype.type) * u, (adam_state, g)
    return leafwise(step, lambda p: (zeros2(p), None))


def ref_then_sgd(lr, fn):
    """`fn(g, p) -> u` (a stateless transformation), then SGD with `lr`."""
    return leafwise(lambda g, s, p, t: (-rate(lr, t, g.dtype.type) * fn(g, p), s),
                    lambda p: None)


def ref_centralize(g, p):
    return g - g.mean(axis=1, keepdims=True) if g.ndim > 1 else g


def ref_adaptive_clip(clipping, eps=1e-3):
    def fn(g, p):
        axis = 0 if g.ndim == 2 else None
        gn = np.sqrt(np.sum(g * g, axis=axis, keepdims=True))
        pn = np.sqrt(np.sum(p * p, axis=axis, keepdims=True))
        mx = clipping * np.maximum(pn, eps)
        return np.where(gn < mx, g, g * (mx / np.maximum(gn, 1e-6)).astype(g.dtype))
    return fn


def ref_block_norm(g, p):
    return g * max(np.linalg.norm(p), p.dtype.type(1e-3))


def ref_nonnegative(lr):
    def step(g, s, p, t):
        u = -rate(lr, t, g.dtype.type) * g
        return np.where(p + u < 0, -p, u), s
    return leafwise(step, lambda p: None)


def ref_apply_every(lr, k):
    def step(g, s, p, t):
        count, acc = s
        c = count % k
        acc = (acc if c != 0 else np.zeros_like(acc)) + g
        out = acc if c == k - 1 else np.zeros_like(acc)
        return -rate(lr, t, g.dtype.type) * out, ((count + 1) % k, acc)
    return leafwise(step, lambda p: (0, np.zeros_like(p)))


def ref_polyak_sgd(max_lr=1.0, scaling=1.0, f_min=0.0, eps=0.0, variant="sps"):
    """Global (not per leaf): SGD's update `-scaling * g`, times Polyak's step computed
    from that update's squared global norm."""
    def ref(params, grads_seq):
        out, params = [], dict(params)
        for t, grads in enumerate(grads_seq, 1):
            dt = grads["w"].dtype.type
            u = {k: -rate(scaling, t, dt) * g for k, g in grads.items()}
            sq = sum(np.sum(x * x) for x in u.values())
            gap = dt(loss_value(params) - f_min)
            if variant == "sps+":
                gap = max(gap, dt(0))
            step = 0.0 if sq + eps <= np.finfo(float).eps else min(gap / (sq + eps), max_lr)
            params = {k: (params[k] + u[k] * dt(step)).astype(dt) for k in params}
            out.append(params)
        return out
    return ref


SCHED = optim.exponential_decay(0.1, 2, 0.5)


def sched_ref(c):
    return 0.1 * 0.5 ** (c / 2)


CASES = {
    "amsgrad": (lambda: optim.amsgrad(0.01), ref_amsgrad(0.01)),
    "amsgrad_schedule_eps_root": (lambda: optim.amsgrad(SCHED, eps=1e-4, eps_root=1e-6),
                                  ref_amsgrad(sched_ref, eps=1e-4, eps_root=1e-6)),
    "adabelief": (lambda: optim.adabelief(0.01), ref_adabelief(0.01)),
    "adabelief_nesterov_schedule": (lambda: optim.adabelief(SCHED, eps=1e-8, nesterov=True),
                                    ref_adabelief(sched_ref, eps=1e-8, nesterov=True)),
    "yogi": (lambda: optim.yogi(0.01), ref_yogi(0.01)),
    "yogi_schedule": (lambda: optim.yogi(SCHED, b1=0.5), ref_yogi(sched_ref, b1=0.5)),
    "novograd": (lambda: optim.novograd(0.01), ref_novograd(0.01)),
    "novograd_decay_schedule": (lambda: optim.novograd(SCHED, weight_decay=0.1),
                                ref_novograd(sched_ref, wd=0.1)),
    "nadamw": (lambda: optim.nadamw(0.01, weight_decay=0.1), ref_nadamw(0.01, 0.1)),
    "nadamw_schedule": (lambda: optim.nadamw(SCHED), ref_nadamw(sched_ref, 1e-4)),
    "adamaxw": (lambda: optim.adamaxw(0.01, weight_decay=0.1), ref_adamaxw(0.01, wd=0.1)),
    "adamaxw_schedule": (lambda: optim.adamaxw(SCHED), ref_adamaxw(sched_ref)),
    "sign_sgd": (lambda: optim.sign_sgd(0.01), ref_sign_sgd(0.01)),
    "sign_sgd_schedule": (lambda: optim.sign_sgd(SCHED), ref_sign_sgd(sched_ref)),
    "signum": (lambda: optim.signum(0.01, beta=0.5), ref_signum(0.01, 0.5)),
    "signum_schedule": (lambda: optim.signum(SCHED), ref_signum(sched_ref)),
    "rprop": (lambda: optim.rprop(0.01), ref_rprop(0.01)),
    "rprop_clipped": (lambda: optim.rprop(0.1, eta_minus=0.3, eta_plus=2.0,
                                          min_step_size=0.05, max_step_size=0.25),
                      ref_rprop(0.1, 0.3, 2.0, 0.05, 0.25)),
    "adan": (lambda: optim.adan(0.01), ref_adan(0.01)),
    "adan_decay_schedule": (lambda: optim.adan(SCHED, eps_root=0.0, weight_decay=0.1),
                            ref_adan(sched_ref, eps_root=0.0, wd=0.1)),
    "fromage": (lambda: optim.fromage(0.1), ref_fromage(0.1)),
    "fromage_schedule": (lambda: optim.fromage(SCHED), ref_fromage(sched_ref)),
    "sm3": (lambda: optim.sm3(0.1), ref_sm3(0.1)),
    "sm3_no_momentum": (lambda: optim.sm3(0.1, momentum=0.0), ref_sm3(0.1, b1=0.0)),
    "optimistic_gd": (lambda: optim.optimistic_gradient_descent(0.1, alpha=0.7, beta=0.4),
                      ref_optimistic(0.1, 0.7, 0.4)),
    "optimistic_gd_schedule": (lambda: optim.optimistic_gradient_descent(SCHED),
                               ref_optimistic(sched_ref)),
    "optimistic_adam_v2": (lambda: optim.optimistic_adam_v2(0.01, alpha=0.5, beta=0.8),
                           ref_optimistic(0.01, 0.5, 0.8, adam=True)),
    "optimistic_adam_v2_schedule": (lambda: optim.optimistic_adam_v2(SCHED),
                                     ref_optimistic(sched_ref, adam=True)),
    "centralize": (lambda: optim.chain(optim.centralize(), optim.sgd(0.1)),
                   ref_then_sgd(0.1, ref_centralize)),
    "adaptive_grad_clip": (lambda: optim.chain(optim.adaptive_grad_clip(0.3), optim.sgd(SCHED)),
                           ref_then_sgd(sched_ref, ref_adaptive_clip(0.3))),
    "scale_by_param_block_norm": (
        lambda: optim.chain(optim.scale_by_param_block_norm(), optim.sgd(0.1)),
        ref_then_sgd(0.1, ref_block_norm)),
    "stateless_with_tree_map": (
        lambda: optim.chain(optim.stateless_with_tree_map(lambda u, p: u + 0.5 * p),
                            optim.sgd(0.1)),
        ref_then_sgd(0.1, lambda g, p: g + 0.5 * p)),
    "set_to_zero": (lambda: optim.chain(optim.sgd(0.1), optim.set_to_zero()),
                    ref_then_sgd(0.0, lambda g, p: g)),
    "keep_params_nonnegative": (
        lambda: optim.chain(optim.sgd(SCHED), optim.keep_params_nonnegative()),
        ref_nonnegative(sched_ref)),
    "apply_every": (lambda: optim.chain(optim.apply_every(2), optim.sgd(SCHED)),
                    ref_apply_every(sched_ref, 2)),
    "apply_every_3": (lambda: optim.chain(optim.sgd(0.1), optim.apply_every(3)),
                      ref_apply_every(0.1, 3)),
}

# optimizers whose update takes the loss: `update(grads, state, params, value=loss)`
VALUE_CASES = {
    "polyak_sgd": (lambda: optim.polyak_sgd(), ref_polyak_sgd()),
    "polyak_sgd_scaled": (lambda: optim.polyak_sgd(max_learning_rate=0.05, scaling=0.5,
                                                   f_min=0.5, eps=0.1),
                          ref_polyak_sgd(0.05, 0.5, 0.5, 0.1)),
    "polyak_sgd_plus_schedule": (lambda: optim.polyak_sgd(scaling=SCHED, f_min=2.5,
                                                          variant="sps+"),
                                 ref_polyak_sgd(scaling=sched_ref, f_min=2.5, variant="sps+")),
}
ALL_CASES = {**CASES, **VALUE_CASES}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_matches_reference(name, dtype):
    make, ref = ALL_CASES[name]
    params, grads = make_params(dtype), make_grads(dtype)
    got = run_opt(make(), params, grads, with_value=name in VALUE_CASES)
    check_close(got, ref(params, grads), dtype)


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_jit_equals_eager(name):
    make, _ = ALL_CASES[name]
    params, grads = make_params(np.float32), make_grads(np.float32, 3)
    value = name in VALUE_CASES
    check_close(run_opt(make(), params, grads, jit=True, with_value=value),
                run_opt(make(), params, grads, with_value=value), np.float32)


# --------------------------------------------------------------- states as optax's

def test_state_types_and_fields_as_optax():
    p = make_params(np.float64)
    fields = {
        optim.scale_by_amsgrad(): ("count", "mu", "nu", "nu_max"),
        optim.scale_by_belief(): ("count", "mu", "nu"),
        optim.scale_by_yogi(): ("count", "mu", "nu"),
        optim.scale_by_novograd(): ("count", "mu", "nu"),
        optim.scale_by_adan(): ("m", "v", "n", "g", "t"),
        optim.scale_by_sm3(): ("mu", "nu"),
        optim.scale_by_rprop(0.1): ("step_sizes", "prev_updates"),
        optim.scale_by_optimistic_gradient(): ("is_initial_step", "previous_gradient"),
        optim.apply_every(2): ("count", "grad_acc"),
        optim.lookahead(optim.sgd(0.1), 2, 0.5): ("fast_state", "steps_since_sync"),
    }
    for t, want in fields.items():
        assert t.init(p)._fields == want
    assert type(optim.scale_by_yogi().init(p)).__name__ == "ScaleByAdamState"
    nu = optim.scale_by_novograd().init(p).nu
    assert {k: (v.shape, v.dtype) for k, v in nu.items()} == {
        "w": ((), np.float64), "b": ((), np.float64)}
    mu = optim.scale_by_sm3().init(p).mu
    assert [m.shape for m in mu["w"]] == [(3,), (2,)] and [m.shape for m in mu["b"]] == [(2,)]
    yogi = optim.scale_by_yogi(initial_accumulator_value=0.25).init(p)
    assert np.all(yogi.mu["w"] == 0.25) and np.all(yogi.nu["b"] == 0.25)
    assert np.all(optim.scale_by_rprop(0.3).init(p).step_sizes["w"] == 0.3)


def test_amsgrad_mu_dtype_and_no_bias_correction():
    p = {"w": np.ones(3)}
    t = optim.scale_by_amsgrad(mu_dtype=np.float32, bias_correction_mu=False,
                               bias_correction_nu=False, eps=0.0)
    state = t.init(p)
    assert state.mu["w"].dtype == np.float32 and state.nu["w"].dtype == np.float64
    u, state = t.update({"w": np.full(3, 2.0)}, state)
    assert state.mu["w"].dtype == np.float32
    np.testing.assert_allclose(u["w"], 0.2 / np.sqrt(0.004))   # m / sqrt(v), no debiasing
    # the max is over the second moment: a smaller gradient keeps the larger denominator
    u, state = t.update({"w": np.full(3, 0.1)}, state)
    m, v = 0.9 * 0.2 + 0.01, 0.999 * 0.004 + 0.001 * 0.01
    np.testing.assert_allclose(u["w"], m / np.sqrt(max(v, 0.004)), rtol=1e-6)


def test_novograd_needs_params_only_for_weight_decay():
    g = {"w": np.array([3.0, 4.0])}
    t = optim.scale_by_novograd(eps=0.0)
    np.testing.assert_allclose(t.update(g, t.init(g))[0]["w"], [0.6, 0.8])
    t = optim.scale_by_novograd(weight_decay=0.1)
    with pytest.raises(ValueError, match="scale_by_novograd.*params"):
        t.update(g, t.init(g))


def test_sm3_rejects_complex_params():
    with pytest.raises(ValueError, match="complex"):
        optim.scale_by_sm3().init({"w": np.ones(2, np.complex128)})


def test_rprop_skips_the_step_after_a_sign_flip_one_call_late_as_optax():
    t = optim.scale_by_rprop(0.1)
    s = t.init(np.zeros(1))
    outs, recorded = [], []
    for g in [1.0, 1.0, -1.0, -1.0, -1.0]:
        u, s = t.update(np.array([g]), s)
        outs.append(float(u[0]))
        recorded.append(float(s.prev_updates[0]))
    # grow 0.1 -> 0.12; flip: shrink to 0.06 and record 0; the next compares with 0: no
    # change; then grow to 0.072
    np.testing.assert_allclose(recorded, [0.1, 0.12, 0.0, -0.06, -0.072])
    # optax 0.2.8 returns the step recorded the call before (0 where the sign just flipped)
    np.testing.assert_allclose(outs, [0.0, 0.1, 0.0, 0.0, -0.06])


def test_optimistic_gradient_first_step_and_state():
    t = optim.scale_by_optimistic_gradient(alpha=0.5, beta=2.0)
    s = t.init(np.zeros(2))
    assert bool(s.is_initial_step)
    u, s = t.update(np.array([1.0, 2.0]), s)
    np.testing.assert_allclose(u, [0.5, 1.0])   # (alpha + beta) g - beta g
    assert not bool(s.is_initial_step)
    u, s = fg.jit(t.update)(np.array([3.0, 0.0]), s)
    np.testing.assert_allclose(u, [2.5 * 3 - 2.0, -4.0])


# --------------------------------------------------------------- Polyak: extra arguments

def test_polyak_value_reaches_through_nested_chains():
    t = optim.chain(optim.identity(), optim.chain(optim.scale(1.0), optim.scale_by_polyak()))
    g = np.array([3.0, 4.0])
    u, _ = t.update(g, t.init(g), value=np.array(50.0))
    np.testing.assert_allclose(u, [3.0, 4.0])     # min(50 / 25, 1) = 1
    u, _ = t.update(g, t.init(g), value=np.array(5.0))
    np.testing.assert_allclose(u, [0.6, 0.8])     # 5 / 25
    # a zero gradient gives a zero step (no 0 / 0); a loss below f_min: sps+ gives 0
    with np.errstate(all="raise"):
        u, _ = t.update(np.zeros(2), t.init(g), value=np.array(5.0))
    np.testing.assert_array_equal(u, [0.0, 0.0])
    plus = optim.scale_by_polyak(f_min=10.0, variant="sps+")
    np.testing.assert_array_equal(plus.update(g, (), value=np.array(5.0))[0], [0.0, 0.0])
    np.testing.assert_allclose(optim.scale_by_polyak(f_min=10.0).update(
        g, (), value=np.array(5.0))[0], g * (-5.0 / 25))
    with pytest.raises(ValueError, match="variant"):
        optim.scale_by_polyak(variant="sgd")
    with pytest.raises(TypeError, match="value"):
        optim.polyak_sgd().update(g, optim.polyak_sgd().init(g))


# --------------------------------------------------------------- lookahead

def ref_lookahead(lr, k, alpha, params, grads_seq, adam_reset=False):
    """The paper's two loops: k fast steps from the slow weights, then
    `slow += alpha (fast - slow)`, `fast = slow` (Adam's state reset then, if asked)."""
    fast, slow = dict(params), dict(params)
    direction = ref_adam_dir()
    states = {n: zeros2(p) for n, p in params.items()}
    count = 0   # Adam's step count (from the last reset)
    out = []
    for step, grads in enumerate(grads_seq, 1):
        count += 1
        for n in fast:
            if adam_reset:
                u, states[n] = direction(grads[n], states[n], count)
            else:
                u = grads[n]
            fast[n] = (fast[n] - fast[n].dtype.type(lr) * u).astype(fast[n].dtype)
        if step % k == 0:
            for n in fast:
                slow[n] = slow[n] + alpha * (fast[n] - slow[n])
                fast[n] = slow[n]
            if adam_reset:
                states = {n: zeros2(p) for n, p in params.items()}
                count = 0
        out.append((dict(fast), dict(slow)))
    return out


@pytest.mark.parametrize("use_jit", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fast, reset", [("sgd", False), ("adam", True)])
def test_lookahead_matches_the_two_loops(fast, reset, dtype, use_jit):
    lr, k, alpha = 0.1, 3, 0.5
    fast_opt = optim.sgd(lr) if fast == "sgd" else optim.adam(lr)
    opt = optim.lookahead(fast_opt, sync_period=k, slow_step_size=alpha, reset_state=reset)
    params0, grads = make_params(dtype), make_grads(dtype, 7)
    params = optim.LookaheadParams.init_synced(params0)
    state = opt.init(params)
    update = fg.jit(opt.update) if use_jit else opt.update
    want = ref_lookahead(lr, k, alpha, params0, grads, adam_reset=reset)
    for g, (fast_w, slow_w) in zip(grads, want):
        updates, state = update(g, state, params)
        params = optim.apply_updates(params, updates)
        assert isinstance(params, optim.LookaheadParams)
        for got, ref in ((params.fast, fast_w), (params.slow, slow_w)):
            for n in ref:
                assert got[n].dtype == dtype
                np.testing.assert_allclose(got[n], ref[n], rtol=TOL[dtype], atol=TOL[dtype])
    # plain params at init are taken as the fast ones; the update needs LookaheadParams
    assert fg.tree.tree_structure(opt.init(params0)) == fg.tree.tree_structure(state)
    with pytest.raises(ValueError, match="LookaheadParams"):
        opt.update(grads[0], state, params0)
    with pytest.raises(ValueError, match="sync_period"):
        optim.lookahead(fast_opt, 0, 0.5)


# --------------------------------------------------------------- MultiSteps + skip_large_updates

def test_skip_large_updates_in_multisteps():
    skip = functools.partial(optim.skip_large_updates, max_squared_norm=10.0)
    opt = optim.MultiSteps(optim.sgd(1.0), every_k_schedule=2, should_skip_update_fn=skip)
    params = np.zeros(2)
    state = opt.init(params)
    assert set(state.skip_state) == {"should_skip", "norm_squared"}
    for g in ([1.0, 1.0], [30.0, 40.0], [3.0, 0.0]):   # the large one is dropped
        updates, state = opt.update(np.array(g), state, params)
    np.testing.assert_allclose(updates, [-2.0, -0.5])
    assert bool(state.skip_state["should_skip"]) is False
    should, info = optim.skip_large_updates({"a": np.array([np.nan])}, 0, None, 1.0)
    assert bool(should) and np.isnan(info["norm_squared"])


# --------------------------------------------------------------- per-example clipping

@pytest.mark.parametrize("use_jit", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_per_example_global_norm_clip(dtype, use_jit):
    rng = np.random.default_rng(3)
    grads = {"w": rng.standard_normal((4, 3, 2)).astype(dtype),
             "b": rng.standard_normal((4, 2)).astype(dtype)}
    grads["w"][2] *= 0.01
    grads["b"][2] *= 0.01
    grads["w"][3] = 0
    grads["b"][3] = 0       # a zero example: multiplier 1, no 0 / 0
    clip = 1.0
    fn = fg.jit(optim.per_example_global_norm_clip, static_argnums=1) if use_jit else \
        optim.per_example_global_norm_clip
    with np.errstate(all="raise"):
        summed, num = fn(grads, clip)
    norms = np.sqrt(np.sum(grads["w"] ** 2, axis=(1, 2)) + np.sum(grads["b"] ** 2, axis=1))
    mult = np.where(norms == 0, 1.0, np.minimum(clip / np.where(norms == 0, 1, norms), 1.0))
    for k in grads:
        assert summed[k].shape == grads[k].shape[1:] and summed[k].dtype == dtype
        np.testing.assert_allclose(summed[k], np.tensordot(mult, grads[k], axes=1),
                                   rtol=TOL[dtype], atol=TOL[dtype])
    assert int(num) == int(np.sum(mult < 1)) == 2
    with pytest.raises(ValueError, match="batch"):
        optim.per_example_global_norm_clip({"a": np.ones((2, 3)), "b": np.ones((3, 2))}, 1.0)


# --------------------------------------------------------------- scale_gradient

def test_scale_gradient():
    x = {"a": np.array([1.0, -2.0]), "b": np.array(3.0)}

    def loss(x, scale):
        y = optim.scale_gradient(x, scale)
        return fnp.sum(y["a"] ** 2) + y["b"] ** 2

    for scale in (0.25, 1.0, 0.0, -2.0):
        assert float(loss(x, scale)) == 14.0      # the value is unchanged
        want = {"a": scale * 2 * x["a"], "b": scale * 2 * x["b"]}
        for grad in (fg.grad(loss)(x, scale), fg.jit(fg.grad(loss), static_argnums=1)(x, scale)):
            for k in x:
                np.testing.assert_allclose(grad[k], want[k])


# --------------------------------------------------------------- adaptive clipping, units

def test_adaptive_grad_clip_units_by_rank_and_axis():
    rng = np.random.default_rng(5)
    t = optim.adaptive_grad_clip(0.1)
    for shape, axis in [((4,), None), ((1, 5), None), ((3, 4), (0,)), ((2, 3, 4), (0,)),
                        ((2, 2, 3, 4), (0, 1, 2)), ((2, 2, 2, 3, 4), (0, 1, 2, 3))]:
        g, p = rng.standard_normal(shape), rng.standard_normal(shape)
        gn = np.sqrt(np.sum(g * g, axis=axis, keepdims=True))
        mx = 0.1 * np.maximum(np.sqrt(np.sum(p * p, axis=axis, keepdims=True)), 1e-3)
        want = np.where(gn < mx, g, g * mx / gn)
        np.testing.assert_allclose(t.update(g, (), p)[0], want, rtol=1e-12)
    g, p = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    gn, pn = np.linalg.norm(g, axis=1, keepdims=True), np.linalg.norm(p, axis=1, keepdims=True)
    np.testing.assert_allclose(optim.adaptive_grad_clip(0.1, axis=1).update(g, (), p)[0],
                               np.where(gn < 0.1 * pn, g, g * 0.1 * pn / gn), rtol=1e-12)
    with pytest.raises(ValueError, match="axis"):
        t.update(np.ones((2,) * 6), (), np.ones((2,) * 6))
    with pytest.raises(ValueError, match="params"):
        t.update(np.ones(2), ())


def test_stateless_helpers_without_params():
    t = optim.stateless_with_tree_map(lambda u, p: u * 2 if p is None else u + p)
    np.testing.assert_array_equal(t.update(np.ones(2), t.init(np.ones(2)))[0], [2.0, 2.0])
    np.testing.assert_array_equal(t.update(np.ones(2), (), np.ones(2))[0], [2.0, 2.0])
    for make in (optim.keep_params_nonnegative, optim.scale_by_param_block_norm):
        with pytest.raises(ValueError, match="params"):
            make().update(np.ones(2), ())
    # the norm floor has a finite (zero) derivative at zero params
    bn = optim.scale_by_param_block_norm(min_scale=1e-3)
    with np.errstate(all="raise"):
        grad = fg.grad(lambda p: fnp.sum(bn.update(np.ones(2), (), p)[0]))(np.zeros(2))
    np.testing.assert_array_equal(grad, [0.0, 0.0])


# --------------------------------------------------------------- schedules

def np_linear(init, end, steps, c):
    c = min(max(c, 0), steps)
    return init + (end - init) * c / steps


def np_warmup_cosine(init, peak, warmup, decay_steps, end, c):
    if c < warmup:
        return np_linear(init, peak, warmup, c)
    steps = decay_steps - warmup
    c = min(c - warmup, steps)
    alpha = end / peak
    return peak * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * c / steps)) + alpha)


def np_sgdr(c):
    cycles = [(0.0, 1.0, 2, 6, 0.1), (0.1, 0.5, 1, 5, 0.0), (0.0, 0.2, 0, 4, 0.05)]
    for init, peak, warmup, steps, end in cycles[:-1]:
        if c < steps:
            return np_warmup_cosine(init, peak, warmup, steps, end, c)
        c -= steps
    return np_warmup_cosine(*cycles[-1], c)


def np_linear_onecycle(c):
    # 20 steps, peak 2: 2/25 -> 2 on [0, 6), -> 2/25 on [6, 17), -> 2/25/1e4 on [17, 20)
    points = [(0, 2 / 25), (6, 2.0), (17, 2 / 25), (20, 2 / 25 / 1e4)]
    for (a, va), (b, vb) in zip(points, points[1:]):
        if c < b:
            return va + (vb - va) * (c - a) / (b - a)
    return points[-1][1]


SCHEDULES = {
    "warmup_constant": (optim.warmup_constant_schedule(0.1, 1.0, 4),
                        lambda c: np_linear(0.1, 1.0, 4, c)),
    "linear_onecycle": (optim.linear_onecycle_schedule(20, 2.0), np_linear_onecycle),
    "sgdr": (optim.sgdr_schedule([
        dict(init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=6, end_value=0.1),
        dict(init_value=0.1, peak_value=0.5, warmup_steps=1, decay_steps=5),
        dict(init_value=0.0, peak_value=0.2, warmup_steps=0, decay_steps=4,
             end_value=0.05)]), np_sgdr),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_matches_formula_eager_and_traced(name):
    sched, ref = SCHEDULES[name]
    jitted = fg.jit(sched)
    for c in range(0, 25):
        np.testing.assert_allclose(sched(c), ref(c), rtol=1e-12, atol=1e-15,
                                   err_msg=f"count={c}")
        np.testing.assert_allclose(jitted(np.asarray(c, np.int32)), ref(c), rtol=1e-12,
                                   atol=1e-15, err_msg=f"jit, count={c}")
    assert jitted.cache_info().misses == 1
    with pytest.raises(ValueError, match="transition_steps"):
        optim.linear_onecycle_schedule(0, 1.0)


# --------------------------------------------------------------- bfloat16 and extra args

@pytest.mark.parametrize("name", ["amsgrad", "adabelief", "yogi", "novograd", "nadamw",
                                  "adamaxw", "sign_sgd", "signum", "adan", "fromage", "sm3",
                                  "optimistic_gradient_descent", "optimistic_adam_v2"])
def test_eager_bfloat16_keeps_the_dtype_as_under_jit(name):
    import ml_dtypes
    p = {"w": np.ones((2, 3), ml_dtypes.bfloat16), "b": np.ones(3, ml_dtypes.bfloat16)}
    g = fg.tree.tree_map(lambda x: np.full(x.shape, 0.5, x.dtype), p)
    opt = getattr(optim, name)(1e-2)
    state = opt.init(p)
    u, new_state = opt.update(g, state, p)
    uj, _ = fg.jit(opt.update)(g, state, p)
    for k in p:
        assert u[k].dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(u[k], uj[k])
    for leaf in fg.tree.tree_leaves(new_state):
        if np.issubdtype(np.asarray(leaf).dtype, np.floating) or \
                np.asarray(leaf).dtype == ml_dtypes.bfloat16:
            assert leaf.dtype == ml_dtypes.bfloat16, (name, leaf.dtype)


def test_chain_without_extra_args_is_unchanged():
    # a transformation that takes no extra keyword is called as before, without them
    seen = []

    def plain(updates, state, params=None):
        seen.append(params)
        return updates, state
    t = optim.chain(optim.GradientTransformation(lambda p: (), plain), optim.scale_by_polyak())
    u, _ = t.update(np.array([3.0, 4.0]), t.init(np.zeros(2)), None, value=np.array(5.0))
    np.testing.assert_allclose(u, [0.6, 0.8])
    assert seen == [None]
