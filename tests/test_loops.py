"""fg.lax.scan / fori_loop / map: values vs Python loops, derivatives vs finite differences
(forward and reverse, eager and jitted), vmap vs a loop (batched carries, xs and consts),
jit vs eager (a real loop in the generated code), nesting, and errors that name the leaf."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError
from fungrad.test_util import check_grads

L = fg.lax
RNG = np.random.default_rng(0)
W = RNG.standard_normal((3, 3)) * 0.5
XS = RNG.standard_normal((5, 3))
H0 = RNG.standard_normal(3)


def rnn(w, h0, xs, reverse=False):
    def step(h, x):
        h = fnp.tanh(w @ h + x)
        return h, fnp.sum(h * h)
    h, ys = L.scan(step, h0, xs, reverse=reverse)
    return fnp.sum(h) + fnp.sum(ys * fnp.arange(1.0, len(xs) + 1.0))


def np_rnn(w, h0, xs, reverse=False):
    h, ys = h0, np.zeros(len(xs))
    for t in (range(len(xs) - 1, -1, -1) if reverse else range(len(xs))):
        h = np.tanh(w @ h + xs[t])
        ys[t] = np.sum(h * h)
    return h.sum() + np.sum(ys * np.arange(1.0, len(xs) + 1.0))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_values_and_derivatives(reverse):
    f = lambda w, h, xs: rnn(w, h, xs, reverse)  # noqa: E731
    want = np_rnn(W, H0, XS, reverse)
    np.testing.assert_allclose(f(W, H0, XS), want)
    np.testing.assert_allclose(fg.jit(f)(W, H0, XS), want)
    check_grads(f, (W, H0, XS), order=2)
    check_grads(fg.jit(f), (W, H0, XS), order=1)


def test_jit_grad_and_grad_jit_agree_with_eager_grad():
    g = fg.grad(rnn, argnums=(0, 1, 2))
    want = g(W, H0, XS)
    for got in (fg.jit(g)(W, H0, XS), fg.grad(fg.jit(rnn), argnums=(0, 1, 2))(W, H0, XS)):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_pytree_carry_xs_ys_and_python_scalar_init():
    def step(c, x):
        new = {"s": c["s"] + x["a"] * x["b"], "n": c["n"] + 1}
        return new, (c["s"], [x["a"] * 2.0])
    xs = {"a": XS[:, 0], "b": XS[:, 1]}
    c, (prev, [twice]) = L.scan(step, {"s": 0.0, "n": np.int64(0)}, xs)
    np.testing.assert_allclose(c["s"], np.sum(XS[:, 0] * XS[:, 1]))
    assert c["n"] == 5 and c["n"].dtype == np.int64
    np.testing.assert_allclose(prev, np.concatenate([[0.0], np.cumsum(XS[:, 0] * XS[:, 1])[:-1]]))
    np.testing.assert_allclose(twice, XS[:, 0] * 2.0)
    # a Python scalar init takes the dtype the body computes (as JAX promotes weak types)
    x32 = XS[:, 0].astype(np.float32)
    c32, _ = L.scan(lambda c, x: (c + x, None), 0.0, x32)
    assert c32.dtype == np.float32


def test_xs_none_with_length_zero_length_and_unused_carry():
    c, ys = L.scan(lambda c, _: (c * 2.0, c), np.array(1.0), None, length=4)
    np.testing.assert_allclose(c, 16.0)
    np.testing.assert_allclose(ys, [1.0, 2.0, 4.0, 8.0])
    c, ys = L.scan(lambda c, x: (c + x, x * 2.0), H0, XS[:0])
    np.testing.assert_allclose(c, H0)
    assert c is not H0 and ys.shape == (0, 3)
    jc, jys = fg.jit(lambda h: L.scan(lambda c, x: (c + x, x * 2.0), h, XS[:0]))(H0)
    np.testing.assert_allclose(jc, H0)
    assert ys.shape == (0, 3)
    check_grads(lambda h: L.scan(lambda c, x: (c + x, x), h, XS[:0])[0], (H0,), order=1)


def test_carry_tangent_zero_at_entry_becomes_nonzero():
    # s starts constant; its tangent appears in the second iteration through c (from xs)
    def f(xs):
        def step(carry, x):
            s, c = carry
            return (s + fnp.sin(c), x * x), s
        (s, c), ys = L.scan(step, (np.array(0.0), np.array(0.0)), xs)
        return s + c + fnp.sum(ys)
    xs = XS[:, 0]
    check_grads(f, (xs,), order=2)
    check_grads(fg.jit(f), (xs,), order=1)
    # the closed-over weight reaches the carry only inside the body
    check_grads(lambda w: L.scan(lambda c, x: (c + w * x, c), np.array(0.0), xs)[1],
                (np.array(0.3),), order=2)


def test_reverse_mode_stacks_no_copy_of_consts_or_xs():
    # W (a const) and xs are residuals of the linear body: they are passed to the linear
    # scan as they are, not stacked once per iteration
    ir = fg.make_ir(fg.grad(rnn))(W, H0, XS)
    scans = [e for e in ir.graph.eqns if e.prim.name == "scan"]
    assert len(scans) == 2  # the known (forward) scan and the transposed one
    stacked = [v.aval.shape for v in scans[0].outputs[1:]]
    assert (5, 3, 3) not in stacked  # W is not stacked
    assert all(s[0] == 5 for s in stacked)


def test_vmap_batched_carry_xs_and_consts():
    ws = RNG.standard_normal((4, 3, 3)) * 0.5
    hs = RNG.standard_normal((4, 3))
    xss = RNG.standard_normal((4, 5, 3))
    for axes, args in [((0, None, None), (ws, H0, XS)), ((None, 0, None), (W, hs, XS)),
                       ((None, None, 0), (W, H0, xss)), ((0, 0, 0), (ws, hs, xss)),
                       ((None, None, 1), (W, H0, np.moveaxis(xss, 0, 1)))]:
        got = fg.vmap(rnn, in_axes=axes)(*args)
        lanes = [tuple(a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, axes))
                 for i in range(4)]
        np.testing.assert_allclose(got, [np_rnn(*lane) for lane in lanes])
        np.testing.assert_allclose(fg.jit(fg.vmap(rnn, in_axes=axes))(*args), got)


def test_vmap_stacked_ys_keep_their_batch_axis():
    xss = RNG.standard_normal((4, 5, 3))
    c, ys = fg.vmap(lambda xs: L.scan(lambda c, x: (c + x, c * x), np.zeros(3), xs))(xss)
    np.testing.assert_allclose(c, xss.sum(1))
    prev = np.cumsum(xss, axis=1) - xss
    np.testing.assert_allclose(ys, prev * xss)
    # vmap's out_axes=1 puts the batch after the loop axis
    _, ys1 = fg.vmap(lambda xs: L.scan(lambda c, x: (c + x, c * x), np.zeros(3), xs),
                     out_axes=1)(xss)
    np.testing.assert_allclose(ys1, np.moveaxis(prev * xss, 0, 1))


def test_jit_emits_a_python_loop_around_a_compiled_body():
    jf = fg.jit(rnn)
    low = jf.lower(W, H0, XS)
    assert [e.prim.name for e in low.ir.graph.eqns].count("scan") == 1
    loop = next(v for k, v in low.call.compiled.fn.__globals__.items() if k.startswith("scan"))
    assert "for i in range(5):" in loop.source and "body(" in loop.source


def test_cond_inside_scan():
    def f(xs):
        def step(c, x):
            c = L.cond(x > 0, lambda c: c + fnp.sin(x), lambda c: c * x, c)
            return c, c
        return L.scan(step, np.array(0.5), xs)

    def np_f(xs):
        c, ys = 0.5, []
        for x in xs:
            c = c + np.sin(x) if x > 0 else c * x
            ys.append(c)
        return c, np.array(ys)
    xs = XS[:, 0]
    for g in (f, fg.jit(f)):
        for a, b in zip(g(xs), np_f(xs)):
            np.testing.assert_allclose(a, b)
    check_grads(lambda xs: f(xs)[1], (xs,), order=2)
    check_grads(lambda xs: fg.jit(f)(xs)[1], (xs,), order=1)


def test_scan_inside_scan():
    def f(w, xss):
        def outer(c, xs):
            inner_c, ys = L.scan(lambda h, x: (fnp.tanh(w * h + x), h), c, xs)
            return inner_c, fnp.sum(ys)
        return L.scan(outer, np.array(0.1), xss)

    def np_f(w, xss):
        c, out = 0.1, []
        for xs in xss:
            tot = 0.0
            for x in xs:
                tot += c
                c = np.tanh(w * c + x)
            out.append(tot)
        return c, np.array(out)
    xss = RNG.standard_normal((3, 4))
    for a, b in zip(f(0.7, xss), np_f(0.7, xss)):
        np.testing.assert_allclose(a, b)
    for a, b in zip(fg.jit(f)(0.7, xss), np_f(0.7, xss)):
        np.testing.assert_allclose(a, b)
    check_grads(f, (np.array(0.7), xss), order=2)
    check_grads(fg.jit(f), (np.array(0.7), xss), order=1)
    check_grads(lambda w, x: fg.jit(fg.grad(lambda w: f(w, x)[0]))(w), (np.array(0.7), xss),
                order=1, modes=("rev",))


def test_scan_inside_vmap_inside_grad():
    def loss(w, xss):
        per = fg.vmap(lambda xs: rnn(w, H0, xs))(xss)
        return fnp.sum(per * per)
    xss = RNG.standard_normal((2, 5, 3))
    check_grads(loss, (W, xss), order=1)
    got = fg.grad(loss)(W, xss)
    want = sum(fg.grad(lambda w: rnn(w, H0, x) ** 2)(W) for x in xss)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(W, xss), want, rtol=1e-10)


def test_fori_loop_values_grad_and_index():
    f = lambda x: L.fori_loop(0, 6, lambda i, x: fnp.sin(x) * i + x, x)  # noqa: E731

    def np_f(x):
        for i in range(6):
            x = np.sin(x) * i + x
        return x
    np.testing.assert_allclose(f(H0), np_f(H0))
    np.testing.assert_allclose(fg.jit(f)(H0), np_f(H0))
    check_grads(f, (H0,), order=2)
    check_grads(fg.jit(f), (H0,), order=1)
    seen = L.fori_loop(3, 7, lambda i, acc: acc + i, np.int64(0))
    assert seen == 3 + 4 + 5 + 6
    np.testing.assert_allclose(L.fori_loop(5, 2, lambda i, x: x + 1.0, 1.0), 1.0)  # empty
    with pytest.raises(TypeError, match="upper must be an integer scalar, got f64"):
        L.fori_loop(0, 3.0, lambda i, x: x, 1.0)


@pytest.mark.parametrize("batch_size", [None, 2, 3, 7])
def test_map(batch_size):
    xs = RNG.standard_normal((6, 3))
    f = lambda x: {"n": fnp.sum(x * x), "s": fnp.sin(x)}  # noqa: E731
    got = L.map(f, xs, batch_size=batch_size)
    np.testing.assert_allclose(got["n"], (xs * xs).sum(1))
    np.testing.assert_allclose(got["s"], np.sin(xs))
    check_grads(lambda xs: L.map(lambda x: fnp.sin(x) * x, xs, batch_size=batch_size), (xs,))


def test_errors_name_the_leaf():
    with pytest.raises(TypeError, match=r"changes the shape of carry\['b'\].*f64\[3\] in init "
                                        r"but the body returns f64\[1,3\]"):
        L.scan(lambda c, x: ({"a": c["a"], "b": c["b"][None]}, None),
               {"a": 1.0, "b": H0}, XS)
    with pytest.raises(TypeError, match=r"changes the dtype of carry\[1\].*f32\[3\] in init.*"
                                        r"f64\[3\].*astype"):
        L.scan(lambda c, x: ((c[0], c[1] + x), None), (H0, H0.astype(np.float32)), XS)
    with pytest.raises(TypeError, match="same pytree structure as init"):
        L.scan(lambda c, x: ((c, c), None), H0, XS)
    with pytest.raises(TypeError, match=r"must return a pair \(carry, y\)"):
        L.scan(lambda c, x: c, H0, XS)
    with pytest.raises(ValueError, match="must agree on the loop length"):
        L.scan(lambda c, x: (c, None), H0, (XS, XS[:2]))
    with pytest.raises(ValueError, match="must agree on the loop length"):
        L.scan(lambda c, x: (c, None), H0, XS, length=3)
    with pytest.raises(ValueError, match="pass length="):
        L.scan(lambda c, x: (c, None), H0, None)
    with pytest.raises(TypeError, match=r"xs\[1\] is a scalar"):
        L.scan(lambda c, x: (c, None), H0, (XS, 1.0))
    # Python control flow on the carry names the structured alternatives
    with pytest.raises(ConcretizationError, match="fg.lax.cond"):
        L.scan(lambda c, x: (c if c.sum() > 0 else -c, None), H0, XS)


# ----------------------------------------------------------------------------- while_loop
def w_loop(n, w, x):
    return L.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1.0, fnp.sin(c[1]) * w + 0.5),
                        (0.0, x))[1]


def np_w_loop(n, w, x):
    i = 0.0
    while i < n:
        i, x = i + 1.0, np.sin(x) * w + 0.5
    return x


def test_while_loop_values_jit_and_python_while():
    for n in (0.5, 3.5, -1.0):
        np.testing.assert_allclose(w_loop(n, 0.8, H0), np_w_loop(n, 0.8, H0))
        np.testing.assert_allclose(fg.jit(w_loop)(n, 0.8, H0), np_w_loop(n, 0.8, H0))
    src = fg.jit(w_loop).lower(3.5, 0.8, H0).source
    loop = next(v for k, v in fg.jit(w_loop).lower(3.5, 0.8, H0).call.compiled.fn.__globals__
                .items() if k.startswith("while_loop"))
    assert "while_loop" in src and "while cond(" in loop.source
    out = L.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))
    assert out == (5, 32.0) and out[0].dtype == np.int64


def test_while_loop_derivatives_forward_and_reverse_everywhere():
    args = (np.array(3.5), np.array(0.8), H0)
    check_grads(lambda w, x: w_loop(args[0], w, x), args[1:], order=2)
    check_grads(lambda w, x: fg.jit(w_loop)(args[0], w, x), args[1:], order=1,
                modes=("fwd",))
    g = fg.grad(lambda w: fnp.sum(w_loop(3.5, w, H0)))(0.8)
    eps = 1e-6
    fd = (np_w_loop(3.5, 0.8 + eps, H0).sum() - np_w_loop(3.5, 0.8 - eps, H0).sum()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6)
    # reverse mode under jit records a tape (tests/test_while_grad.py)
    np.testing.assert_allclose(fg.jit(fg.grad(lambda w: fnp.sum(w_loop(3.5, w, H0))))(0.8), g,
                               rtol=1e-12)


def test_while_loop_vmap_batched_predicate_and_batched_carry():
    ns = np.array([0.5, 1.5, 3.5, -1.0])
    xs = RNG.standard_normal((4, 3))
    want = [np_w_loop(n, 0.8, x) for n, x in zip(ns, xs)]
    np.testing.assert_allclose(fg.vmap(w_loop, in_axes=(0, None, 0))(ns, 0.8, xs), want)
    np.testing.assert_allclose(fg.jit(fg.vmap(w_loop, in_axes=(0, None, 0)))(ns, 0.8, xs),
                               want)
    # an unbatched predicate with a batched carry / const
    np.testing.assert_allclose(fg.vmap(w_loop, in_axes=(None, None, 0))(2.5, 0.8, xs),
                               [np_w_loop(2.5, 0.8, x) for x in xs])
    ws = np.array([0.1, 0.5, 0.9, 1.2])
    np.testing.assert_allclose(fg.vmap(w_loop, in_axes=(0, 0, None))(ns, ws, H0),
                               [np_w_loop(n, w, H0) for n, w in zip(ns, ws)])


def test_fori_loop_with_traced_bounds_is_a_while_loop():
    f = fg.jit(lambda n, x: L.fori_loop(1, n, lambda i, x: x * i, x))
    np.testing.assert_allclose(f(5, 2.0), 2.0 * 24)
    assert "while_loop" in f.lower(5, 2.0).source
    check_grads(lambda x: f(5, x), (np.array(2.0),), modes=("fwd",))


def test_while_loop_errors():
    with pytest.raises(TypeError, match=r"changes the shape of carry\[1\].*f64\[3\] in init"):
        L.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1][:2]), (0, H0))
    with pytest.raises(TypeError, match="same pytree structure as init_val"):
        L.while_loop(lambda c: c[0] < 3, lambda c: [c[0] + 1, c[1]], (0, H0))
    with pytest.raises(TypeError, match="cond_fun must return a bool scalar.*fnp.any"):
        L.while_loop(lambda x: x < 3.0, lambda x: x + 1.0, H0)


# ----------------------------------------------------------------------------- unroll
def _rnn(unroll, reverse):
    w = np.random.default_rng(3).standard_normal((4, 4)) * 0.4

    def f(h, xs):
        def step(h, x):
            h = fnp.tanh(w @ h + x)
            return h, (fnp.sum(h), h * 2.0)
        return fg.lax.scan(step, h, xs, unroll=unroll, reverse=reverse)
    return f


@pytest.mark.parametrize("n", [0, 1, 7, 8])
@pytest.mark.parametrize("unroll", [2, 3, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_unroll_gives_the_same_values_and_gradients(n, unroll, reverse):
    rng = np.random.default_rng(n)
    h, xs = rng.standard_normal(4), rng.standard_normal((n, 4))
    want = _rnn(1, reverse)(h, xs)
    for run in (_rnn(unroll, reverse), fg.jit(_rnn(unroll, reverse))):
        got = run(h, xs)
        for a, b in zip(fg.tree.tree_leaves(want), fg.tree.tree_leaves(got)):
            np.testing.assert_allclose(b, a, rtol=1e-13, atol=1e-13)

    def loss(f):
        return lambda h, xs: fnp.sum(f(h, xs)[1][1] ** 2) + fnp.sum(f(h, xs)[0])
    g_want = fg.grad(loss(_rnn(1, reverse)), argnums=(0, 1))(h, xs)
    g_got = fg.jit(fg.grad(loss(_rnn(unroll, reverse)), argnums=(0, 1)))(h, xs)
    for a, b in zip(g_want, g_got):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def test_unroll_compiles_k_iterations_as_one_call():
    from fungrad.lax.loops import _make_loop
    ir = fg.make_ir(_rnn(4, False))(np.zeros(4), np.zeros((10, 4)))
    body = next(e for e in ir.graph.eqns if e.prim.name == "scan").params["body"]
    source = _make_loop(body, 10, False, 4).source
    # 8 iterations by the 4-times unrolled body, the last 2 by the body itself
    assert "range(0, 8, 4)" in source and "body_k(" in source and "range(8, 10)" in source


def test_python_scalar_carry_promotes_as_nep50_never_truncates():
    lax = fg.lax
    # a body's Python scalar takes the carry's dtype only where it fits (1.5 was truncated
    # to an int carry's 1, 2 to a bool carry's True)
    for body, init in ((lambda c, x: (1.5, None), np.int64(0)),
                       (lambda c, x: (2, None), np.bool_(False))):
        with pytest.raises(TypeError, match="changes the dtype of carry"):
            lax.scan(body, init, None, length=2)
    with pytest.raises(TypeError, match="fori_loop: body_fun changes the dtype of init_val"):
        lax.fori_loop(0, 2, lambda i, c: 1.5, np.int64(0))
    assert lax.scan(lambda c, x: (1.5, None), np.float32(0), None, length=2)[0].dtype == np.float32
    out = lax.while_loop(lambda c: c < 1, lambda c: 1.5, np.float32(0))
    assert out == 1.5 and out.dtype == np.float32
    # a Python-scalar init promotes with the body's dtype (JAX's weak types): an int init of
    # a float body becomes float, a float init of an int body is an error, not truncated
    assert lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0) == 3.0
    with pytest.raises(TypeError, match="changes the dtype of carry"):
        lax.while_loop(lambda c: c < 3, lambda c: fnp.floor(c + 1).astype(np.int64), 0.5)
    with pytest.raises(TypeError, match="changes the dtype of carry"):
        lax.scan(lambda c, x: (fnp.floor(c).astype(np.int64), None), 1.5, None, length=2)


def test_fori_loop_python_int_bound_is_weak_and_errors_name_fori_loop():
    lax = fg.lax
    # 0 does not widen an int32 bound (NEP 50): i is int32, so returning it keeps the carry
    assert lax.fori_loop(0, np.int32(3), lambda i, c: i, np.int32(0)).dtype == np.int32
    assert lax.fori_loop(np.int32(0), 3, lambda i, c: c + i, np.int32(0)).dtype == np.int32
    # errors name fori_loop's body_fun and init_val (not scan's step and carry[1])
    for run in (lambda f: f(3), lambda f: fg.jit(f)(3)):
        with pytest.raises(TypeError, match=r"fori_loop: body_fun must return .* same pytree"):
            run(lambda n: lax.fori_loop(0, n, lambda i, c: (c,), 1.0))
        with pytest.raises(TypeError, match=r"fori_loop: body_fun changes the shape of "
                                            r"init_val\['w'\]"):
            run(lambda n: lax.fori_loop(0, n, lambda i, c: {"w": c["w"] * np.ones(2)},
                                        {"w": np.float64(1)}))


def test_loop_errors_name_their_arguments():
    with pytest.raises(TypeError, match=r"scan: xs is a scalar"):
        fg.lax.scan(lambda c, x: (c, x), 1.0, np.float64(2.0))
    with pytest.raises(ValueError, match=r"map: xs is None") as e:
        fg.lax.map(lambda x: 1.0, None)
    assert "fg.lax.scan with length=" in str(e.value)


def test_vmap_while_with_per_lane_predicate_over_an_empty_batch():
    # the any-lane predicate reduced with max, which has no identity on 0 lanes
    f = fg.vmap(lambda n: fg.lax.while_loop(lambda c: c < n, lambda c: c + 1, 0))
    for g in (f, fg.jit(f)):
        out = g(np.zeros(0, np.int64))
        assert out.shape == (0,) and out.dtype == np.int64
    np.testing.assert_array_equal(f(np.array([2, 0, 5])), [2, 0, 5])
