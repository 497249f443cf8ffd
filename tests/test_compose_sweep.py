"""Regressions found by differential fuzzing of nested transforms against JAX.

Expected values come from JAX 0.10.2 (float64) or from closed forms; nothing here imports
JAX.
"""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

L = fg.lax


# ----------------------------------------------------------------------------- jacobians
def test_jacobians_pass_keyword_arguments_through():
    # as jax.jacfwd / jacrev / hessian: keywords reach f and are not differentiated
    x = np.array([0.0, 1.0, 2.0])
    f = lambda x, n=1: x ** n
    expected = np.diag(3 * x ** 2)
    np.testing.assert_allclose(fg.jacfwd(f)(x, n=3), expected)
    np.testing.assert_allclose(fg.jacrev(f)(x, n=3), expected)
    np.testing.assert_allclose(fg.hessian(lambda x, n=1: fnp.sum(x ** n))(x, n=3),
                               np.diag(6 * x))
    g = fg.jit(lambda x, n: x ** n, static_argnames="n")
    np.testing.assert_allclose(fg.jacfwd(g)(x, n=3), expected)
    jac, aux = fg.jacfwd(lambda x, s=1.0: (x * s, s), has_aux=True)(x, s=2.0)
    np.testing.assert_allclose(jac, 2 * np.eye(3))
    assert aux == 2.0


# ----------------------------------------------------------------------------- while tapes
def _inner_while(a):
    return L.while_loop(lambda d: d[1] < 2.0,
                        lambda d: (d[0] * fnp.sin(d[0]) + 1.0, d[1] + fnp.abs(d[0]) + 0.5),
                        (a, 0.0))[0]


@pytest.mark.parametrize("f", [
    lambda x: L.cond(x > 0, _inner_while, lambda a: a * 2, x),
    lambda x: L.scan(lambda c, xi: (_inner_while(c * xi), c), x, np.array([0.5, 1.2]))[0],
    lambda x: L.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, _inner_while(c[1])),
                           (0, x))[1],
], ids=["cond", "scan", "while"])
def test_vmap_grad_of_while_nested_in_control_flow_raises_clearly(f):
    # one tape for the whole batch cannot leave a batched body: a clear error, not an
    # out-of-range out_axes ValueError from vmap's internals
    xs = np.array([0.3, 0.7])
    with pytest.raises(NotImplementedError, match="fg.lax.map"):
        fg.vmap(fg.grad(f))(xs)
    # eagerly and per example it works
    assert np.isfinite(fg.grad(f)(0.3))


def test_vmap_grad_grad_while_raises_clearly_and_hessian_works():
    def f(x):
        return L.while_loop(lambda c: c[1] >= 1.0,
                            lambda c: (c[0] * fnp.sin(c[1]), c[1] / 2.0), (x, x))[0]
    xs = np.array([3.0, 20.0])
    with pytest.raises(NotImplementedError, match="fg.vmap\\(fg.hessian"):
        fg.vmap(fg.grad(fg.grad(f)))(xs)
    loop = [fg.grad(fg.grad(f))(x) for x in xs]
    np.testing.assert_allclose(fg.vmap(fg.hessian(f))(xs), loop)


# ----------------------------------------------------------------------------- jit_call, 2nd order
_J = fg.jit(lambda a: fnp.sin(a) * a)
_J_PLAIN = lambda a: fnp.sin(a) * a

_NESTED_JIT = {
    "scan": lambda j: lambda x: fnp.sum(L.scan(lambda c, xi: (c * fnp.cos(xi), j(c + xi)),
                                               x[0], x)[1]),
    "cond": lambda j: lambda x: fnp.sum(L.cond(x[0] > 0, j, lambda a: a, x)),
    "fori": lambda j: lambda x: fnp.sum(L.fori_loop(0, 2, lambda i, c: j(c), x)),
    "while": lambda j: lambda x: fnp.sum(L.while_loop(lambda c: c[0] < 2,
                                                      lambda c: (c[0] + 1, j(c[1])), (0, x))[1]),
}


@pytest.mark.parametrize("kind", sorted(_NESTED_JIT))
@pytest.mark.parametrize("how", ["hessian", "jit_hessian", "jacrev_grad"])
def test_second_order_through_jitted_call_in_control_flow(kind, how):
    # the outer derivative makes the jitted call's JVP one jit_call mixing primals and
    # tangents inside the body: it used to end in the linear body ("Transpose rule for
    # 'jit_call' not implemented") or fail the branch split (cond)
    x = np.array([0.5, 1.0, -1.5])
    t = {"hessian": fg.hessian, "jit_hessian": lambda f: fg.jit(fg.hessian(f)),
         "jacrev_grad": lambda f: fg.jacrev(fg.grad(f))}[how]
    np.testing.assert_allclose(t(_NESTED_JIT[kind](_J))(x), t(_NESTED_JIT[kind](_J_PLAIN))(x),
                               rtol=1e-12, atol=1e-12)


def test_second_order_through_jitted_scan_body_matches_jax():
    g = fg.jit(lambda c, xi: (c * fnp.cos(xi), c + xi))
    f = lambda x: fnp.sum(L.scan(g, x[0], x)[1])
    x = np.array([0.5, 1.0, -1.5])
    expected = [[-2.152792, -0.536749, 0.0], [-0.536749, -0.23708, 0.0], [0.0, 0.0, 0.0]]
    np.testing.assert_allclose(fg.hessian(f)(x), expected, atol=1e-6)
    np.testing.assert_allclose(fg.hessian(fg.jit(f))(x), expected, atol=1e-6)
    np.testing.assert_allclose(fg.linearize(fg.grad(f), x)[1](x), np.dot(expected, x),
                               atol=1e-5)


def test_grad_of_checkpoint_around_scan_with_jitted_body():
    # remat's split of the body's JVP met the jitted call's JVP as one mixed equation
    g = fg.jit(lambda c, xi: (c * fnp.cos(xi), c + xi))
    f = lambda x: fnp.sum(L.scan(g, x[0], x)[1])
    x = np.array([0.5, 1.0, -1.5])
    expected = fg.grad(f)(x)
    np.testing.assert_allclose(fg.grad(fg.checkpoint(f))(x), expected, rtol=1e-12)
    np.testing.assert_allclose(fg.value_and_grad(fg.jit(fg.checkpoint(f)))(x)[1], expected,
                               rtol=1e-12)


# ----------------------------------------------------------------------------- vmap of jit
def _while_fn(x):
    return L.while_loop(lambda c: c[1] < 4.0,
                        lambda c: (c[0] * 0.5 + fnp.sin(c[0]), c[1] + c[0] ** 2 + 0.5),
                        (x, 0.0))[0]


@pytest.mark.parametrize("in_axes", [0, (0, None), (None, 0)])
def test_vmap_grad_jit_of_while_loop(in_axes):
    # the jitted forward half returns the loop's tape: batched, it used to fail vmap's
    # output placement (an opaque value has no axis to move)
    f = lambda x, y: _while_fn(x) * y
    xs, ys = np.array([0.3, 0.7, 1.1]), np.array([2.0, -1.0, 0.5])
    args = {0: (xs, ys), (0, None): (xs, 2.0), (None, 0): (0.7, ys)}[in_axes]
    loop = [fg.grad(f)(*[a[i] if np.ndim(a) else a for a in args]) for i in range(3)]
    np.testing.assert_allclose(fg.vmap(fg.grad(fg.jit(f)), in_axes=in_axes)(*args), loop,
                               rtol=1e-12)
    vjp_loop = fg.vmap(lambda *a: fg.vjp(fg.jit(f), *a)[1](1.0)[0], in_axes=in_axes)(*args)
    np.testing.assert_allclose(vjp_loop, loop, rtol=1e-12)


def test_vmap_of_jit_keeps_unbatched_outputs_unbatched():
    # a jitted call under vmap returns outputs that do not depend on the batch as they are
    f = fg.jit(lambda x, w: (x * w, w * 2.0))
    out, const = fg.vmap(f, in_axes=(0, None), out_axes=(0, None))(np.ones((3, 2)),
                                                                    np.arange(2.0))
    np.testing.assert_allclose(out, np.ones((3, 2)) * np.arange(2.0))
    np.testing.assert_allclose(const, np.arange(2.0) * 2.0)
