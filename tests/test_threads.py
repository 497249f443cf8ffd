"""Transforms are thread-safe: each thread has its own trace stack, and jit compiles each
signature once however many threads call it."""
import sys
import threading

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


@pytest.fixture
def frequent_switches():
    """Switch threads every microsecond (default 5 ms), so transforms of different threads
    really interleave in a short test."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run_threads(work, n=4):
    """Run `work(i)` on `n` threads started together; returns their results, re-raises the
    first error."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def target(i):
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as e:  # noqa: BLE001 - reported in the main thread
            errors.append(e)
    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _loss(w, x):
    return fnp.sum(fnp.tanh(x @ w) ** 2)


def _transforms(w, xs):
    """Calls of several transforms; the jitted functions are fresh, so the threads also
    compile (and derive their grad/vmap graphs) concurrently."""
    jit_grad, jit_loss = fg.jit(fg.grad(_loss)), fg.jit(_loss)
    return [
        lambda: fg.vmap(fg.grad(_loss), in_axes=(None, 0))(w, xs),
        lambda: fg.hessian(lambda v: fnp.sum(fnp.sin(v) ** 3))(w),
        lambda: jit_grad(w, xs[0]),
        lambda: fg.grad(jit_loss)(w, xs),
        lambda: fg.vmap(fg.grad(jit_loss), in_axes=(None, 0))(w, xs),
    ]


def test_concurrent_transforms_match_single_threaded(frequent_switches):
    w = np.linspace(-1.0, 1.0, 3)
    xs = np.linspace(0.0, 1.0, 12).reshape(4, 3)
    want = [f() for f in _transforms(w, xs)]
    fns = _transforms(w, xs)

    def work(i):
        return [fns[(i + k) % len(fns)]() for k in range(100)]
    for i, outs in enumerate(_run_threads(work)):
        for k, got in enumerate(outs):
            np.testing.assert_allclose(got, want[(i + k) % len(fns)], rtol=1e-12)


def test_trace_levels_are_per_thread():
    # thread A is inside grad while thread B starts a nested transform, then A finishes
    # while B is still inside: with one shared stack, B's inner jvp got the level of its
    # outer grad and the two were confused
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()

    def fa(x):
        a_inside.set()
        assert b_inside.wait(5)
        return x * x

    def fb(x):
        b_inside.set()
        assert a_done.wait(5)
        # d/dy (x y^2) at y = x is 2 x^2, whose derivative in x is 4 x
        return fg.jvp(lambda y: x * y * y, (x,), (np.float64(1.0),))[1]

    results = {}

    def thread_a():
        results["a"] = fg.grad(fa)(1.0)
        a_done.set()

    def thread_b():
        assert a_inside.wait(5)
        results["b"] = fg.grad(fb)(2.0)
    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"a": 2.0, "b": 8.0}


def test_jit_compiles_once_under_concurrent_calls(frequent_switches):
    f = fg.jit(lambda x: fnp.sin(x) * 2.0 + fnp.cos(x))
    x = np.linspace(0.0, 1.0, 5)
    outs = _run_threads(lambda i: [f(x) for _ in range(20)])
    for out in outs:
        for o in out:
            np.testing.assert_allclose(o, np.sin(x) * 2.0 + np.cos(x))
    info = f.cache_info()
    assert (info.misses, info.size) == (1, 1)  # traced once, not once per thread


def test_leaked_tracer_raises_leaked_tracer_error():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2.0
    fg.grad(f)(1.0)
    with pytest.raises(fg.errors.LeakedTracerError, match="leaked tracer"):
        leaked[0] * 3.0


def test_recycled_jit_outputs_stay_right_under_concurrent_calls(frequent_switches):
    """jit writes a large output into an array an earlier call returned once nothing holds
    it (codegen `_recycled`): threads taking from one pool never get the same array."""
    f = fg.jit(lambda p, g: p - 0.5 * g)
    p, g = np.arange(32768.0), np.ones(32768)
    assert "_recycled(" in f.lower(p, g).source

    def work(k):
        return [np.array_equal(f(p + k, g), p + k - 0.5) for _ in range(30)]
    assert all(all(ok) for ok in _run_threads(work))


def test_donating_calls_with_scratch_and_large_outputs_match_serial_ones(frequent_switches):
    """8 threads donate their own arrays to one jitted function that keeps scratch buffers
    and returns large outputs; every result (kept across later calls) matches the serial one."""
    def step(w, a):
        t = fnp.tanh(a @ w)  # scratch
        return w - 0.1 * (a.T @ t), fnp.sum(t * t)
    f = fg.jit(step, donate_argnums=0)
    a = np.linspace(-1.0, 1.0, 64 * 128).reshape(64, 128)
    starts = [np.full((128, 128), 0.01 * k) for k in range(8)]
    want = []
    for w in starts:
        w = w.copy()
        for _ in range(5):
            w, _ = fg.jit(step)(w, a)
        want.append(w)

    def work(k):
        w, kept = starts[k].copy(), []
        for _ in range(5):
            w, loss = f(w, a)
            kept.append((w, w.copy()))
        # earlier results were donated (consumed, read-only) or stay as returned
        return np.allclose(w, want[k], rtol=1e-13, atol=0) and all(
            not old.flags.writeable or np.array_equal(old, copy) for old, copy in kept)
    assert all(_run_threads(work, n=8))
