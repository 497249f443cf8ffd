"""fg.checkpoint / fg.remat: derivatives equal the unchekpointed ones under every transform
and policy; the forward pass keeps only what the policy saves; the backward pass recomputes
the rest (a debug callback inside runs again); nesting with cond, checkpoint and
custom_vjp; jit does not merge the recomputation with the forward pass; errors."""
import re

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.core.ir import Literal
from fungrad.transforms.ad import linearize_flat

P = fg.checkpoint_policies
RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 4)) * 0.5
X = RNG.standard_normal((3, 4))


def block(w, x):
    """A dot, a named value, and elementwise work after it."""
    h = fg.checkpoint_name(x @ w, "proj")
    return fnp.sin(fnp.tanh(h) * x)


def loss(f):
    return lambda w, x: fnp.sum(f(w, f(w, x)) ** 2)


POLICIES = {
    "default": None,
    "nothing": P.nothing_saveable,
    "everything": P.everything_saveable,
    "dots": P.dots_saveable,
    "checkpoint_dots": P.checkpoint_dots,
    "dots_no_batch": P.dots_with_no_batch_dims_saveable,
    "names": P.save_only_these_names("proj"),
    "other_names": P.save_only_these_names("other"),
    "any_names_but": P.save_any_names_but_these("other"),
    "both": P.save_from_both_policies(P.dots_saveable, P.save_only_these_names("x")),
}


def close(a, b):
    for x, y in zip(fg.tree.tree_leaves(a), fg.tree.tree_leaves(b)):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


@pytest.fixture(params=list(POLICIES), ids=list(POLICIES))
def ck(request):
    return fg.checkpoint(block, policy=POLICIES[request.param])


# ----------------------------------------------------------------------------- derivatives
def test_values_and_grad(ck):
    close(loss(ck)(W, X), loss(block)(W, X))
    close(fg.grad(loss(ck), argnums=(0, 1))(W, X), fg.grad(loss(block), argnums=(0, 1))(W, X))


def test_second_order(ck):
    def g2(f):
        return fg.grad(lambda w: fnp.sum(fg.grad(loss(f))(w, X) ** 2))
    close(g2(ck)(W), g2(block)(W))
    close(fg.hessian(lambda x: loss(ck)(W, x))(X[:1]), fg.hessian(lambda x: loss(block)(W, x))(X[:1]))


def test_jvp_vjp_linearize(ck):
    t = RNG.standard_normal(X.shape)
    close(fg.jvp(lambda x: ck(W, x), (X,), (t,)), fg.jvp(lambda x: block(W, x), (X,), (t,)))
    y, f_vjp = fg.vjp(ck, W, X)
    y0, f_vjp0 = fg.vjp(block, W, X)
    close(y, y0)
    close(f_vjp(t), f_vjp0(t))
    close(f_vjp(2 * t), f_vjp0(2 * t))  # vjp_fn may be called again
    close(fg.linearize(ck, W, X)[1](W, t), fg.linearize(block, W, X)[1](W, t))


def test_vmap_of_grad_and_jit(ck):
    xs = RNG.standard_normal((5, 3, 4))
    per_example = fg.vmap(fg.grad(loss(ck)), in_axes=(None, 0))
    close(per_example(W, xs), fg.vmap(fg.grad(loss(block)), in_axes=(None, 0))(W, xs))
    close(fg.vmap(ck, in_axes=(None, 0))(W, xs), np.stack([block(W, x) for x in xs]))
    want = fg.grad(loss(block))(W, X)
    close(fg.jit(fg.grad(loss(ck)))(W, X), want)
    close(fg.grad(fg.jit(loss(ck)))(W, X), want)
    close(fg.jit(fg.grad(fg.jit(loss(ck))))(W, X), want)


def test_jacobians_and_integer_operands():
    ck = fg.checkpoint(block, policy=P.dots_saveable)
    close(fg.jacrev(lambda x: ck(W, x))(X), fg.jacrev(lambda x: block(W, x))(X))
    close(fg.jacfwd(lambda x: ck(W, x))(X), fg.jacfwd(lambda x: block(W, x))(X))
    hess = fg.jit(fg.hessian(lambda x: fnp.sum(ck(W, x[None]) ** 2)))(X[0])
    close(hess, fg.hessian(lambda x: fnp.sum(block(W, x[None]) ** 2))(X[0]))

    def take(x, idx):
        return fnp.sum(fnp.take(fnp.sin(x), idx, axis=0))
    idx = np.array([0, 2, 2])
    want = fg.grad(take)(X, idx)
    close(fg.grad(fg.checkpoint(take))(X, idx), want)
    close(fg.jit(fg.grad(fg.checkpoint(take)))(X, idx), want)


def test_checkpoint_of_vmap_and_jit_inside():
    f = fg.checkpoint(fg.vmap(lambda w, x: fg.jit(block)(w, x[None])[0], in_axes=(None, 0)))
    close(fg.grad(loss(f))(W, X), fg.grad(loss(block))(W, X))
    close(fg.jit(fg.grad(loss(f)))(W, X), fg.grad(loss(block))(W, X))


# ----------------------------------------------------------------------------- what is kept
def _kept_arrays(f, *args):
    """The arrays the linearized function holds (residuals), other than the inputs."""
    _, graph, _ = linearize_flat(lambda ins: ([f(*ins)], None), list(args))
    return [v.value for e in graph.eqns for v in e.inputs
            if type(v) is Literal and type(v.value) is np.ndarray
            and not any(v.value is a for a in args)]


def test_residuals_follow_the_policy():
    proj = X @ W
    plain = _kept_arrays(block, W, X)
    assert len(plain) >= 3  # (the derivative coefficients of tanh, sin and the product)
    assert _kept_arrays(fg.checkpoint(block), W, X) == []  # only the inputs
    assert _kept_arrays(fg.checkpoint(block, policy=P.nothing_saveable), W, X) == []
    dots = _kept_arrays(fg.checkpoint(block, policy=P.dots_saveable), W, X)
    assert len(dots) == 1 and np.allclose(dots[0], proj)
    named = _kept_arrays(fg.checkpoint(block, policy=P.save_only_these_names("proj")), W, X)
    assert len(named) == 1 and np.allclose(named[0], proj)
    assert _kept_arrays(fg.checkpoint(block, policy=P.save_only_these_names("x")), W, X) == []
    but = _kept_arrays(fg.checkpoint(block, policy=P.save_any_names_but_these("proj")), W, X)
    assert but == []
    every = _kept_arrays(fg.checkpoint(block, policy=P.everything_saveable), W, X)
    assert len(every) == len(plain)  # what reverse mode keeps without checkpoint


def test_batch_dims_policy_skips_batched_dots():
    def bmm(a, b):
        return fnp.tanh(fnp.einsum("bij,bjk->bik", a, b))
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 3))
    assert len(_kept_arrays(fg.checkpoint(bmm, policy=P.dots_saveable), a, b)) == 1
    assert _kept_arrays(fg.checkpoint(bmm, policy=P.dots_with_no_batch_dims_saveable), a, b) == []


def _jit_residual_avals(f, *args):
    """Residual avals of jit(f)'s reverse mode: what its known (forward) graph returns
    beyond the primal outputs."""
    from fungrad.core.ir import aval_of
    from fungrad.transforms.jit import _Split
    call = fg.jit(f).lower(*args).call
    split = _Split(call, (True,) * len(args), [aval_of(a) for a in args])
    return split.known.out_avals[len(call.out_avals):]


def test_jit_residuals_follow_the_policy():
    plain = _jit_residual_avals(block, W, X)
    ck = _jit_residual_avals(fg.checkpoint(block), W, X)
    dots = _jit_residual_avals(fg.checkpoint(block, policy=P.dots_saveable), W, X)
    assert len(ck) == 2  # w and x themselves
    assert len(dots) == 3  # and x @ w
    assert len(plain) > len(dots)


def test_backward_pass_recomputes():
    calls = []

    def counted(w, x):
        fg.debug.callback(lambda v: calls.append(1), x)
        return block(w, x)
    f = lambda w, x: fnp.sum(fg.checkpoint(counted)(w, x))  # noqa: E731
    fg.grad(f)(W, X)
    assert len(calls) == 2  # forward, then again in the backward pass
    calls.clear()
    fg.grad(lambda w, x: fnp.sum(counted(w, x)))(W, X)
    assert len(calls) == 1
    calls.clear()
    g = fg.jit(fg.grad(f))
    g(W, X)
    g(W, X)
    assert len(calls) == 4
    calls.clear()
    fg.checkpoint(counted)(W, X)  # no transform: it just runs
    fg.jvp(lambda x: fg.checkpoint(counted)(W, x), (X,), (X,))
    assert len(calls) == 2


def test_jit_does_not_merge_the_recomputation():
    def count(f, prim):
        ir = fg.make_ir(fg.grad(loss(f)), optimize=True)(W, X)
        return sum(e.prim.name == prim for e in ir.graph.eqns)
    plain = count(block, "tanh")
    assert count(fg.checkpoint(block), "tanh") > plain  # forward + recomputation
    # without prevent_cse jit may merge them (JAX's semantics): nothing is recomputed
    assert count(fg.checkpoint(block, prevent_cse=False), "tanh") == plain


def test_jit_of_grad_keeps_fewer_values_alive():
    """In jit's generated code the checkpointed version holds fewer large arrays at once."""
    big_w = RNG.standard_normal((64, 64)) / 8
    big_x = RNG.standard_normal((256, 64))

    def deep(f):
        def run(w, x):
            for _ in range(8):
                x = f(w, x)
            return fnp.sum(x)
        return run

    def layer(w, x):
        return fnp.tanh(x @ w)

    def counts(f):
        """(matrix products, scratch buffers: each holds a value across calls)."""
        src = fg.jit(fg.grad(deep(f))).lower(big_w, big_x).source
        return src.count("np.matmul"), len(set(re.findall(r"_s\[\d+\]", src)))
    n_plain, s_plain = counts(layer)
    n_ck, s_ck = counts(fg.checkpoint(layer))
    assert n_ck > n_plain  # the recomputed products
    assert s_ck < s_plain  # fewer buffers kept between the forward and backward pass


# ----------------------------------------------------------------------------- nesting
def test_checkpoint_of_checkpoint():
    inner = fg.checkpoint(block, policy=P.dots_saveable)
    outer = fg.checkpoint(lambda w, x: inner(w, inner(w, x)))
    want = fg.grad(lambda w, x: fnp.sum(block(w, block(w, x))))(W, X)
    f = lambda w, x: fnp.sum(outer(w, x))  # noqa: E731
    close(fg.grad(f)(W, X), want)
    close(fg.jit(fg.grad(f))(W, X), want)
    close(fg.grad(fg.jit(f))(W, X), want)
    h = fg.grad(lambda w: fnp.sum(fg.grad(f)(w, X) ** 2))
    close(h(W), fg.grad(lambda w: fnp.sum(fg.grad(lambda w, x: fnp.sum(
        block(w, block(w, x))))(w, X) ** 2))(W))
    assert _kept_arrays(outer, W, X) == []


def test_checkpoint_inside_cond_and_cond_inside_checkpoint():
    ck = fg.checkpoint(block)

    def with_cond(f):
        return lambda w, x: fnp.sum(fg.lax.cond(fnp.sum(x) > 0, f, lambda w, x: x * 2.0, w, x))

    def inside(w, x):
        return fg.lax.cond(fnp.sum(x) > 0, block, lambda w, x: x * 2.0, w, x)
    for x in (X, -fnp.abs(X)):
        want = fg.grad(with_cond(block), argnums=(0, 1))(W, x)
        for f in (with_cond(ck), lambda w, x: fnp.sum(fg.checkpoint(inside)(w, x))):
            close(fg.grad(f, argnums=(0, 1))(W, x), want)
            close(fg.jit(fg.grad(f, argnums=(0, 1)))(W, x), want)
            close(fg.grad(fg.jit(f), argnums=(0, 1))(W, x), want)
            close(fg.vmap(fg.grad(f), in_axes=(None, 0))(W, np.stack([x, -x])),
                  fg.vmap(fg.grad(with_cond(block)), in_axes=(None, 0))(W, np.stack([x, -x])))


def test_outputs_independent_of_the_differentiated_input():
    f = fg.checkpoint(lambda w, x: (fnp.sin(x), fnp.cos(x) * 2.0))
    g = fg.grad(lambda w: fnp.sum(f(w, X)[0]) + fnp.sum(w))(W)
    close(g, np.ones_like(W))
    close(fg.jit(fg.grad(lambda w: fnp.sum(f(w, X)[1]) * fnp.sum(w)))(W),
          np.full_like(W, np.sum(np.cos(X) * 2.0)))


def test_custom_vjp_inside_checkpoint():
    used = []

    @fg.custom_vjp
    def clip_grad(x):
        return x

    def fwd(x):
        return x, None

    def bwd(_, g):
        used.append(1)
        return (fnp.clip(g, -0.1, 0.1),)
    clip_grad.defvjp(fwd, bwd)

    def f(w, x):
        return fnp.sum(fnp.tanh(clip_grad(x @ w)) ** 2)

    want = fg.grad(f)(W, X)
    close(fg.grad(fg.checkpoint(f))(W, X), want)
    close(fg.jit(fg.grad(fg.checkpoint(f)))(W, X), want)
    assert used


# ----------------------------------------------------------------------------- arguments
def test_pytrees_kwargs_static_args_and_scalars():
    def f(params, x, n, scale=1.0):
        w, b = params
        for _ in range(n):
            x = fnp.tanh(x @ w + b) * scale
        return {"y": x, "n": n * 1.0}
    ck = fg.checkpoint(f, static_argnums=2)
    b = np.ones(4)
    g = fg.grad(lambda p: fnp.sum(ck(p, X, 2, scale=0.5)["y"]))((W, b))
    close(g, fg.grad(lambda p: fnp.sum(f(p, X, 2, scale=0.5)["y"]))((W, b)))
    x32 = X.astype(np.float32)
    y = fg.jit(lambda x: fg.checkpoint(lambda x, s: x * s)(x, 2.0))(x32)
    assert y.dtype == np.float32  # a Python scalar argument stays weak


def test_closure_over_traced_values():
    def f(w):
        return fnp.sum(fg.checkpoint(lambda x: fnp.sin(x @ w))(X))
    close(fg.grad(f)(W), fg.grad(lambda w: fnp.sum(fnp.sin(X @ w)))(W))
    close(fg.jit(fg.grad(f))(W), fg.grad(lambda w: fnp.sum(fnp.sin(X @ w)))(W))


def test_bodies_are_shared_only_between_equal_graphs():
    ck = fg.checkpoint(block)
    ir = fg.make_ir(lambda w, x: ck(w, ck(w, x)))(W, X)
    bodies = [e.params["body"] for e in ir.graph.eqns if e.prim.name == "remat"]
    assert len(bodies) == 2 and bodies[0] is bodies[1]  # (derived graphs are made once)
    consts = [np.ones(4), np.full(4, 2.0)]
    scale = [3.0]
    f = fg.checkpoint(lambda x, i: x * consts[i] * scale[0], static_argnums=1)
    grad = fg.grad(lambda x, i: fnp.sum(f(x, i)))
    close(grad(X, 0), np.full(X.shape, 3.0))
    close(grad(X, 1), np.full(X.shape, 6.0))  # another constant: another graph
    scale[0] = 5.0
    consts[0] = np.full(4, 7.0)
    close(grad(X, 0), np.full(X.shape, 35.0))


def test_remat_is_checkpoint_and_policies_compare_by_value():
    assert fg.remat is fg.checkpoint
    assert P.save_only_these_names("a", "b") == P.save_only_these_names("b", "a")
    assert P.dots_saveable is P.checkpoint_dots
    assert fg.checkpoint_name(X, "x") is X  # no transform: the identity


def test_errors():
    with pytest.raises(TypeError, match="expected a function"):
        fg.checkpoint(3)
    with pytest.raises(TypeError, match="policy must be None or a callable"):
        fg.checkpoint(block, policy="dots")
    class Unhashable:
        __hash__ = None

        def __call__(self, prim, *avals, **params):
            return False
    with pytest.raises(TypeError, match="policy must be hashable"):
        fg.checkpoint(block, policy=Unhashable())
    with pytest.raises(TypeError, match="static_argnums must be ints"):
        fg.checkpoint(block, static_argnums=("a",))
    with pytest.raises(ValueError, match="static_argnums contains 5"):
        fg.grad(lambda x: fnp.sum(fg.checkpoint(block, static_argnums=5)(W, x)))(X)
    with pytest.raises(TypeError, match="pass it through static_argnums"):
        fg.grad(lambda x: fnp.sum(fg.checkpoint(lambda x, s: x)(x, "mode")))(X)
    with pytest.raises(TypeError, match="name must be a str"):
        fg.checkpoint_name(X, 3)
    with pytest.raises(TypeError, match="names must be str"):
        P.save_only_these_names(1)


def test_checkpoint_inside_scan_and_scan_inside_checkpoint():
    """An RNN step checkpointed inside scan (and a scan inside checkpoint) differentiates
    like the plain one, eagerly and under jit."""
    rng = np.random.default_rng(0)
    w, xs, h0 = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(6, 4)), np.ones(4)

    def step(h, x):
        return fnp.tanh(w @ h + x), fnp.sum(h)

    def loss(h, step):
        h, ys = fg.lax.scan(step, h, xs)
        return fnp.sum(h ** 2) + fnp.sum(ys)
    want = fg.grad(lambda h: loss(h, step))(h0)
    for f in (fg.grad(lambda h: loss(h, fg.checkpoint(step))),
              fg.jit(fg.grad(lambda h: loss(h, fg.checkpoint(step)))),
              fg.grad(fg.checkpoint(lambda h: loss(h, step)))):
        np.testing.assert_allclose(f(h0), want, rtol=1e-12)


def test_jit_checkpoint_reading_one_value_twice():
    """One barrier operand per Var (an operand read twice gave a barrier with fewer
    outputs than operands)."""
    twice = fg.checkpoint(lambda a, b: fnp.sin(a) * b)
    close(fg.jit(lambda x: twice(x, x))(X), np.sin(X) * X)
    close(fg.jit(fg.grad(lambda x: fnp.sum(twice(x, x))))(X), np.cos(X) * X + np.sin(X))
