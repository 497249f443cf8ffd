"""fg.optim against independent NumPy references written from the published formulas (optax's
conventions: eps placement, bias correction, decay x lr in adamw, adagrad's initial
accumulator, ...), over several steps, in float32 and float64, eagerly and under fg.jit."""
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

optim = fg.optim
STEPS = 5
TOL = {np.float32: 2e-5, np.float64: 1e-12}


def make_params(dtype):
    rng = np.random.default_rng(0)
    return {"w": rng.standard_normal((3, 2)).astype(dtype),
            "b": rng.standard_normal(2).astype(dtype)}


def make_grads(dtype, steps=STEPS):
    rng = np.random.default_rng(1)
    return [{"w": rng.standard_normal((3, 2)).astype(dtype),
             "b": rng.standard_normal(2).astype(dtype)} for _ in range(steps)]


def run_opt(opt, params, grads_seq, jit=False, state_dtypes=()):
    """Params after each step, checking that state and updates keep the params' dtype (state
    leaves may also have one of `state_dtypes`, where optax stores them so)."""
    def step(params, state, grads):
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, updates
    step = fg.jit(step) if jit else step
    state = opt.init(params)
    out = []
    for grads in grads_seq:
        params, state, updates = step(params, state, grads)
        dtype = grads["w"].dtype
        for tree, allowed in (((params, updates), (dtype,)), (state, (dtype, *state_dtypes))):
            for leaf in fg.tree.tree_leaves(tree):
                leaf = np.asarray(leaf)
                if np.issubdtype(leaf.dtype, np.floating):
                    assert leaf.dtype in allowed, (leaf.dtype, dtype)
        out.append(params)
    return out


# --------------------------------------------------------------- NumPy references, per leaf
# Each is `ref(p, grads_list) -> list of p after each step`, one leaf at a time, in the
# leaf's dtype (scalars made from the step count are cast to it, as optax does).

def leafwise(step_fn, init_fn):
    def ref(params, grads_seq):
        states = {k: init_fn(v) for k, v in params.items()}
        out, params = [], dict(params)
        for t, grads in enumerate(grads_seq, 1):
            new = {}
            for k in params:
                u, states[k] = step_fn(grads[k], states[k], params[k], t)
                new[k] = (params[k] + u).astype(params[k].dtype)
            params = new
            out.append(params)
        return out
    return ref


def ref_sgd(lr, momentum=None, nesterov=False):
    def step(g, tr, p, t):
        if momentum is None:
            return -lr * g, tr
        tr = g + momentum * tr
        return -lr * (g + momentum * tr if nesterov else tr), tr
    return leafwise(step, np.zeros_like)


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, wd=None, nesterov=False):
    def step(g, s, p, t):
        m, v = s
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        dt = g.dtype.type
        if nesterov:
            m_hat = b1 * m / dt(1 - b1 ** (t + 1)) + (1 - b1) * g / dt(1 - b1 ** t)
        else:
            m_hat = m / dt(1 - b1 ** t)
        v_hat = v / dt(1 - b2 ** t)
        u = m_hat / (np.sqrt(v_hat + eps_root) + eps)
        if wd is not None:
            u = u + wd * p
        return -lr * u, (m, v)
    return leafwise(step, lambda p: (np.zeros_like(p), np.zeros_like(p)))


def ref_adamax(lr, b1=0.9, b2=0.999, eps=1e-8):
    def step(g, s, p, t):
        m, u = s
        m = (1 - b1) * g + b1 * m
        u = np.maximum(b2 * u, np.abs(g) + eps)
        return -lr * (m / g.dtype.type(1 - b1 ** t)) / u, (m, u)
    return leafwise(step, lambda p: (np.zeros_like(p), np.zeros_like(p)))


def ref_rmsprop(lr, decay=0.9, eps=1e-8, centered=False, momentum=None, initial_scale=0.0,
                nesterov=False):
    # optax's order: the step is scaled by its own learning rate (`lr(count)` for a
    # schedule) before it enters the momentum trace
    def step(g, s, p, t):
        m, v, tr = s
        v = (1 - decay) * g * g + decay * v
        if centered:
            m = (1 - decay) * g + decay * m
            u = g / np.sqrt(v - m * m + eps)
        else:
            u = g / np.sqrt(v + eps)
        u = (lr(t - 1) if callable(lr) else lr) * u
        if momentum is not None:
            tr = u + momentum * tr
            u = u + momentum * tr if nesterov else tr
        return -u, (m, v, tr)
    return leafwise(step, lambda p: (np.zeros_like(p), np.full_like(p, initial_scale),
                                     np.zeros_like(p)))


def ref_adagrad(lr, init=0.1, eps=1e-7):
    def step(g, s, p, t):
        s = s + g * g
        return -lr * np.where(s > 0, g / np.sqrt(s + eps), 0), s
    return leafwise(step, lambda p: np.full_like(p, init))


def ref_lion(lr, b1=0.9, b2=0.99, wd=1e-3):
    def step(g, m, p, t):
        u = np.sign(b1 * m + (1 - b1) * g) + wd * p
        return -lr * u, b2 * m + (1 - b2) * g
    return leafwise(step, np.zeros_like)


def ref_adadelta(lr, rho=0.9, eps=1e-6):
    def step(g, s, p, t):
        eg, ex = s
        eg = rho * eg + (1 - rho) * g * g
        d = -np.sqrt(ex + eps) / np.sqrt(eg + eps) * g
        ex = rho * ex + (1 - rho) * d * d
        return lr * d, (eg, ex)
    return leafwise(step, lambda p: (np.zeros_like(p), np.zeros_like(p)))


def ref_radam(lr, b1=0.9, b2=0.999, eps=1e-8, threshold=5.0):
    rho_inf = 2 / (1 - b2) - 1

    def step(g, s, p, t):
        m, v = s
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        dt = g.dtype.type
        m_hat, v_hat = m / dt(1 - b1 ** t), v / dt(1 - b2 ** t)
        rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho >= threshold:
            r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            u = dt(r) * m_hat / (np.sqrt(v_hat) + eps)
        else:
            u = m_hat
        return -lr * u, (m, v)
    return leafwise(step, lambda p: (np.zeros_like(p), np.zeros_like(p)))


def _trust(u, p, coef=1.0, eps=0.0):
    pn, un = np.linalg.norm(p), np.linalg.norm(u)
    ratio = 1.0 if pn == 0 or un == 0 else coef * pn / (un + eps)
    return u * u.dtype.type(ratio)


def ref_lamb(lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.01):
    def step(g, s, p, t):
        m, v = s
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        dt = g.dtype.type
        u = (m / dt(1 - b1 ** t)) / (np.sqrt(v / dt(1 - b2 ** t)) + eps) + wd * p
        return -lr * _trust(u, p), (m, v)
    return leafwise(step, lambda p: (np.zeros_like(p), np.zeros_like(p)))


def ref_lars(lr, wd=0.01, coef=0.001, momentum=0.9):
    def step(g, tr, p, t):
        u = -lr * _trust(g + wd * p, p, coef)
        tr = u + momentum * tr
        return tr, tr
    return leafwise(step, np.zeros_like)


def ref_adafactor(learning_rate=None, min_dim_size_to_factor=128, decay_rate=0.8,
                  multiply_by_parameter_scale=True, clipping_threshold=1.0, momentum=None,
                  dtype_momentum=np.float32, weight_decay_rate=None, eps=1e-30, factored=True,
                  weight_decay_mask=lambda p: True):
    """Shazeer & Stern 2018, in optax's order of the optional stages. A factored leaf keeps
    the decayed row and column *sums* R, C of `g**2 + eps` over its two largest axes and
    estimates the second moment as `R C / sum(R)`; `weight_decay_mask(p)` says per leaf."""
    def axes(shape):  # (largest, second largest) when factored, else None
        if not factored or len(shape) < 2:
            return None
        by_size = sorted(range(len(shape)), key=lambda i: shape[i])
        return (by_size[-1], by_size[-2]) \
            if shape[by_size[-2]] >= min_dim_size_to_factor else None

    def init(p):
        ax = axes(p.shape)
        stats = np.zeros_like(p) if ax is None else \
            tuple(np.zeros_like(p.sum(axis=a, keepdims=True)) for a in ax)
        return stats, np.zeros(p.shape, dtype_momentum or p.dtype)

    def step(g, state, p, t):
        stats, m = state
        dt = g.dtype.type
        beta = dt(1 - float(t) ** -decay_rate)
        g2 = g * g + eps
        ax = axes(g.shape)
        if ax is None:
            stats = v_hat = beta * stats + (1 - beta) * g2
        else:
            big, second = ax
            stats = tuple(beta * s + (1 - beta) * g2.sum(axis=a, keepdims=True)
                          for s, a in zip(stats, ax))
            rows, cols = stats
            v_hat = rows * cols / rows.sum(axis=second, keepdims=True)
        u = g / np.sqrt(v_hat)
        if clipping_threshold is not None:
            u = u / max(dt(1), np.sqrt(np.mean(u * u)) / dt(clipping_threshold))
        if learning_rate is not None:
            lr = learning_rate(t - 1) if callable(learning_rate) else learning_rate
            u = u * dt(lr)
        if multiply_by_parameter_scale:
            u = u * max(np.sqrt(np.mean(p * p)), dt(1e-3))
        if momentum is not None:
            u = momentum * m + (1 - momentum) * u
            m = u.astype(m.dtype)
        if weight_decay_rate is not None and weight_decay_mask(p):
            u = u + weight_decay_rate * p
        return -u, (stats, m)
    return leafwise(step, init)


CASES = {
    "sgd": (lambda: optim.sgd(0.1), ref_sgd(0.1)),
    "sgd_momentum": (lambda: optim.sgd(0.1, momentum=0.9), ref_sgd(0.1, 0.9)),
    "sgd_nesterov": (lambda: optim.sgd(0.1, 0.9, nesterov=True), ref_sgd(0.1, 0.9, True)),
    "adam": (lambda: optim.adam(0.01), ref_adam(0.01)),
    "adam_eps_root": (lambda: optim.adam(0.01, eps=1e-3, eps_root=1e-4),
                      ref_adam(0.01, eps=1e-3, eps_root=1e-4)),
    "nadam": (lambda: optim.nadam(0.01), ref_adam(0.01, nesterov=True)),
    "adamw": (lambda: optim.adamw(0.01, weight_decay=0.1), ref_adam(0.01, wd=0.1)),
    "adamax": (lambda: optim.adamax(0.01), ref_adamax(0.01)),
    "radam": (lambda: optim.radam(0.01), ref_radam(0.01)),
    "rmsprop": (lambda: optim.rmsprop(0.01), ref_rmsprop(0.01)),
    "rmsprop_centered": (lambda: optim.rmsprop(0.01, centered=True, eps=1e-3),
                         ref_rmsprop(0.01, centered=True, eps=1e-3)),
    "rmsprop_momentum": (lambda: optim.rmsprop(0.01, momentum=0.5, initial_scale=1.0),
                         ref_rmsprop(0.01, momentum=0.5, initial_scale=1.0)),
    "rmsprop_momentum_schedule": (
        lambda: optim.rmsprop(optim.linear_schedule(0.02, 0.002, 3), momentum=0.5,
                              nesterov=True),
        ref_rmsprop(lambda c: 0.02 - 0.018 * min(c, 3) / 3, momentum=0.5, nesterov=True)),
    "adagrad": (lambda: optim.adagrad(0.1), ref_adagrad(0.1)),
    "adadelta": (lambda: optim.adadelta(0.5), ref_adadelta(0.5)),
    "lion": (lambda: optim.lion(0.01), ref_lion(0.01)),
    "lamb": (lambda: optim.lamb(0.01, weight_decay=0.01), ref_lamb(0.01)),
    "lars": (lambda: optim.lars(0.1, weight_decay=0.01), ref_lars(0.1)),
    "adafactor": (lambda: optim.adafactor(0.1), ref_adafactor(0.1)),
    "adafactor_factored": (lambda: optim.adafactor(0.1, min_dim_size_to_factor=2),
                           ref_adafactor(0.1, min_dim_size_to_factor=2)),
}


def check_close(got, want, dtype):
    for g, w in zip(got, want):
        for k in w:
            np.testing.assert_allclose(g[k], w[k], rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_matches_reference(name, dtype):
    make, ref = CASES[name]
    params, grads = make_params(dtype), make_grads(dtype)
    got = run_opt(make(), params, grads)
    check_close(got, ref(params, grads), dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_jit_equals_eager(name):
    make, _ = CASES[name]
    params, grads = make_params(np.float32), make_grads(np.float32, 3)
    check_close(run_opt(make(), params, grads, jit=True), run_opt(make(), params, grads),
                np.float32)


# --------------------------------------------------------------- schedules

def np_cosine(init, steps, alpha, c, exponent=1.0):
    c = min(c, steps)
    return init * ((1 - alpha) * (0.5 * (1 + math.cos(math.pi * c / steps))) ** exponent + alpha)


def np_linear(init, end, steps, c, begin=0):
    c = min(max(c - begin, 0), steps)
    return init + (end - init) * c / steps


def np_onecycle(c, low, peak, end):
    # cosine from `low` up to `peak` on [0, 3), then down to `end` on [3, 10)
    def cos_interp(a, b, pct):
        return b + (a - b) / 2 * (math.cos(math.pi * pct) + 1)
    if c < 3:
        return cos_interp(low, peak, c / 3)
    return cos_interp(peak, end, (c - 3) / 7) if c < 10 else end


SCHEDULES = {
    "constant": (optim.constant_schedule(0.3), lambda c: 0.3),
    "linear": (optim.linear_schedule(1.0, 0.1, 8, transition_begin=2),
               lambda c: np_linear(1.0, 0.1, 8, c, 2)),
    "polynomial": (optim.polynomial_schedule(1.0, 0.1, 2.0, 8),
                   lambda c: (1.0 - 0.1) * (1 - min(c, 8) / 8) ** 2 + 0.1),
    "exponential": (optim.exponential_decay(1.0, 4, 0.5, transition_begin=3),
                    lambda c: 1.0 if c <= 3 else 0.5 ** ((c - 3) / 4)),
    "exponential_staircase_end": (
        optim.exponential_decay(2.0, 3, 0.5, staircase=True, end_value=0.6),
        lambda c: max(2.0 * 0.5 ** (c // 3), 0.6)),
    "cosine": (optim.cosine_decay_schedule(2.0, 10, alpha=0.1, exponent=2.0),
               lambda c: np_cosine(2.0, 10, 0.1, c, 2.0)),
    "warmup_cosine": (optim.warmup_cosine_decay_schedule(0.1, 1.0, 4, 12, end_value=0.2),
                      lambda c: np_linear(0.1, 1.0, 4, c) if c < 4
                      else np_cosine(1.0, 8, 0.2, c - 4)),
    "warmup_exponential": (
        optim.warmup_exponential_decay_schedule(0.0, 1.0, 4, 2, 0.5),
        lambda c: np_linear(0.0, 1.0, 4, c) if c < 4 else 0.5 ** ((c - 4) / 2)),
    "piecewise_constant": (optim.piecewise_constant_schedule(1.0, {6: 0.5, 3: 0.1}),
                           lambda c: 1.0 * (0.1 if c >= 3 else 1) * (0.5 if c >= 6 else 1)),
    "join": (optim.join_schedules([optim.constant_schedule(1.0),
                                   optim.linear_schedule(1.0, 0.0, 4)], [5]),
             lambda c: 1.0 if c < 5 else np_linear(1.0, 0.0, 4, c - 5)),
    "onecycle": (optim.cosine_onecycle_schedule(10, 2.0, pct_start=0.3),
                 lambda c: np_onecycle(c, low=2.0 / 25, peak=2.0, end=2.0 / 25 / 1e4)),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_matches_formula_eager_and_traced(name):
    sched, ref = SCHEDULES[name]
    jitted = fg.jit(sched)
    for c in [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 20]:
        want = ref(c)
        np.testing.assert_allclose(sched(c), want, rtol=1e-12, err_msg=f"count={c}")
        np.testing.assert_allclose(jitted(np.asarray(c, np.int32)), want, rtol=1e-12,
                                   err_msg=f"jit, count={c}")
    assert jitted.cache_info().misses == 1


def test_schedule_as_learning_rate_keeps_float32():
    sched = optim.exponential_decay(0.1, 2, 0.5)
    params, grads = make_params(np.float32), make_grads(np.float32)
    got = run_opt(optim.adam(sched), params, grads)
    ref = ref_adam(1.0)  # the reference with lr 1, rescaled per step below
    p = dict(params)
    state = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in p.items()}
    for t, g in enumerate(grads, 1):
        lr = np.float32(0.1 * 0.5 ** ((t - 1) / 2))
        for k in p:
            m, v = state[k]
            m = 0.1 * g[k] + 0.9 * m
            v = 0.001 * g[k] * g[k] + 0.999 * v
            state[k] = (m, v)
            u = (m / np.float32(1 - 0.9 ** t)) / (np.sqrt(v / np.float32(1 - 0.999 ** t)) + 1e-8)
            p[k] = p[k] - lr * u
        for k in p:
            np.testing.assert_allclose(got[t - 1][k], p[k], rtol=2e-5)
    del ref


# --------------------------------------------------------------- jit: one trace for all steps

def test_jitted_adam_step_does_not_retrace():
    opt = optim.adam(optim.cosine_decay_schedule(0.1, 10))
    params, grads = make_params(np.float32), make_grads(np.float32)

    @fg.jit
    def step(params, state, grads):
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state

    state = opt.init(params)
    assert np.asarray(state[0].count).dtype == np.int32
    for g in grads:
        params, state = step(params, state, g)
    assert step.cache_info().misses == 1
    assert int(state[0].count) == STEPS


def test_optimizer_under_grad_and_vmap():
    # an optimizer step is a differentiable, batchable function of the gradients
    opt = optim.adam(0.1)
    params = {"w": np.ones(3)}

    def loss(g):
        updates, _ = opt.update({"w": g}, opt.init(params), params)
        return fnp.sum(updates["w"] ** 2)

    g0 = np.array([1.0, -2.0, 0.5])
    fg.test_util.check_grads(loss, (g0,), order=1, modes=("rev",))
    batched = fg.vmap(loss)(np.stack([g0, 2 * g0]))
    np.testing.assert_allclose(batched, [loss(g0), loss(2 * g0)])


# --------------------------------------------------------------- stateless transforms

def test_clip_scale_and_weight_decay():
    g = {"a": np.array([3.0, -0.5, -2.0])}
    p = {"a": np.array([1.0, 2.0, 3.0])}
    assert np.array_equal(optim.clip(1.0).update(g, ())[0]["a"], [1.0, -0.5, -1.0])
    assert np.array_equal(optim.scale(-2.0).update(g, ())[0]["a"], [-6.0, 1.0, 4.0])
    np.testing.assert_allclose(optim.add_decayed_weights(0.1).update(g, (), p)[0]["a"],
                               [3.1, -0.3, -1.7])
    with pytest.raises(ValueError, match="params"):
        optim.add_decayed_weights(0.1).update(g, ())


def test_global_norm_and_clip_by_global_norm():
    g = {"a": np.array([3.0], np.float32), "b": np.array([[4.0]], np.float32)}
    np.testing.assert_allclose(optim.global_norm(g), 5.0)
    clipped = optim.clip_by_global_norm(1.0).update(g, ())[0]
    np.testing.assert_allclose(clipped["a"], [0.6], rtol=1e-6)
    np.testing.assert_allclose(clipped["b"], [[0.8]], rtol=1e-6)
    assert clipped["a"].dtype == np.float32
    unclipped = optim.clip_by_global_norm(10.0).update(g, ())[0]
    assert np.array_equal(unclipped["a"], g["a"])


def test_block_rms_zero_nans_ema_scale_by_schedule():
    out = optim.clip_by_block_rms(1.0).update({"a": np.array([2.0, -2.0]),
                                                "b": np.array([0.5])}, ())[0]
    np.testing.assert_allclose(out["a"], [1.0, -1.0])
    np.testing.assert_allclose(out["b"], [0.5])
    assert np.array_equal(optim.zero_nans().update(np.array([np.nan, 1.0]), ())[0], [0, 1])
    t = optim.ema(0.5)
    s = t.init(np.zeros(1))
    u1, s = t.update(np.array([2.0]), s)
    u2, s = t.update(np.array([4.0]), s)
    np.testing.assert_allclose(u2, (0.5 * 4 + 0.25 * 2) / (1 - 0.25))
    t = optim.scale_by_schedule(lambda c: c + 1.0)
    s = t.init(np.zeros(1))
    outs = []
    for _ in range(3):
        u, s = t.update(np.ones(1), s)
        outs.append(float(u[0]))
    assert outs == [1.0, 2.0, 3.0]


# --------------------------------------------------------------- masked / multi_transform

def test_masked_over_ordered_dict_params():
    # an OrderedDict flattens in insertion order; the broadcast mask was a plain dict
    # (sorted keys), so masked() refused OrderedDict params
    from collections import OrderedDict
    params = OrderedDict(b=np.ones(2), a=np.ones(2))
    for mask in (OrderedDict(b=True, a=False), {"a": False, "b": True}):
        t = optim.masked(optim.scale(0.0), mask)
        out, _ = t.update(OrderedDict(b=np.ones(2), a=np.ones(2)), t.init(params))
        assert type(out) is OrderedDict and list(out) == ["b", "a"]
        assert np.array_equal(out["b"], [0, 0]) and np.array_equal(out["a"], [1, 1])


def test_masked_applies_inner_to_masked_leaves_only():
    params = {"w": np.ones(2), "b": np.ones(2), "nested": {"x": np.ones(1), "y": np.ones(1)}}
    grads = fg.tree.tree_map(lambda p: 2 * p, params)
    mask = {"w": True, "b": False, "nested": True}     # a bool may cover a subtree
    t = optim.masked(optim.sgd(0.1, momentum=0.9), mask)
    state = t.init(params)
    # the inner state holds nothing for masked-out leaves
    assert state.inner_state[0].trace["b"] is None
    assert len(fg.tree.tree_leaves(state)) == 3
    out, state = t.update(grads, state, params)
    out, state = t.update(grads, state, params)
    np.testing.assert_allclose(out["w"], -0.1 * (2 + 0.9 * 2))
    np.testing.assert_allclose(out["nested"]["y"], -0.1 * (2 + 0.9 * 2))
    assert np.array_equal(out["b"], grads["b"])
    # a callable mask, and adamw's mask argument
    t2 = optim.masked(optim.scale(0.0), lambda p: fg.tree.tree_map(lambda x: x.ndim > 0, p))
    out2, _ = t2.update({"a": np.ones(2), "s": np.array(1.0)},
                        t2.init({"a": np.ones(2), "s": np.array(1.0)}))
    assert np.array_equal(out2["a"], [0, 0]) and out2["s"] == 1.0
    aw = optim.adamw(0.1, weight_decay=0.5, mask={"w": False, "b": True, "nested": False})
    a = optim.adam(0.1)
    p2 = {"w": np.ones(2), "b": np.ones(2), "nested": {"x": np.ones(1), "y": np.ones(1)}}
    uw = aw.update(grads, aw.init(p2), p2)[0]
    ua = a.update(grads, a.init(p2), p2)[0]
    np.testing.assert_allclose(uw["w"], ua["w"])
    np.testing.assert_allclose(uw["b"], ua["b"] - 0.1 * 0.5 * p2["b"])


def test_multi_transform_routes_by_label():
    params = {"enc": {"w": np.ones(2)}, "head": np.ones(3)}
    grads = {"enc": {"w": np.full(2, 2.0)}, "head": np.full(3, 2.0)}
    t = optim.multi_transform({"frozen": optim.scale(0.0), "train": optim.adam(0.1)},
                              {"enc": "frozen", "head": "train"})
    state = t.init(params)
    out, state = t.update(grads, state, params)
    assert np.array_equal(out["enc"]["w"], [0.0, 0.0])
    np.testing.assert_allclose(out["head"], -0.1)
    with pytest.raises(ValueError, match="label"):
        optim.multi_transform({"a": optim.scale(1.0)}, {"enc": "a", "head": "b"}).init(params)
    jitted = fg.jit(lambda g, s, p: t.update(g, s, p))
    out_j, _ = jitted(grads, t.init(params), params)
    np.testing.assert_allclose(out_j["head"], out["head"])


# --------------------------------------------------------------- wrappers

@pytest.mark.parametrize("use_jit", [False, True])
def test_multisteps_accumulates_mean_and_applies_every_k(use_jit):
    k = 3
    opt = optim.MultiSteps(optim.adam(0.1), every_k_schedule=k)
    params, grads = make_params(np.float32), make_grads(np.float32, 6)
    update = fg.jit(opt.update) if use_jit else opt.update
    state = opt.init(params)
    ref = optim.adam(0.1)
    ref_state = ref.init(params)
    for i, g in enumerate(grads):
        upd, state = update(g, state, params)
        if i % k == k - 1:
            mean = fg.tree.tree_map(lambda *xs: sum(xs) / np.float32(k), *grads[i - k + 1:i + 1])
            want, ref_state = ref.update(mean, ref_state, params)
            for key in want:
                np.testing.assert_allclose(upd[key], want[key], rtol=1e-5)
            assert bool(opt.has_updated(state))
        else:
            assert all(not np.any(x) for x in fg.tree.tree_leaves(upd))
            assert not bool(opt.has_updated(state))
        assert upd["w"].dtype == np.float32
    assert int(state.gradient_step) == 2 and int(state.mini_step) == 0


def test_multisteps_sum_and_skip_nonfinite():
    opt = optim.MultiSteps(optim.sgd(1.0), 2, use_grad_mean=False,
                           should_skip_update_fn=optim.skip_not_finite)
    s = opt.init(np.zeros(1))
    u, s = opt.update(np.array([1.0]), s)
    u, s = opt.update(np.array([np.nan]), s)        # skipped: nothing changes
    assert np.array_equal(u, [0.0]) and int(s.mini_step) == 1
    u, s = opt.update(np.array([3.0]), s)
    assert np.array_equal(u, [-4.0])


def test_apply_if_finite_skips_then_gives_up():
    t = optim.apply_if_finite(optim.sgd(1.0, momentum=0.5), max_consecutive_errors=1)
    s = t.init(np.zeros(1))
    u, s = t.update(np.array([1.0]), s)
    assert np.array_equal(u, [-1.0])
    u, s = t.update(np.array([np.inf]), s)
    assert np.array_equal(u, [0.0]) and int(s.notfinite_count) == 1
    np.testing.assert_allclose(s.inner_state[0].trace, [1.0])     # momentum kept
    u, s = t.update(np.array([np.inf]), s)                       # 2 > 1 in a row: applied
    assert np.isinf(u[0]) and int(s.total_notfinite) == 2
    u, s = t.update(np.array([1.0]), s)
    assert int(s.notfinite_count) == 0


def test_inject_hyperparams_changes_lr_without_retrace():
    opt = optim.inject_hyperparams(optim.adam)(learning_rate=0.1, b1=0.8)
    params, grads = make_params(np.float32), make_grads(np.float32, 3)
    step = fg.jit(opt.update)
    state = opt.init(params)
    assert state.hyperparams["learning_rate"].dtype == np.float32
    ref = optim.adam(0.1, b1=0.8)
    u, state = step(grads[0], state, params)
    want = ref.update(grads[0], ref.init(params), params)[0]
    np.testing.assert_allclose(u["w"], want["w"], rtol=1e-6)
    state.hyperparams["learning_rate"] = np.asarray(0.0, np.float32)
    u, state = step(grads[1], state, params)
    assert not np.any(u["w"]) and step.cache_info().misses == 1
    # optax's keys: every numeric argument, defaults included; integers stay integers
    assert sorted(state.hyperparams) == ["b1", "b2", "eps", "eps_root", "learning_rate"]
    assert all(h.dtype == np.float32 for h in state.hyperparams.values())
    state.hyperparams["learning_rate"] = np.asarray(0.1, np.float32)
    state.hyperparams["eps"] = np.asarray(1e30, np.float32)  # a default, changed in the state
    u, state = step(grads[1], state, params)
    assert 0 < np.max(np.abs(u["w"])) < 1e-25 and step.cache_info().misses == 1
    fac = optim.inject_hyperparams(optim.adafactor)(learning_rate=0.1).init(params)
    assert fac.hyperparams["min_dim_size_to_factor"].dtype.kind == "i"
    sched = optim.inject_hyperparams(optim.sgd)(learning_rate=lambda c: 1.0 / (c + 1))
    s = sched.init(np.zeros(1))
    _, s = sched.update(np.ones(1), s)
    u, s = sched.update(np.ones(1), s)
    np.testing.assert_allclose(u, [-0.5])


# --------------------------------------------------------------- dynamic loss scaling

def test_loss_scale_grows_and_shrinks():
    ls = optim.DynamicLossScale(init_scale=8.0, growth_interval=2, min_scale=2.0)
    s = ls.init()
    scales = []
    for finite in [True, True, True, False, False, False, True]:
        s = ls.adjust(np.asarray(finite), s)
        scales.append(float(s.scale))
    assert scales == [8.0, 16.0, 16.0, 8.0, 4.0, 2.0, 2.0]
    assert s.scale.dtype == np.float32 and s.good_steps.dtype == np.int32


def test_loss_scaled_float16_training_step_under_jit():
    ls = optim.DynamicLossScale(init_scale=2.0 ** 14, growth_interval=3)
    opt = optim.sgd(1.0)
    w = np.array([1.0, 2.0], np.float16)

    def loss(w):
        return fnp.sum(w * np.float16(0.5))

    @fg.jit
    def step(w, opt_state, ls_state):
        grads = fg.grad(lambda w: ls.scale(loss(w), ls_state))(w)
        grads, finite, ls_state = ls.unscale_and_adjust(grads, ls_state)
        updates, new_opt_state = opt.update(grads, opt_state, w)
        new_w = optim.apply_updates(w, updates)
        return fnp.where(finite, new_w, w), new_opt_state, ls_state

    opt_state, ls_state = opt.init(w), ls.init()
    for _ in range(4):
        w2, opt_state, ls_state = step(w, opt_state, ls_state)
    assert w2.dtype == np.float16 and np.array_equal(w2, w - np.float16(0.5))
    assert float(ls_state.scale) == 2.0 ** 15 and step.cache_info().misses == 1
    # an overflowing step is flagged and the scale backs off
    big = {"g": np.array([np.inf], np.float16)}
    g, finite, s = ls.unscale_and_adjust(big, ls.init())
    assert not bool(finite) and float(s.scale) == 2.0 ** 13 and g["g"].dtype == np.float16


def test_loss_scale_unscale_bfloat16_keeps_dtype():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    ls = optim.DynamicLossScale(init_scale=2.0 ** 16)   # larger than float16's max
    g = np.array([2.0 ** 16, 2.0 ** 17], ml_dtypes.bfloat16)
    out = ls.unscale(g, ls.init())
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), [1.0, 2.0])


# --------------------------------------------------------------- docstring examples

@pytest.mark.parametrize("module", ["base", "schedules", "transforms", "wrappers",
                                    "optimizers", "loss_scaling"])
def test_docstring_examples_run(module):
    import doctest
    import importlib
    mod = importlib.import_module(f"fungrad.optim.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_noisy_sgd_is_deterministic_per_seed_and_keeps_dtype():
    params, grads = make_params(np.float32), make_grads(np.float32, 2)
    a = run_opt(optim.noisy_sgd(0.1, eta=0.5, seed=3), params, grads)
    b = run_opt(optim.noisy_sgd(0.1, eta=0.5, seed=3), params, grads)
    plain = run_opt(optim.sgd(0.1), params, grads)
    np.testing.assert_array_equal(a[-1]["w"], b[-1]["w"])
    assert not np.allclose(a[-1]["w"], plain[-1]["w"])


def test_noisy_sgd_under_jit_equals_eager_and_has_the_scheduled_variance():
    import fungrad as fg
    opt = optim.noisy_sgd(1.0, eta=0.25, gamma=0.0, seed=5)
    grads = {"w": np.zeros(20000, np.float32)}
    state = opt.init(grads)
    eager, _ = opt.update(grads, state, grads)
    jitted, _ = fg.jit(opt.update)(grads, state, grads)
    np.testing.assert_array_equal(eager["w"], jitted["w"])
    assert eager["w"].dtype == np.float32
    assert abs(np.var(eager["w"]) - 0.25) < 0.02  # update = -lr * (g + noise), var eta


# --------------------------------------------------------------- adafactor

def wd_on_matrices(params):
    return fg.tree.tree_map(lambda p: np.ndim(p) > 1, params)


# name -> (leaf shapes, adafactor kwargs, the reference's kwargs where they differ)
ADAFACTOR_CASES = {
    "factored_2d": ({"w": (130, 140), "b": (140,)}, {"min_dim_size_to_factor": 16}, {}),
    "factored_default_min": ({"w": (130, 140), "b": (7,), "v": (130, 20)}, {}, {}),
    "factored_3d": ({"w": (5, 3, 4), "b": (2, 3)}, {"min_dim_size_to_factor": 3,
                                                    "learning_rate": 0.1}, {}),
    "factored_3d_default_min": ({"w": (4, 131, 129), "b": (4,)}, {"learning_rate": 0.1}, {}),
    "not_factored": ({"w": (130, 140), "b": (3,)}, {"factored": False, "learning_rate": 0.1},
                     {}),
    "momentum": ({"w": (6, 5), "b": (5,)}, {"learning_rate": 0.05, "momentum": 0.9,
                                            "min_dim_size_to_factor": 2}, {}),
    "weight_decay_masked": ({"w": (6, 5), "b": (5,)},
                            {"learning_rate": 0.05, "weight_decay_rate": 0.1,
                             "weight_decay_mask": wd_on_matrices, "min_dim_size_to_factor": 2},
                            {"weight_decay_mask": lambda p: p.ndim > 1}),
    "no_param_scale_no_clip": ({"w": (6, 5), "b": (5,)},
                               {"learning_rate": 0.01, "multiply_by_parameter_scale": False,
                                "clipping_threshold": None, "min_dim_size_to_factor": 2,
                                "eps": 0.1}, {}),   # a large eps: added to g**2 first
    "schedule_lr": ({"w": (6, 5), "b": (5,)},
                    {"learning_rate": optim.exponential_decay(0.1, 2, 0.5),
                     "min_dim_size_to_factor": 2, "decay_rate": 0.5},
                    {"learning_rate": lambda c: 0.1 * 0.5 ** (c / 2)}),
}


def make_leaves(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(s).astype(dtype) for k, s in shapes.items()}


def adafactor_case(name, dtype, steps):
    shapes, kwargs, ref_kwargs = ADAFACTOR_CASES[name]
    params = make_leaves(shapes, dtype, 0)
    grads = [make_leaves(shapes, dtype, 1 + i) for i in range(steps)]
    # optax stores momentum in float32 (dtype_momentum) whatever the parameters' dtype
    state_dtypes = (np.float32,) if "momentum" in kwargs else ()
    run = lambda jit: run_opt(optim.adafactor(**kwargs), params, grads, jit, state_dtypes)
    return run, ref_adafactor(**{**kwargs, **ref_kwargs})(params, grads)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(ADAFACTOR_CASES))
def test_adafactor_matches_reference(name, dtype):
    run, want = adafactor_case(name, dtype, STEPS)
    check_close(run(False), want, dtype)


@pytest.mark.parametrize("name", sorted(ADAFACTOR_CASES))
def test_adafactor_jit_equals_eager(name):
    run, _ = adafactor_case(name, np.float32, 3)
    check_close(run(True), run(False), np.float32)


@pytest.mark.parametrize("shape, min_dim, row, col, full", [
    ((130, 140), 128, (130,), (140,), (1,)),       # row: averaged over the largest axis
    ((140, 130), 128, (130,), (140,), (1,)),
    ((4, 131, 129), 128, (4, 129), (4, 131), (1,)),
    ((130, 20), 128, (1,), (1,), (130, 20)),       # second largest axis too small
    ((200,), 1, (1,), (1,), (200,)),               # 1-D: never factored
    ((3, 3), 2, (3,), (3,), (1,)),                 # a tie: the lower axis is the second
])
def test_scale_by_factored_rms_state_shapes(shape, min_dim, row, col, full):
    t = optim.scale_by_factored_rms(min_dim_size_to_factor=min_dim)
    state = t.init(np.zeros(shape, np.float32))
    got = [(np.shape(x), np.asarray(x).dtype) for x in (state.v_row, state.v_col, state.v)]
    assert got == [(row, np.float32), (col, np.float32), (full, np.float32)]
    assert np.asarray(state.count).dtype == np.int32


def test_scale_by_factored_rms_step_offset_and_decay_rate_fn():
    p = np.ones((4, 3))
    shifted = optim.scale_by_factored_rms(step_offset=2, min_dim_size_to_factor=2)
    fresh = optim.scale_by_factored_rms(min_dim_size_to_factor=2)
    s1 = shifted.init(p)._replace(count=np.asarray(2, np.int32))   # resumed at step 2
    s2 = fresh.init(p)
    for i in range(3):
        g = make_leaves({"w": (4, 3)}, np.float64, i)["w"]
        u1, s1 = shifted.update(g, s1, p)
        u2, s2 = fresh.update(g, s2, p)
        np.testing.assert_allclose(u1, u2, rtol=1e-14)
    # a constant decay 0.5 from a zero state: v = 0.5 * g**2, so the update is sqrt(2) sign(g)
    const = optim.scale_by_factored_rms(decay_rate_fn=lambda step, rate: 0.5)
    g = np.array([3.0, -0.25])
    np.testing.assert_allclose(const.update(g, const.init(g), g)[0], [2 ** 0.5, -2 ** 0.5])


def test_scale_by_factored_rms_needs_params():
    t = optim.scale_by_factored_rms()
    with pytest.raises(ValueError, match="scale_by_factored_rms.*params"):
        t.update(np.ones(3), t.init(np.ones(3)))


def test_adafactor_zero_gradient_gives_zero_update():
    # eps keeps 0 / sqrt(0) out of the factored and the full second moment alike
    p = {"w": np.ones((4, 3), np.float32), "b": np.ones(3, np.float32)}
    opt = optim.adafactor(0.1, min_dim_size_to_factor=2)
    zeros = fg.tree.tree_map(np.zeros_like, p)
    updates, _ = opt.update(zeros, opt.init(p), p)
    for u in fg.tree.tree_leaves(updates):
        np.testing.assert_array_equal(u, np.zeros_like(u))


def test_adafactor_momentum_state_dtype_follows_dtype_momentum():
    p = {"w": np.ones((3, 2)), "b": np.ones(2)}
    g = {"w": np.full((3, 2), 0.5), "b": np.full(2, 0.5)}
    for dtype_momentum, want in ((np.float32, np.float32), (None, np.float64)):
        opt = optim.adafactor(0.1, momentum=0.9, dtype_momentum=dtype_momentum)
        updates, state = opt.update(g, opt.init(p), p)
        ema_state = next(s for s in state if isinstance(s, optim.transforms.EmaState))
        assert {np.asarray(x).dtype for x in fg.tree.tree_leaves(ema_state.ema)} == \
            {np.dtype(want)}
        assert {np.asarray(x).dtype for x in fg.tree.tree_leaves(updates)} == \
            {np.dtype(np.float64)}


def test_ema_accumulator_dtype():
    t = optim.ema(0.5, debias=False, accumulator_dtype=np.float32)
    state = t.init(np.zeros(2))
    assert state.ema.dtype == np.float32
    out, state = t.update(np.array([1.0, 1 / 3]), state)
    assert out.dtype == np.float64 and state.ema.dtype == np.float32
    np.testing.assert_array_equal(out, [0.5, 1 / 6])       # computed before the cast


@pytest.mark.filterwarnings("error")   # no inf or nan anywhere, even in unused branches
def test_scale_by_param_block_rms_and_its_gradient_at_zero():
    t = optim.scale_by_param_block_rms(min_scale=1e-3)
    u = np.array([1.0, -2.0])
    np.testing.assert_allclose(t.update(u, (), np.array([3.0, 4.0]))[0], u * np.sqrt(12.5))
    np.testing.assert_allclose(t.update(u, (), np.zeros(2))[0], u * 1e-3)
    # the floor has a finite (zero) derivative at zero params, not 0 * inf = nan
    grad = fg.grad(lambda p: fnp.sum(t.update(u, (), p)[0]))(np.zeros(2))
    np.testing.assert_array_equal(grad, [0.0, 0.0])


def test_adafactor_trains_a_tiny_regression_under_jit():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3)).astype(np.float32)
    y = x @ rng.standard_normal((3, 2)).astype(np.float32) + 0.5
    params = {"w": 0.1 * rng.standard_normal((3, 2)).astype(np.float32),
              "b": np.full(2, 0.1, np.float32)}
    opt = optim.adafactor(0.1, min_dim_size_to_factor=2, momentum=0.5)

    def loss(params):
        return fnp.mean((x @ params["w"] + params["b"] - y) ** 2)

    @fg.jit
    def step(params, state):
        value, grads = fg.value_and_grad(loss)(params)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    state = opt.init(params)
    losses = []
    for _ in range(60):
        params, state, value = step(params, state)
        losses.append(float(value))
    assert step.cache_info().misses == 1
    assert params["w"].dtype == np.float32
    assert losses[-1] < 0.05 * losses[0], losses[::10]


def test_one_sgd_step_of_a_linear_neuron():
    """The seeds' first training example: y = w x + b, squared error, one SGD step, checked
    against the derivative by hand: dL/dw = 2 (y - t) x = -18, dL/db = 2 (y - t) = -6."""
    params = {"w": np.array(2.0), "b": np.array(1.0)}
    loss = lambda p, x, t: (p["w"] * x + p["b"] - t) ** 2  # noqa: E731
    value, grads = fg.value_and_grad(loss)(params, 3.0, 10.0)
    opt = optim.sgd(0.01)
    updates, _ = opt.update(grads, opt.init(params), params)
    new = optim.apply_updates(params, updates)
    assert value == 9.0 and grads == {"w": -18.0, "b": -6.0}
    np.testing.assert_allclose([new["w"], new["b"]], [2.18, 1.06], rtol=1e-15)
    assert loss(new, 3.0, 10.0) < value


def test_inject_hyperparams_keeps_state_dtype():
    import ml_dtypes
    bf16 = np.dtype(ml_dtypes.bfloat16)
    # bfloat16 params: hyperparameters in bfloat16, not float64 (np.issubdtype misses it)
    opt = fg.optim.inject_hyperparams(fg.optim.sgd)(learning_rate=0.5)
    state = opt.init({"w": np.ones(2, bf16)})
    assert state.hyperparams["learning_rate"].dtype == bf16
    # float64 gradients of a float32 model: the hyperparameters stay float32 (the dtype
    # init chose from the params), step after step
    opt = fg.optim.inject_hyperparams(fg.optim.adam)(learning_rate=1e-2)
    params = {"w": np.ones(3, np.float32)}
    state = opt.init(params)
    for _ in range(2):
        updates, state = opt.update({"w": np.full(3, 0.5)}, state, params)
    assert {v.dtype for v in state.hyperparams.values()} == {np.dtype(np.float32)}


def test_radam_threshold_below_five_uses_the_true_rectification():
    # rho_t lies in [threshold, 5) at step 6 for b2=0.999; the ratio was computed at rho=5
    b1, b2, thr = 0.9, 0.999, 4.5
    rho_inf = 2 / (1 - b2) - 1
    t = next(n for n in range(1, 50)
             if thr <= rho_inf - 2 * n * b2 ** n / (1 - b2 ** n) < 5)
    opt = fg.optim.scale_by_radam(b1, b2, eps=0.0, threshold=thr)
    g = np.array([1.0])
    state = opt.init(g)
    for _ in range(t):
        u, state = opt.update(g, state)
    rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
    np.testing.assert_allclose(u, [r], rtol=1e-12)  # m_hat = v_hat = 1 for constant g


def test_trust_ratio_min_norm_as_optax():
    # optax: each norm at least min_norm (safe_norm); the ratio is 1 only for a zero norm
    t = fg.optim.scale_by_trust_ratio(min_norm=1.0)
    u = np.array([2.0, 0.0])    # |u| = 2
    p = np.array([0.3, 0.4])    # |p| = 0.5 -> counts as 1
    np.testing.assert_allclose(t.update(u, (), p)[0], u * 1.0 / 2.0)
    np.testing.assert_allclose(t.update(np.zeros(2), (), p)[0], np.zeros(2))
    t0 = fg.optim.scale_by_trust_ratio()
    np.testing.assert_array_equal(t0.update(u, (), np.zeros(2))[0], u)   # zero |p|: ratio 1
    with np.errstate(all="raise"):  # no 0 / 0 in the unused branch
        np.testing.assert_array_equal(t0.update(np.zeros(0), (), np.zeros(0))[0], np.zeros(0))


@pytest.mark.parametrize("name", ["sgd", "adam", "adamw", "rmsprop", "lion", "adagrad", "lamb",
                                  "adafactor", "nadam", "radam", "adamax", "adadelta", "lars"])
def test_eager_bfloat16_updates_and_state_keep_the_dtype_as_under_jit(name):
    # the formulas' Python-scalar arithmetic on plain bfloat16 arrays is NumPy's (float32)
    import ml_dtypes
    p = {"w": np.ones(3, ml_dtypes.bfloat16)}
    g = {"w": np.full(3, 0.5, ml_dtypes.bfloat16)}
    opt = getattr(fg.optim, name)(1e-2)
    state = opt.init(p)
    u, new_state = opt.update(g, state, p)
    uj, _ = fg.jit(opt.update)(g, state, p)
    assert u["w"].dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(u["w"], uj["w"])
    for leaf in fg.tree.tree_leaves(new_state):
        if np.asarray(leaf).ndim:
            assert leaf.dtype == ml_dtypes.bfloat16, (name, leaf.dtype)


@pytest.mark.parametrize("lr", [0.1, optim.exponential_decay(0.1, 1, 0.5)])
@pytest.mark.parametrize("kw", [{}, {"eps_root": 1e-3}, {"nesterov": True}])
def test_adam_folds_the_learning_rate_but_keeps_chains_state_and_values(lr, kw):
    # adam multiplies by -lr inside its formula (one pass less per leaf under jit); its
    # state and updates are still those of chain(scale_by_adam, scale_by_learning_rate)
    params = {"w": np.linspace(-1, 1, 6).reshape(2, 3), "b": np.ones(3, np.float32)}
    fused = optim.adam(lr, **kw)
    chained = optim.chain(optim.scale_by_adam(**kw), optim.scale_by_learning_rate(lr))
    s1, s2 = fused.init(params), chained.init(params)
    assert fg.tree.tree_structure(s1) == fg.tree.tree_structure(s2)
    step = fg.jit(fused.update)
    for k in range(4):
        g = fg.tree.tree_map(lambda p: np.cos(p * (k + 1)).astype(p.dtype), params)
        (u1, s1), (u2, s2) = step(g, s1), chained.update(g, s2)
        for a, b in zip(fg.tree.tree_leaves((u1, s1)), fg.tree.tree_leaves((u2, s2))):
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=2e-6 if a.dtype == np.float32 else 1e-13)
