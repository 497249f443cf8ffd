"""Loop speed: `fg.lax.scan` and `fg.lax.fori_loop` under jit, against hand-written NumPy.

1. `jit(grad)` of an RNN, h_t = tanh(W h_{t-1} + U x_t), loss = sum of every h_t, written
   with `scan` over 1,000 steps (hidden 64, input 32): compile time (first call minus one
   run) and run time, against a hand-written NumPy forward + backward loop (the same
   per-step operations: two matrix-vector products forward; two outer products and one
   matrix-vector product backward). Targets: compile < 0.3 s, run <= 1.2x NumPy.
2. A `fori_loop` of 10,000 tiny steps (x = x * 0.999 + 0.001 on a 4-vector) under jit,
   against a plain Python loop of the same NumPy calls. Target <= 3x.

JAX's figures (jax.jit on CPU, x64) are printed beside when JAX is installed.

    PYTHONPATH=. python benchmarks/loops.py
"""
from __future__ import annotations

import time
import timeit

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp

T, HIDDEN, INPUT = 1000, 64, 32
STEPS = 10_000


def best(fn, number=None):
    fn()
    number = number or max(1, int(0.3 / max(timeit.timeit(fn, number=1), 1e-6)))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def rnn_loss(params, h0, xs):
    W, U = params

    def step(h, x):
        h = fnp.tanh(W @ h + U @ x)
        return h, h
    _, hs = fg.lax.scan(step, h0, xs)
    return fnp.sum(hs)


def numpy_rnn_grad(params, h0, xs):
    """Forward and backward by hand, one step at a time."""
    W, U = params
    hs = np.empty((len(xs) + 1, len(h0)))
    hs[0] = h0
    for t in range(len(xs)):
        hs[t + 1] = np.tanh(W @ hs[t] + U @ xs[t])
    dW, dU, dh = np.zeros_like(W), np.zeros_like(U), np.zeros_like(h0)
    for t in range(len(xs) - 1, -1, -1):
        da = (dh + 1.0) * (1.0 - hs[t + 1] * hs[t + 1])
        dW += np.outer(da, hs[t])
        dU += np.outer(da, xs[t])
        dh = W.T @ da
    return dW, dU


def bench_rnn(jax):
    rng = np.random.default_rng(0)
    params = (rng.normal(size=(HIDDEN, HIDDEN)) / np.sqrt(HIDDEN),
              rng.normal(size=(HIDDEN, INPUT)) / np.sqrt(INPUT))
    h0, xs = np.zeros(HIDDEN), rng.normal(size=(T, INPUT))
    jg = fg.jit(fg.grad(rnn_loss))
    t0 = time.perf_counter()
    got = jg(params, h0, xs)
    first = time.perf_counter() - t0
    want = numpy_rnn_grad(params, h0, xs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    run = best(lambda: jg(params, h0, xs))
    ref = best(lambda: numpy_rnn_grad(params, h0, xs))
    print(f"RNN jit(grad), scan over {T} steps, hidden {HIDDEN} (float64)")
    print(f"  fungrad compile (first call - run)  {(first - run) * 1e3:8.1f} ms   (target < 300)")
    print(f"  fungrad run                         {run * 1e3:8.2f} ms")
    print(f"  numpy forward+backward loop         {ref * 1e3:8.2f} ms")
    print(f"  ratio fungrad / numpy               {run / ref:8.2f}      (target <= 1.2)")
    if jax is not None:
        jnp = jax.numpy

        def jloss(params, h0, xs):
            W, U = params
            _, hs = jax.lax.scan(lambda h, x: (jnp.tanh(W @ h + U @ x),) * 2, h0, xs)
            return hs.sum()
        jjg = jax.jit(jax.grad(jloss))
        jargs = jax.tree_util.tree_map(jnp.asarray, (params, h0, xs))
        t0 = time.perf_counter()
        jax.block_until_ready(jjg(*jargs))
        jfirst = time.perf_counter() - t0
        jrun = best(lambda: jax.block_until_ready(jjg(*jargs)))
        print(f"  jax compile (first call - run)      {(jfirst - jrun) * 1e3:8.1f} ms")
        print(f"  jax run (CPU)                       {jrun * 1e3:8.2f} ms")


def bench_fori(jax):
    x0 = np.linspace(0.0, 1.0, 4)
    f = fg.jit(lambda x: fg.lax.fori_loop(0, STEPS, lambda i, x: x * 0.999 + 0.001, x))

    def numpy_loop(x):
        for _ in range(STEPS):
            x = np.add(np.multiply(x, 0.999), 0.001)
        return x
    np.testing.assert_allclose(f(x0), numpy_loop(x0))
    run, ref = best(lambda: f(x0)), best(lambda: numpy_loop(x0))
    print(f"fori_loop of {STEPS} tiny steps (4-vector, float64)")
    print(f"  fungrad jit                         {run * 1e3:8.2f} ms")
    print(f"  numpy Python loop                   {ref * 1e3:8.2f} ms")
    print(f"  ratio fungrad / numpy               {run / ref:8.2f}      (target <= 3)")
    if jax is not None:
        jf = jax.jit(lambda x: jax.lax.fori_loop(0, STEPS, lambda i, x: x * 0.999 + 0.001, x))
        jx = jax.numpy.asarray(x0)
        print(f"  jax jit (CPU)                       "
              f"{best(lambda: jf(jx).block_until_ready()) * 1e3:8.2f} ms")


def main():
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
    except ImportError:
        jax = None
    bench_rnn(jax)
    bench_fori(jax)


if __name__ == "__main__":
    main()
