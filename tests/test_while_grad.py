"""Reverse mode through while_loop (fungrad/lax/while_tape.py): grad / vjp eagerly, under
jit(grad) and grad(jit), against finite differences and a scan of the known trip count;
the forward loop runs once; checkpointing stores O(sqrt(n)) arrays with equal results;
jacrev (vmap of the backward loop), linearize, nesting in scan; second order (hessian,
jacfwd(grad), grad(grad)) eagerly and under jit against a Python loop and finite
differences; vmap of grad (one tape with lane masks) against per-example gradients; and the
errors for what is not supported (third order under jit, an outer derivative of jit)."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import while_tape
from fungrad.test_util import check_grads

L = fg.lax
RNG = np.random.default_rng(3)
H0 = RNG.standard_normal(3)
W = RNG.standard_normal((3, 3)) * 0.4


@pytest.fixture(autouse=True)
def _checked_graphs():
    old = fg.config.check_graphs
    fg.config.update("check_graphs", True)
    yield
    fg.config.update("check_graphs", old)


def w_loop(n, w, x, checkpoint=False):
    """A data-dependent trip count (the counter is a float argument) with a const w."""
    return L.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1.0, fnp.sin(c[1]) * w + 0.5),
                        (0.0, x), checkpoint=checkpoint)[1]


def scan_ref(n_iter, w, x):
    """The same loop as a scan of the known trip count (reverse mode of scan is the
    reference)."""
    return L.scan(lambda h, _: (fnp.sin(h) * w + 0.5, None), x, None, length=n_iter)[0]


def loss(w, x, n=3.5, checkpoint=False):
    return fnp.sum(w_loop(n, w, x, checkpoint) ** 2)


def ref_loss(w, x, n_iter=4):
    return fnp.sum(scan_ref(n_iter, w, x) ** 2)


WAYS = {"eager": lambda g: g, "jit(grad)": fg.jit, "grad(jit)": None}


def _grad(way, f, argnums=(0, 1)):
    if way == "grad(jit)":
        return fg.grad(fg.jit(f), argnums)
    g = fg.grad(f, argnums)
    return fg.jit(g) if way == "jit(grad)" else g


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("checkpoint", [False, True, 2])
def test_grad_matches_scan_of_the_trip_count(way, checkpoint):
    want = fg.grad(ref_loss, (0, 1))(0.8, H0)
    got = _grad(way, lambda w, x: loss(w, x, checkpoint=checkpoint))(0.8, H0)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("way", ["eager", "jit"])
def test_check_grads_finite_differences(way):
    f = (lambda w, x: w_loop(2.5, w, x)) if way == "eager" else fg.jit(
        lambda w, x: w_loop(2.5, w, x))
    check_grads(f, (np.array(0.7), H0), order=1, modes=("rev",))


def test_newton_iterations_until_a_tolerance():
    """sqrt(a) by Newton's method until converged: the derivative is 1 / (2 sqrt(a))."""
    def newton_sqrt(a):
        def body(c):
            x, _ = c
            new = 0.5 * (x + a / x)
            return new, fnp.abs(new - x)
        return L.while_loop(lambda c: fnp.max(c[1]) > 1e-12, body, (a, fnp.ones_like(a)))[0]
    a = np.array([2.0, 9.0, 0.3])
    for g in (fg.grad(lambda a: fnp.sum(newton_sqrt(a))),
              fg.jit(fg.grad(lambda a: fnp.sum(newton_sqrt(a)))),
              fg.grad(fg.jit(lambda a: fnp.sum(newton_sqrt(a))))):
        np.testing.assert_allclose(g(a), 0.5 / np.sqrt(a), rtol=1e-9)


def test_pytree_carry_and_closed_over_parameter():
    """A dict carry and a parameter the body reads from the enclosing scope (not the carry)."""
    def f(params, h):
        def body(c):
            h = fnp.tanh(params["w"] @ c["h"] + params["b"])
            return {"h": h, "i": c["i"] + 1, "s": c["s"] + fnp.sum(h)}
        out = L.while_loop(lambda c: c["i"] < 5, body, {"h": h, "i": 0, "s": 0.0})
        return out["s"] + fnp.sum(out["h"] ** 2)

    def f_ref(params, h):
        def step(c, _):
            h = fnp.tanh(params["w"] @ c[0] + params["b"])
            return (h, c[1] + fnp.sum(h)), None
        (h, s), _ = L.scan(step, (h, 0.0), None, length=5)
        return s + fnp.sum(h ** 2)
    params = {"w": W, "b": RNG.standard_normal(3)}
    want = fg.grad(f_ref, (0, 1))(params, H0)
    for way in WAYS:
        got = _grad(way, f)(params, H0)
        for g, r in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
            np.testing.assert_allclose(g, r, rtol=1e-12)


@pytest.mark.parametrize("way", list(WAYS))
def test_zero_iterations(way):
    got = _grad(way, lambda w, x: loss(w, x, n=-1.0))(0.8, H0)
    np.testing.assert_array_equal(got[0], 0.0)
    np.testing.assert_allclose(got[1], 2 * H0)


def test_vjp_called_twice_and_linearize():
    y, f_vjp = fg.vjp(lambda w, x: w_loop(3.5, w, x), 0.8, H0)
    ct = RNG.standard_normal(3)
    a, b = f_vjp(ct), f_vjp(ct)  # the tape is replayed, not consumed
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    # linearize evaluates the linear loop (while_lin) forward
    t = (np.array(0.3), RNG.standard_normal(3))
    _, f_lin = fg.linearize(lambda w, x: w_loop(3.5, w, x), 0.8, H0)
    _, want = fg.jvp(lambda w, x: w_loop(3.5, w, x), (0.8, H0), t)
    np.testing.assert_allclose(f_lin(*t), want, rtol=1e-12)


def _count_iterations(n, body_calls):
    def body(c):
        fg.debug.callback(lambda: body_calls.append(1))
        return c[0] + 1.0, fnp.sin(c[1]) * 0.9
    return lambda x: fnp.sum(L.while_loop(lambda c: c[0] < n, body, (0.0, x))[1])


@pytest.mark.parametrize("way", list(WAYS))
def test_the_forward_loop_runs_once(way):
    calls: list = []
    f = _count_iterations(4.5, calls)
    g = _grad(way, f, 0)
    g(H0)
    calls.clear()
    g(H0)
    assert len(calls) == 5


def test_checkpoint_stores_sqrt_n_arrays_with_equal_results(monkeypatch):
    tapes: list = []
    monkeypatch.setattr(while_tape, "tape_observer", tapes.append)
    n = 400
    w = 0.3
    plain = fg.grad(loss, (0, 1))(w, H0, n - 0.5)
    ckpt = fg.grad(lambda w, x: loss(w, x, n - 0.5, True), (0, 1))(w, H0)
    for a, b in zip(plain, ckpt):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    full, sparse = tapes
    assert full.n == sparse.n == n
    per_iter = full.stored_arrays() // n
    assert per_iter >= 1 and sparse.checkpoints is not None
    # checkpoints plus one recomputed segment: O(sqrt(n)) arrays, not O(n)
    held = sparse.stored_arrays() + sparse.k * per_iter
    assert held <= 4 * np.sqrt(n) * max(per_iter, 2), (held, sparse.k)
    assert np.sqrt(n) <= sparse.k <= 2 * np.sqrt(n)
    # a fixed k stores every k-th carry
    fg.grad(lambda w, x: loss(w, x, n - 0.5, 50), (0, 1))(w, H0)
    assert tapes[-1].k == 50 and len(tapes[-1].checkpoints) == n // 50


def test_jacrev_vmaps_the_backward_loop():
    f = lambda x: w_loop(3.5, 0.8, x) * fnp.arange(1.0, 4.0)  # noqa: E731
    want = fg.jacfwd(f)(H0)
    np.testing.assert_allclose(fg.jacrev(f)(H0), want, rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.jacrev(f))(H0), want, rtol=1e-12)
    np.testing.assert_allclose(fg.jacrev(fg.jit(f))(H0), want, rtol=1e-12)


def test_grad_of_vmapped_loop_with_per_lane_trip_counts():
    ns = np.array([0.5, 2.5, 4.5])
    xs = RNG.standard_normal((3, 3))

    def f(xs):
        return fnp.sum(fg.vmap(lambda n, x: w_loop(n, 0.8, x))(ns, xs) ** 2)
    want = np.stack([fg.grad(lambda x: loss(0.8, x, n))(x) for n, x in zip(ns, xs)])
    np.testing.assert_allclose(fg.grad(f)(xs), want, rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(xs), want, rtol=1e-12)


def test_while_inside_scan_under_grad():
    def f(w, x):
        def step(h, _):
            return w_loop(1.5, w, h), fnp.sum(h)
        h, ys = L.scan(step, x, None, length=3)
        return fnp.sum(h) + fnp.sum(ys)

    def ref(w, x):
        def step(h, _):
            return scan_ref(2, w, h), fnp.sum(h)
        h, ys = L.scan(step, x, None, length=3)
        return fnp.sum(h) + fnp.sum(ys)
    want = fg.grad(ref, (0, 1))(0.8, H0)
    for way in WAYS:
        for g, r in zip(_grad(way, f)(0.8, H0), want):
            np.testing.assert_allclose(g, r, rtol=1e-12)


def test_second_order_eagerly():
    check_grads(lambda w, x: w_loop(2.5, w, x), (np.array(0.7), H0), order=2)
    h = fg.grad(fg.grad(lambda w: loss(w, H0)))(0.8)
    np.testing.assert_allclose(h, fg.grad(fg.grad(lambda w: ref_loss(w, H0)))(0.8), rtol=1e-10)


def test_unsupported_combinations_raise_naming_the_alternative():
    with pytest.raises(NotImplementedError, match=r"order 3 or more under fg.jit"):
        fg.jit(fg.grad(fg.grad(fg.grad(lambda w: loss(w, H0)))))(0.8)
    with pytest.raises(NotImplementedError, match=r"Put fg.jit outermost"):
        fg.hessian(fg.jit(lambda x: loss(0.8, x)))(H0)
    with pytest.raises(TypeError, match="checkpoint must be False, True"):
        w_loop(1.0, 0.8, H0, checkpoint=0)


# ----------------------------------------------------------------------------- second order
A = RNG.standard_normal((3, 3)) * 0.5


def mixing_loop(n, x, checkpoint=False):
    """A loop whose Hessian is not diagonal (the carry's entries mix through A)."""
    return L.while_loop(lambda c: c[0] < n,
                        lambda c: (c[0] + 1.0, fnp.tanh(A @ c[1]) * 1.1 + 0.1 * c[1]),
                        (0.0, x), checkpoint=checkpoint)[1]


def python_loop(n, x):
    c = 0.0
    while c < n:
        c, x = c + 1.0, fnp.tanh(A @ x) * 1.1 + 0.1 * x
    return x


def mix_loss(x, n=2.5, checkpoint=False):
    return fnp.sum(mixing_loop(n, x, checkpoint) ** 2 * fnp.arange(1.0, 4.0))


def py_loss(x, n=2.5):
    return fnp.sum(python_loop(n, x) ** 2 * fnp.arange(1.0, 4.0))


def fd_hessian(f, x, eps=1e-5):
    g = fg.grad(f)
    return np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


SECOND_ORDER = {
    "hessian": lambda f: fg.hessian(f),
    "jacfwd(grad)": lambda f: fg.jacfwd(fg.grad(f)),
    "jacrev(grad)": lambda f: fg.jacrev(fg.grad(f)),
    "jit(hessian)": lambda f: fg.jit(fg.hessian(f)),
    "jit(jacfwd(grad))": lambda f: fg.jit(fg.jacfwd(fg.grad(f))),
    "jit(jacrev(grad))": lambda f: fg.jit(fg.jacrev(fg.grad(f))),
}


@pytest.mark.parametrize("how", list(SECOND_ORDER))
@pytest.mark.parametrize("n", [0.5, 2.5, 4.5])
def test_full_hessian_matches_python_loop_and_finite_differences(how, n):
    """The whole Hessian (every entry, not only the diagonal) through while_loop, for
    different trip counts, eagerly and under jit."""
    x = np.array([0.3, -0.5, 0.8])
    want = fg.hessian(lambda x: py_loss(x, n))(x)
    off = np.abs(want - np.diag(np.diag(want))).max()
    assert off > 0.1 * np.abs(want).max()  # (really not diagonal)
    np.testing.assert_allclose(fd_hessian(lambda x: py_loss(x, n), x), want, rtol=1e-6,
                               atol=1e-9)
    got = SECOND_ORDER[how](lambda x: mix_loss(x, n))(x)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("checkpoint", [False, True])
def test_grad_of_grad_under_jit(checkpoint):
    f = lambda w: loss(w, H0, checkpoint=checkpoint)  # noqa: E731
    want = fg.grad(fg.grad(lambda w: ref_loss(w, H0)))(0.8)
    np.testing.assert_allclose(fg.jit(fg.grad(fg.grad(f)))(0.8), want, rtol=1e-10)
    gg = fg.jit(fg.grad(lambda x: fnp.sum(fg.grad(lambda x: loss(0.8, x, 3.5, checkpoint))(x))))
    want = fg.grad(lambda x: fnp.sum(fg.grad(lambda x: ref_loss(0.8, x))(x)))(H0)
    np.testing.assert_allclose(gg(H0), want, rtol=1e-10)


def test_jit_hessian_of_zero_trips_is_the_outer_functions():
    np.testing.assert_allclose(fg.jit(fg.hessian(lambda x: mix_loss(x, -1.0)))(H0),
                               np.diag(2 * np.arange(1.0, 4.0)), atol=1e-14)


# ----------------------------------------------------------------------------- vmap of grad
NS = np.array([0.5, 2.5, 4.5, -1.0])  # 1, 3, 5 and 0 trips
XS = RNG.standard_normal((4, 3))
WS = np.array([0.6, 0.7, 0.8, 0.9])


def per_example(f, *args):
    return [np.stack(z) for z in zip(*[f(*a) for a in zip(*args)])]


VMAPS = {"eager": lambda g: g, "jit(vmap)": fg.jit, "vmap(jit)": None}


def _vmap_grad(way, f, in_axes):
    g = fg.grad(f, (1, 2))
    if way == "vmap(jit)":
        return fg.vmap(fg.jit(g), in_axes=in_axes)
    return VMAPS[way](fg.vmap(g, in_axes=in_axes))


@pytest.mark.parametrize("way", list(VMAPS))
@pytest.mark.parametrize("in_axes", [(0, None, 0), (0, 0, None), (None, 0, 0), (0, 0, 0)])
@pytest.mark.parametrize("checkpoint", [False, True])
def test_vmap_of_grad_matches_per_example_grads(way, in_axes, checkpoint):
    """Per-example gradients through a loop whose lanes stop after different trip counts
    (or the same one when n is shared), with batched and shared arguments."""
    args = [a if ax == 0 else a[1] for a, ax in zip((NS, WS, XS), in_axes)]
    f = lambda n, w, x: loss(w, x, n, checkpoint)  # noqa: E731
    want = per_example(lambda n, w, x: fg.grad(lambda w, x: fnp.sum(
        python_w_loop(n, w, x) ** 2), (0, 1))(w, x),
        *[a if ax == 0 else [a] * 4 for a, ax in zip(args, in_axes)])
    got = _vmap_grad(way, f, in_axes)(*args)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-14)


def python_w_loop(n, w, x):
    c = 0.0
    while c < n:
        c, x = c + 1.0, fnp.sin(x) * w + 0.5
    return x


def test_vmap_of_grad_records_one_tape_with_lane_masks(monkeypatch):
    tapes = []
    monkeypatch.setattr(while_tape, "tape_observer", tapes.append)
    fg.vmap(fg.grad(lambda n, x: loss(0.8, x, n), 1))(NS, XS)
    (tape,) = tapes
    assert tape.n == 5 and [int(m.sum()) for m in tape.masks] == [3, 2, 2, 1, 1]


def test_jacrev_and_nested_vmap_of_grad():
    f = lambda n, x: w_loop(n, 0.8, x) * fnp.arange(1.0, 4.0)  # noqa: E731
    want = np.stack([fg.jacfwd(f, 1)(n, x) for n, x in zip(NS, XS)])
    np.testing.assert_allclose(fg.vmap(fg.jacrev(f, 1))(NS, XS), want, rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.vmap(fg.jacrev(f, 1)))(NS, XS), want, rtol=1e-12)
    # two vmaps: the lanes of both (the loop is replayed, see docs/design.md)
    g = fg.vmap(fg.vmap(fg.grad(lambda n, x: loss(0.8, x, n), 1)))
    want = np.stack([fg.grad(lambda x: loss(0.8, x, n))(x) for n, x in zip(NS, XS)])
    np.testing.assert_allclose(g(NS.reshape(2, 2), XS.reshape(2, 2, 3)),
                               want.reshape(2, 2, 3), rtol=1e-12)


def test_the_tape_is_opaque_in_the_ir():
    lowered = fg.jit(fg.grad(lambda w: loss(w, H0))).lower(0.8)
    assert "while_fwd" in lowered.source and "while_bwd" in lowered.source
    assert "tape" in str(lowered.ir)
    # the tape is freed (its name deleted) right after the backward loop has read it
    lines = lowered.source.splitlines()
    fwd = next(ln for ln in lines if "while_fwd" in ln)
    tape = fwd.split("=")[0].split(",")[-1].strip()
    bwd = next(i for i, ln in enumerate(lines) if "while_bwd" in ln)
    assert lines[bwd + 1].strip() == f"del {tape}"
