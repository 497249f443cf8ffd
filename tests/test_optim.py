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


def run_opt(opt, params, grads_seq, jit=False):
    """Params after each step, checking that state and updates keep the params' dtype."""
    def step(params, state, grads):
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, updates
    step = fg.jit(step) if jit else step
    state = opt.init(params)
    out = []
    for grads in grads_seq:
        params, state, updates = step(params, state, grads)
        dtype = grads["w"].dtype
        for leaf in fg.tree.tree_leaves((params, updates, state)):
            leaf = np.asarray(leaf)
            if np.issubdtype(leaf.dtype, np.floating):
                assert leaf.dtype == dtype, (leaf.dtype, dtype)
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


def ref_rmsprop(lr, decay=0.9, eps=1e-8, centered=False, momentum=None, initial_scale=0.0):
    def step(g, s, p, t):
        m, v, tr = s
        v = (1 - decay) * g * g + decay * v
        if centered:
            m = (1 - decay) * g + decay * m
            u = g / np.sqrt(v - m * m + eps)
        else:
            u = g / np.sqrt(v + eps)
        if momentum is not None:
            tr = u + momentum * tr
            u = tr
        return -lr * u, (m, v, tr)
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
    "adagrad": (lambda: optim.adagrad(0.1), ref_adagrad(0.1)),
    "adadelta": (lambda: optim.adadelta(0.5), ref_adadelta(0.5)),
    "lion": (lambda: optim.lion(0.01), ref_lion(0.01)),
    "lamb": (lambda: optim.lamb(0.01, weight_decay=0.01), ref_lamb(0.01)),
    "lars": (lambda: optim.lars(0.1, weight_decay=0.01), ref_lars(0.1)),
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
