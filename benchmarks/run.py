"""Benchmark runner: fungrad against hand-written NumPy (and HIPS autograd / JAX if installed).

    python benchmarks/run.py [--quick] [--only NAME] [--json PATH]

`--json PATH` also writes the rows and the machine they ran on to PATH (the docs' benchmarks
page is made from benchmarks/results.json by docs/benchmarks_page.py).

Each case is one row of CASES: a fungrad callable, the hand-written NumPy callable computing
the same values and gradients, and optionally the same function in autograd / JAX.
Ratios > 1 mean fungrad is slower.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import timeit
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # optional comparison
    autograd = anp = None
try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)  # float64 cases compute in float64 there too
except ImportError:
    jax = jnp = None


@dataclass
class Case:
    name: str
    fungrad: Callable
    numpy: Callable
    autograd: Optional[Callable] = None
    jax: Optional[Callable] = None
    n_prims: int = 0  # primitives per call, to print µs per primitive
    check: Optional[Callable] = None  # asserts fungrad and numpy agree


def _loops(fn, quick):
    """How many calls make one timed loop last about 0.1 s (0.02 s with --quick)."""
    fn()
    n = 1
    while timeit.timeit(fn, number=n) < (0.02 if quick else 0.1):
        n *= 4
    return n


def best_times(fns, quick=False) -> list:
    """Seconds per call of each of `fns`: the best of several rounds, each round timing one
    loop of every function in turn, so that all of them see the same machine load (this
    machine's speed drifts by 2x over minutes; interleaving keeps the ratios honest)."""
    loops = [_loops(fn, quick) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(3 if quick else 9):
        for i, (fn, n) in enumerate(zip(fns, loops)):
            best[i] = min(best[i], timeit.timeit(fn, number=n) / n)
    return best


# ------------------------------------------------------------------ a 20-primitive scalar chain
def chain(m, x):
    """20 primitives: written once, run with fnp, numpy-in-autograd or jax.numpy as `m`."""
    y = m.sin(x) * x                # sin, mul
    y = m.cos(y) + x                # cos, add
    y = m.exp(y) / (x + 2.0)        # exp, add, div
    y = m.tanh(y) * y               # tanh, mul
    y = m.log1p(y * y) - x          # mul, log1p, sub
    y = m.sqrt(y * y + 1.0)         # mul, add, sqrt
    y = m.sin(y) * 3.0 + m.tanh(x)  # sin, mul, tanh, add
    return y * y                    # mul


def chain_numpy_grad(x):
    """The same function and its derivative, chain rule written out by hand."""
    s = np.sin(x); a = s * x; da = np.cos(x) * x + s
    c = np.cos(a); b = c + x; db = -np.sin(a) * da + 1
    e = np.exp(b); d = x + 2.0; f = e / d; df = (e * db * d - e) / d ** 2
    t = np.tanh(f); g = t * f; dg = (1 - t * t) * df * f + t * df
    q = g * g; h = np.log1p(q) - x; dh = 2 * g * dg / (1 + q) - 1
    r = h * h + 1.0; k = np.sqrt(r); dk = h * dh / k
    tx = np.tanh(x); m = np.sin(k) * 3.0 + tx; dm = 3 * np.cos(k) * dk + (1 - tx * tx)
    return m * m, 2 * m * dm


# ------------------------------------------------------------------ an MLP, loss and gradient
def mlp_loss(m, params, x, y):
    h = x
    for w, b in params[:-1]:
        h = m.tanh(h @ w + b)
    w, b = params[-1]
    z = h @ w + b
    z = z - m.max(z, axis=1, keepdims=True)
    lse = m.log(m.sum(m.exp(z), axis=1, keepdims=True))
    return -m.mean(m.sum(y * (z - lse), axis=1))


def _mlp_forward_numpy(params, x):
    """Hidden activations (input first), shifted logits and their exponentials."""
    hs = [x]
    h = x
    for w, b in params[:-1]:
        h = np.tanh(h @ w + b)
        hs.append(h)
    w, b = params[-1]
    z = h @ w + b
    z = z - z.max(1, keepdims=True)
    return hs, z, np.exp(z)


def mlp_numpy(params, x, y):
    """Forward and backward written by hand."""
    hs, z, e = _mlp_forward_numpy(params, x)
    sum_e = e.sum(1, keepdims=True)
    loss = -np.mean(np.sum(y * (z - np.log(sum_e)), 1))
    g = (e / sum_e * y.sum(1, keepdims=True) - y) / x.shape[0]
    grads = []
    for i in range(len(params) - 1, -1, -1):
        w, _ = params[i]
        grads.append((hs[i].T @ g, g.sum(0)))
        if i:
            g = (g @ w.T) * (1 - hs[i] * hs[i])
    return loss, grads[::-1]


def mlp_problem(sizes, batch, dtype=np.float64):
    """Seeded MLP params (a list of (W, b)), inputs and one-hot labels."""
    rng = np.random.default_rng(0)
    params = [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(dtype), np.zeros(n, dtype))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((batch, sizes[0])).astype(dtype)
    y = np.eye(sizes[-1], dtype=dtype)[rng.integers(0, sizes[-1], batch)]
    return params, x, y


def mlp_case(sizes, batch, dtype):
    params, x, y = mlp_problem(sizes, batch, dtype)
    vg = fg.value_and_grad(lambda p, x, y: mlp_loss(fnp, p, x, y))

    def check():
        (l1, g1), (l2, g2) = vg(params, x, y), mlp_numpy(params, x, y)
        tol = 1e-4 if dtype == np.float32 else 1e-10
        assert np.allclose(l1, l2, rtol=tol) and all(
            np.allclose(a, b, rtol=tol, atol=tol)
            for a, b in zip(fg.tree.tree_leaves(g1), fg.tree.tree_leaves(g2)))
    name = f"mlp {'-'.join(map(str, sizes))} b{batch} {np.dtype(dtype).name} value_and_grad"
    ag = jx = None
    if autograd is not None:
        ag_vg = autograd.value_and_grad(lambda p, x, y: mlp_loss(anp, p, x, y))
        ag = lambda: ag_vg(params, x, y)
    if jax is not None:
        jx_vg = jax.value_and_grad(lambda p, x, y: mlp_loss(jnp, p, x, y))
        jx = lambda: jax.block_until_ready(jx_vg(params, x, y))
    return Case(name, lambda: vg(params, x, y), lambda: mlp_numpy(params, x, y), ag, jx,
                check=check)


def scalar_case():
    x = np.asarray(0.3)
    g = fg.value_and_grad(lambda x: chain(fnp, x))

    def check():
        (v1, d1), (v2, d2) = g(x), chain_numpy_grad(x)
        assert np.allclose(v1, v2, rtol=1e-12) and np.allclose(d1, d2, rtol=1e-10), (d1, d2)
    ag = jx = None
    if autograd is not None:
        ag_g = autograd.value_and_grad(lambda x: chain(anp, x))
        ag = lambda: ag_g(0.3)
    if jax is not None:
        jx_g = jax.value_and_grad(lambda x: chain(jnp, x))
        jx = lambda: jax.block_until_ready(jx_g(0.3))
    return Case("scalar chain of 20 primitives, eager value_and_grad", lambda: g(x),
                lambda: chain_numpy_grad(x), ag, jx, n_prims=20, check=check)


# ------------------------------------------------------------------ per-example gradients
def per_example_numpy(params, x, y):
    """Per-example gradients of mlp_loss (batch of 1 each), vectorized by hand with einsum."""
    hs, z, e = _mlp_forward_numpy(params, x)
    g = e / e.sum(1, keepdims=True) * y.sum(1, keepdims=True) - y  # d loss_i / d z_i
    grads = []
    for i in range(len(params) - 1, -1, -1):
        w, _ = params[i]
        grads.append((np.einsum("bi,bj->bij", hs[i], g), g))
        if i:
            g = (g @ w.T) * (1 - hs[i] * hs[i])
    return grads[::-1]


def per_example_cases(sizes=(64, 128, 128, 10), batch=128):
    params, x, y = mlp_problem(sizes, batch)
    loss = lambda p, x, y: mlp_loss(fnp, p, x[None], y[None])  # one example as a batch of 1
    per_ex = fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))
    jit_per_ex = fg.jit(per_ex)
    g = fg.grad(loss)

    def loop():
        return [g(params, x[i], y[i]) for i in range(batch)]

    def check(fn):
        def run():
            a = fg.tree.tree_leaves(fn(params, x, y))
            b = fg.tree.tree_leaves(per_example_numpy(params, x, y))
            assert all(np.allclose(u, v, rtol=1e-8, atol=1e-10) for u, v in zip(a, b))
        return run
    jx = jx_jit = None
    if jax is not None:
        jx_loss = lambda p, x, y: mlp_loss(jnp, p, x[None], y[None])
        jx_per_ex = jax.vmap(jax.grad(jx_loss), in_axes=(None, 0, 0))
        jx_per_ex_jit = jax.jit(jx_per_ex)
        jx = lambda: jax.block_until_ready(jx_per_ex(params, x, y))
        jx_jit = lambda: jax.block_until_ready(jx_per_ex_jit(params, x, y))
    name = f"per-example grads mlp {'-'.join(map(str, sizes))} b{batch}:"
    return [Case(f"{name} vmap(grad)", lambda: per_ex(params, x, y),
                 lambda: per_example_numpy(params, x, y), jax=jx, check=check(per_ex)),
            Case(f"{name} jit(vmap(grad))", lambda: jit_per_ex(params, x, y),
                 lambda: per_example_numpy(params, x, y), jax=jx_jit, check=check(jit_per_ex)),
            # here the "numpy" column is vmap(grad): the ratio is loop time / vmap time
            Case(f"per-example grads b{batch}: loop of grad / vmap(grad)", loop,
                 lambda: per_ex(params, x, y))]


# ------------------------------------------------------------------ forward-mode Jacobian
def jacobian_case(n_in=64, hidden=128, n_out=256):
    rng = np.random.default_rng(0)
    w1, b1 = rng.standard_normal((hidden, n_in)) / 8, rng.standard_normal(hidden)
    w2, b2 = rng.standard_normal((n_out, hidden)) / 11, rng.standard_normal(n_out)
    x = rng.standard_normal(n_in)
    f = lambda x: fnp.tanh(w2 @ fnp.tanh(w1 @ x + b1) + b2)
    jac = fg.jacfwd(f)

    def by_hand():
        h = np.tanh(w1 @ x + b1)
        o = np.tanh(w2 @ h + b2)
        return ((1 - o * o)[:, None] * w2) @ ((1 - h * h)[:, None] * w1)

    def check():
        assert np.allclose(jac(x), by_hand(), rtol=1e-10, atol=1e-12)
    jx = None
    if jax is not None:
        jx_jac = jax.jacfwd(lambda x: jnp.tanh(w2 @ jnp.tanh(w1 @ x + b1) + b2))
        jx = lambda: jax.block_until_ready(jx_jac(x))
    return Case(f"jacfwd tanh MLP R^{n_in} -> R^{n_out}", lambda: jac(x), by_hand, jax=jx,
                check=check)


# ------------------------------------------------------------------ jit: a whole training step
def adam_step_fnp(m_, params, m, v, g, lr_t):
    """One Adam update written once for fnp (under jit) or numpy (by hand); `lr_t` is the
    bias-corrected step size. Returns (params, m, v)."""
    m = [(0.9 * mw + 0.1 * gw, 0.9 * mb + 0.1 * gb) for (mw, mb), (gw, gb) in zip(m, g)]
    v = [(0.999 * vw + 0.001 * gw * gw, 0.999 * vb + 0.001 * gb * gb)
         for (vw, vb), (gw, gb) in zip(v, g)]
    params = [(w - lr_t * mw / (m_.sqrt(vw) + 1e-8), b - lr_t * mb / (m_.sqrt(vb) + 1e-8))
              for (w, b), (mw, mb), (vw, vb) in zip(params, m, v)]
    return params, m, v


def train_step_cases():
    cases = []
    for sizes, batch in (((784, 512, 512, 10), 128), ((64, 128, 128, 10), 32)):
        params, x, y = mlp_problem(sizes, batch, np.float32)
        m = fg.tree.tree_map(np.zeros_like, params)
        v = fg.tree.tree_map(lambda p: np.full_like(p, 1e-4), params)
        lr_t = np.asarray(1e-3, np.float32)

        @fg.jit
        def step(params, m, v, lr_t, x, y):
            loss, g = fg.value_and_grad(lambda p: mlp_loss(fnp, p, x, y))(params)
            return adam_step_fnp(fnp, params, m, v, g, lr_t) + (loss,)

        def by_hand(params, m, v, lr_t, x, y):
            loss, g = mlp_numpy(params, x, y)
            return adam_step_fnp(np, params, m, v, g, lr_t) + (loss,)

        def check(step=step, by_hand=by_hand, args=(params, m, v, lr_t, x, y)):
            a, b = step(*args), by_hand(*args)
            for u, w in zip(fg.tree.tree_leaves(a), fg.tree.tree_leaves(b)):
                assert u.dtype == w.dtype and np.allclose(u, w, rtol=1e-4, atol=1e-6)
        args = (params, m, v, lr_t, x, y)
        jx = None
        if jax is not None:
            @jax.jit
            def jx_step(params, m, v, lr_t, x, y):
                loss, g = jax.value_and_grad(lambda p: mlp_loss(jnp, p, x, y))(params)
                return adam_step_fnp(jnp, params, m, v, g, lr_t) + (loss,)
            jx = lambda s=jx_step, a=args: jax.block_until_ready(s(*a))
        cases.append(Case(f"jit train step (value_and_grad + Adam) {'-'.join(map(str, sizes))} "
                          f"b{batch} f32", (lambda s=step, a=args: s(*a)),
                          (lambda h=by_hand, a=args: h(*a)), jax=jx, check=check))
    return cases


def adam_inplace_numpy(params, m, v, g, tmp, count, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """optax's Adam written by hand with in-place NumPy: every buffer preallocated, no
    temporaries (the speed limit for an optimizer step). Mutates params, m, v, tmp."""
    c1, c2 = 1 - b1 ** count, 1 - b2 ** count
    for p, mp, vp, gp, t in zip(*[fg.tree.tree_leaves(a) for a in (params, m, v, g, tmp)]):
        mp *= b1
        np.multiply(gp, 1 - b1, out=t)
        mp += t
        vp *= b2
        np.multiply(gp, gp, out=t)
        t *= 1 - b2
        vp += t
        np.divide(vp, c2, out=t)
        np.sqrt(t, out=t)
        t += eps
        np.divide(mp, t, out=t)
        t *= lr / c1
        p -= t


def optim_step_cases():
    """The jitted training step with `fg.optim.adam` against hand NumPy with in-place Adam:
    once as written, and once donating params and state (`donate_argnums=(0, 1)`, each call
    feeding the previous outputs back, as a training loop does): the compiled step then
    writes the new params and moments into the donated arrays, as the hand version does."""
    cases = []
    for sizes, batch in (((784, 512, 512, 10), 128), ((64, 128, 128, 10), 32)):
        params, x, y = mlp_problem(sizes, batch, np.float32)
        opt = fg.optim.adam(1e-3)
        state = opt.init(params)

        def train_step(params, state, x, y, opt=opt):
            loss, g = fg.value_and_grad(lambda p: mlp_loss(fnp, p, x, y))(params)
            updates, state = opt.update(g, state, params)
            return fg.optim.apply_updates(params, updates), state, loss
        step = fg.jit(train_step)
        donating = fg.jit(train_step, donate_argnums=(0, 1))
        carry = [fg.tree.tree_map(np.copy, params), fg.tree.tree_map(np.copy, state)]

        def run_donating(s=donating, c=carry, x=x, y=y):
            c[0], c[1], _ = s(c[0], c[1], x, y)

        hand = [fg.tree.tree_map(np.copy, params), fg.tree.tree_map(np.zeros_like, params),
                fg.tree.tree_map(np.zeros_like, params), fg.tree.tree_map(np.empty_like, params)]

        def by_hand(h=hand, x=x, y=y):
            loss, g = mlp_numpy(h[0], x, y)
            adam_inplace_numpy(h[0], h[1], h[2], g, h[3], 1)
            return loss

        def check(step=step, donating=donating, params=params, state=state, x=x, y=y):
            h = [fg.tree.tree_map(np.copy, params), fg.tree.tree_map(np.zeros_like, params),
                 fg.tree.tree_map(np.zeros_like, params), fg.tree.tree_map(np.empty_like, params)]
            _, g = mlp_numpy(h[0], x, y)
            adam_inplace_numpy(h[0], h[1], h[2], g, h[3], 1)
            copies = fg.tree.tree_map(np.copy, (params, state))
            for new, _, _ in (step(params, state, x, y), donating(*copies, x, y)):
                # Adam's first step is lr * g / (|g| + eps): where g ~ eps, float32 rounding
                # of g moves it by up to a few % of lr
                for u, w in zip(fg.tree.tree_leaves(new), fg.tree.tree_leaves(h[0])):
                    assert u.dtype == w.dtype and np.allclose(u, w, rtol=1e-4, atol=5e-5)
        name = f"jit train step (fg.optim.adam) {'-'.join(map(str, sizes))} b{batch} f32"
        cases.append(Case(f"{name} vs in-place Adam",
                          (lambda s=step, a=(params, state, x, y): s(*a)), by_hand, check=check))
        cases.append(Case(f"{name} donate_argnums=(0, 1) vs in-place Adam", run_donating,
                          by_hand))
    return cases


def jit_cache_hit_case():
    x = np.ones(3)
    f = fg.jit(lambda x: x + 1.0)
    jx = None
    if jax is not None:
        jf = jax.jit(lambda x: x + 1.0)
        jx = lambda: jax.block_until_ready(jf(x))
    return Case("jit cache hit: x + 1.0 on 3 elements", lambda: f(x), lambda: np.add(x, 1.0),
                jax=jx)


def _compile_time(jitted, *args):
    """First call minus the best cached call, and that cached call (seconds)."""
    t0 = timeit.default_timer()
    jitted(*args)
    first = timeit.default_timer() - t0
    cached = best_times([lambda: jitted(*args)], quick=True)[0]
    return first - cached, cached


def compile_times(depths=(50, 100, 200, 400), quick=False):
    """Seconds to trace, optimize and compile jit(grad) of `depth` unrolled tanh layers
    (fungrad, and JAX when installed)."""
    rows = []
    for depth in depths[:2] if quick else depths:
        rng = np.random.default_rng(0)
        params = [(rng.standard_normal((32, 32)) / 6, rng.standard_normal(32) / 6)
                  for _ in range(depth)]
        x = rng.standard_normal(32)

        def loss(params, x):
            for w, b in params:
                x = fnp.tanh(w @ x + b)
            return fnp.sum(x)
        row = [depth, *_compile_time(fg.jit(fg.grad(loss)), params, x)]
        if jax is not None:
            def jx_loss(params, x):
                for w, b in params:
                    x = jnp.tanh(w @ x + b)
                return jnp.sum(x)
            row += _compile_time(lambda *a, g=jax.jit(jax.grad(jx_loss)):
                                 jax.block_until_ready(g(*a)), params, x)
        rows.append(row)
    return rows


def all_cases():
    return [scalar_case(),
            mlp_case((64, 128, 128, 10), 32, np.float64),
            mlp_case((64, 128, 128, 10), 32, np.float32),
            mlp_case((784, 512, 512, 10), 128, np.float32),
            *per_example_cases(),
            jacobian_case(),
            *train_step_cases(),
            *optim_step_cases(),
            jit_cache_hit_case()]


def _version(distribution):
    from importlib import metadata
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info(quick=False, note=None):
    """Where and with what the figures were taken."""
    return {"note": note, "platform": platform.platform(), "cpu": _cpu_model(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__,
            "fungrad": fg.__version__, "autograd": _version("autograd"),
            "jax": _version("jax"), "torch": _version("torch"),
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
            "quick": quick, "date": datetime.date.today().isoformat()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--only", default=None, help="run cases whose name contains this")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="also write the rows and the machine to PATH as JSON")
    parser.add_argument("--note", default=None,
                        help="with --json: a remark on the run (e.g. the machine was busy)")
    args = parser.parse_args(argv)
    rows, compile_rows = [], []
    cases = [c for c in all_cases() if args.only is None or args.only in c.name]
    if not cases and args.only not in "compile":
        print(f"no case matches {args.only!r}", file=sys.stderr)
        return 1
    header = f"{'case':62s} {'fungrad':>10s} {'numpy':>10s} {'ratio':>6s}"
    header += f" {'autograd':>10s} {'fg/ag':>6s}" if autograd else "  (autograd not installed)"
    header += f" {'jax':>10s} {'fg/jax':>6s}" if jax else "  (jax not installed)"
    print(header)
    for c in cases:
        if c.check is not None:
            c.check()
        others = [fn for lib, fn in ((autograd, c.autograd), (jax, c.jax)) if lib is not None]
        t_fg, t_np, *t_others = best_times([c.fungrad, c.numpy] + [f for f in others if f],
                                           args.quick)
        timed = dict(zip([lib for lib, fn in (("autograd", c.autograd), ("jax", c.jax))
                          if {"autograd": autograd, "jax": jax}[lib] is not None and fn],
                         t_others))
        rows.append({"case": c.name, "fungrad_s": t_fg, "numpy_s": t_np, "ratio": t_fg / t_np,
                     "autograd_s": timed.get("autograd"), "jax_s": timed.get("jax")})
        row = f"{c.name:62s} {t_fg * 1e6:8.1f}us {t_np * 1e6:8.1f}us {t_fg / t_np:6.2f}"
        for fn in others:
            t = t_others.pop(0) if fn else None
            row += f" {t * 1e6:8.1f}us {t_fg / t:6.2f}" if t else f" {'-':>10s} {'-':>6s}"
        if c.n_prims:
            row += f"   ({t_fg * 1e6 / c.n_prims:.2f} us per primitive)"
        print(row, flush=True)
    print("gradient checks against the hand-written NumPy: OK")
    if args.only is None or "compile" in args.only:
        print("\njit compile time of grad of N unrolled layers tanh(W @ x + b), 32x32 "
              "(first call minus a cached call):")
        for depth, compile_s, call_s, *jx in compile_times(quick=args.quick):
            compile_rows.append({"layers": depth, "fungrad_compile_s": compile_s,
                                 "fungrad_call_s": call_s,
                                 "jax_compile_s": jx[0] if jx else None,
                                 "jax_call_s": jx[1] if jx else None})
            line = (f"  {depth:4d} layers: {compile_s * 1e3:7.1f} ms compile "
                    f"({compile_s / depth * 1e3:.2f} ms per layer), {call_s * 1e6:7.1f} us per call")
            if jx:
                line += f"   | jax: {jx[0] * 1e3:7.1f} ms compile, {jx[1] * 1e6:7.1f} us per call"
            print(line, flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"machine": machine_info(args.quick, args.note), "rows": rows,
                       "compile": compile_rows}, out, indent=1)
            out.write("\n")
        print("wrote", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
