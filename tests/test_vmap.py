"""vmap composed with everything, its errors, and the Jacobians built on it."""
import collections

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.core.primitive import Primitive

rng = np.random.default_rng(0)


def mlp_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = fnp.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    z = logits - fnp.max(logits, axis=-1, keepdims=True)
    return -fnp.sum(y * (z - fnp.log(fnp.sum(fnp.exp(z), axis=-1, keepdims=True))))


PARAMS = [(rng.standard_normal((4, 5)), rng.standard_normal(5)),
          (rng.standard_normal((5, 3)), rng.standard_normal(3))]
XS = rng.standard_normal((6, 4))
YS = np.eye(3)[rng.integers(0, 3, 6)]


def test_per_example_gradients_match_a_loop():
    got = fg.vmap(fg.grad(mlp_loss), in_axes=(None, 0, 0))(PARAMS, XS, YS)
    for i in range(len(XS)):
        want = fg.grad(mlp_loss)(PARAMS, XS[i], YS[i])
        for g, w in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
            np.testing.assert_allclose(g[i], w, rtol=1e-10)


def test_weights_stay_unbatched():
    seen = []

    def f(w, x):
        seen.append(type(w).__name__)
        return fnp.sum(x @ w)
    fg.vmap(f, in_axes=(None, 0))(np.ones((4, 2)), XS)
    assert seen == ["ndarray"]


def test_grad_of_vmap_and_vmap_of_vmap():
    f = lambda w: fnp.sum(fg.vmap(lambda x: fnp.sin(x @ w))(XS))
    fg.test_util.check_grads(f, (PARAMS[0][0],), order=2)
    m = rng.standard_normal((2, 3, 4))
    got = fg.vmap(fg.vmap(lambda r: fnp.sum(r ** 2)))(m)
    np.testing.assert_allclose(got, (m ** 2).sum(-1))
    got = fg.vmap(fg.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(None, 0))(
        np.arange(3.0), np.arange(2.0))
    np.testing.assert_allclose(got, np.outer(np.arange(2.0), np.arange(3.0)))


def test_jvp_of_vmap_and_vmap_of_jvp():
    f = lambda x: fnp.tanh(x) * x
    x, t = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    _, t1 = fg.jvp(fg.vmap(f), (x,), (t,))
    t2 = fg.vmap(lambda x, t: fg.jvp(f, (x,), (t,))[1])(x, t)
    np.testing.assert_allclose(t1, t2, rtol=1e-12)


def test_closure_over_batched_value_in_nested_vmap():
    xs, ys = np.arange(3.0), np.arange(4.0)
    got = fg.vmap(lambda x: fg.vmap(lambda y: x * 10 + y)(ys))(xs)
    np.testing.assert_allclose(got, xs[:, None] * 10 + ys[None, :])


def test_python_control_flow_on_unbatched_values():
    def f(x, flag):
        return x * 2 if flag > 0 else x - 1
    np.testing.assert_allclose(fg.vmap(f, in_axes=(0, None))(np.ones(3), 1.0), 2 * np.ones(3))


def test_in_axes_out_axes_variants():
    x = rng.standard_normal((2, 3))
    np.testing.assert_allclose(fg.vmap(fnp.sum, in_axes=-1)(x), x.sum(0))
    np.testing.assert_allclose(fg.vmap(lambda r: r * 2, out_axes=1)(x), (x * 2).T)
    d = {"a": x, "b": np.ones(2)}
    got = fg.vmap(lambda d: d["a"] * d["b"], in_axes=({"a": 1, "b": None},))(d)
    np.testing.assert_allclose(got, x.T)
    out = fg.vmap(lambda r: (r, 5.0), out_axes=(0, None))(x)
    assert out[1] == 5.0
    got = fg.vmap(lambda: fnp.ones(2), axis_size=3)()
    assert got.shape == (3, 2)


def test_chunk_size_gives_identical_results():
    full = fg.vmap(fg.grad(mlp_loss), in_axes=(None, 0, 0))(PARAMS, XS, YS)
    chunked = fg.vmap(fg.grad(mlp_loss), in_axes=(None, 0, 0), chunk_size=4)(PARAMS, XS, YS)
    for a, b in zip(fg.tree.tree_leaves(full), fg.tree.tree_leaves(chunked)):
        np.testing.assert_array_equal(a, b)


def test_size_one_batch_and_0d_inputs():
    np.testing.assert_allclose(fg.vmap(fnp.exp)(np.array([0.5])), np.exp([0.5]))
    np.testing.assert_allclose(fg.vmap(lambda s, v: s * v, in_axes=(None, 0))(2.0, XS[:, 0]),
                               2 * XS[:, 0])


# ----------------------------------------------------------------------------- errors
def test_error_inconsistent_sizes_names_leaves():
    with pytest.raises(ValueError, match=r"vmap\(<lambda>\): mapped inputs have different "
                                         r"sizes.*size 2.*size 3"):
        fg.vmap(lambda a, b: a + b)(np.ones(2), np.ones(3))


def test_error_bad_in_axes():
    with pytest.raises(ValueError, match=r"in_axes=2 is out of range for input leaf 0 of "
                                         r"shape \(2, 3\)"):
        fg.vmap(fnp.sum, in_axes=2)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="not a pytree prefix"):
        fg.vmap(lambda a, b: a, in_axes=(0, 0, 0))(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="axis_size"):
        fg.vmap(lambda a: a, in_axes=None)(np.ones(2))


def test_keyword_arguments_are_mapped_over_axis_0():
    f = lambda x, b, scale=1.0: fnp.sum(x * b) * scale
    x, b = np.arange(6.0).reshape(3, 2), np.arange(6.0, 12.0).reshape(3, 2)
    want = np.sum(x * b, axis=1)
    np.testing.assert_allclose(fg.vmap(f)(x, b=b), want)
    # in_axes covers the positional arguments only
    np.testing.assert_allclose(fg.vmap(f, in_axes=(1,))(x.T, b=b), want)
    np.testing.assert_allclose(fg.vmap(f, in_axes=None)(x[0], b=b), b @ x[0])
    np.testing.assert_allclose(fg.vmap(f, chunk_size=2)(x, b=b, scale=np.full(3, 2.0)),
                               2 * want)
    np.testing.assert_allclose(fg.vmap(lambda x, d: x * d["a"])(x[:, 0], d={"a": b[:, 0]}),
                               x[:, 0] * b[:, 0])
    with pytest.raises(ValueError, match=r"keyword argument 'b' is mapped over axis 0.*"
                                         r"shape \(\).*in_axes"):
        fg.vmap(f)(x, b=np.float64(1.0))


def test_error_axes_out_of_range_or_mismatched_name_the_argument():
    with pytest.raises(ValueError, match=r"in_axes=2 is out of range .*shape \(2, 3\).*"
                                         r"in argument 1"):
        fg.vmap(lambda a, b: a, in_axes=(None, 2))(np.ones(2), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"in_axes\[1\]\[1\]=\{'b': 1\} is not a pytree "
                                         r"prefix of argument 1 \(at \[1\]\)"):
        fg.vmap(lambda a, b: a, in_axes=(0, (0, {"b": 1})))(np.ones(2), (np.ones(2), {"a": 1}))
    with pytest.raises(ValueError, match=r"out_axes\[1\]=\{'x': 0\} is not a pytree prefix "
                                         r"of output\[1\]"):
        fg.vmap(lambda a: (a, a), out_axes=(0, {"x": 0}))(np.ones(2))
    # an output that does not depend on the batch gets the same range check
    for f, x in ((lambda x: np.ones(2), np.ones(3)), (lambda x: x, np.ones((3, 2)))):
        with pytest.raises(ValueError, match=r"out_axes=7 is out of range for an output with 2 "
                                             r"axes \(batch included\)"):
            fg.vmap(f, out_axes=7)(x)
    assert fg.vmap(lambda x: np.ones(2), out_axes=-1)(np.ones(3)).shape == (2, 3)


def test_error_branching_on_batched_value_names_fix():
    def f(x):
        return x if x > 0 else -x
    with pytest.raises(TypeError, match=r"batched value.*fnp.where"):
        fg.vmap(f)(np.ones(3))


def test_error_primitive_without_batching_rule():
    p = Primitive("no_batch_rule")
    p.impl = np.negative
    p.abstract_eval = lambda x: x
    with pytest.raises(NotImplementedError, match="'no_batch_rule' has no batching rule"):
        fg.vmap(p.bind)(np.ones(3))


# ----------------------------------------------------------------------------- Jacobians
def _fd_jacobian(f, x, eps=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        e = e.reshape(x.shape)
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


def test_jacfwd_equals_jacrev_equals_finite_differences():
    f = lambda x: fnp.tanh(np.arange(6.0).reshape(3, 2) @ x) * fnp.sum(x ** 2)
    x = np.array([0.3, -0.5])
    jf, jr = fg.jacfwd(f)(x), fg.jacrev(f)(x)
    np.testing.assert_allclose(jf, jr, rtol=1e-12)
    np.testing.assert_allclose(jf, _fd_jacobian(f, x), rtol=1e-6, atol=1e-8)
    assert jf.shape == (3, 2)


Out = collections.namedtuple("Out", "vec scalar")


def test_jacobians_of_pytrees_follow_jax_layout():
    def f(p, k):
        return Out(vec=p["w"] @ p["v"] * k, scalar=fnp.sum(p["v"] ** 2))
    p = {"w": rng.standard_normal((2, 3)), "v": rng.standard_normal(3)}
    for jac in (fg.jacfwd, fg.jacrev):
        j = jac(f)(p, 2.0)
        assert isinstance(j, Out)
        assert j.vec["w"].shape == (2, 2, 3) and j.vec["v"].shape == (2, 3)
        assert j.scalar["v"].shape == (3,) and j.scalar["w"].shape == (2, 3)
        np.testing.assert_allclose(j.vec["v"], 2 * p["w"])
        np.testing.assert_allclose(j.scalar["v"], 2 * p["v"])
        j2 = jac(f, argnums=(0, 1))(p, 2.0)
        np.testing.assert_allclose(j2.vec[1], p["w"] @ p["v"])


def test_jacobian_has_aux():
    f = lambda x: (fnp.sin(x), {"norm": fnp.sum(x ** 2)})
    for jac in (fg.jacfwd, fg.jacrev):
        j, aux = jac(f, has_aux=True)(np.array([0.0, 1.0]))
        np.testing.assert_allclose(j, np.diag(np.cos([0.0, 1.0])))
        assert aux["norm"] == pytest.approx(1.0)


def test_hessian_symmetric_and_matches_gradient_differences():
    f = lambda x: fnp.sum(fnp.sin(x) * x[::-1]) + fnp.prod(x)
    x = np.array([0.3, -0.2, 0.9])
    h = fg.hessian(f)(x)
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h, _fd_jacobian(fg.grad(f), x), rtol=1e-6, atol=1e-8)
    v = np.array([1.0, 2.0, -1.0])
    _, hv = fg.jvp(fg.grad(f), (x,), (v,))
    np.testing.assert_allclose(hv, h @ v, rtol=1e-10)


def test_jacobian_chunk_size():
    f = lambda x: fnp.tanh(x) * fnp.sum(x)
    x = rng.standard_normal(7)
    np.testing.assert_allclose(fg.jacfwd(f, chunk_size=3)(x), fg.jacfwd(f)(x), rtol=1e-14)
    np.testing.assert_allclose(fg.jacrev(f, chunk_size=2)(x), fg.jacrev(f)(x), rtol=1e-14)


def test_jacobians_with_no_input_or_no_output_leaves():
    # jacfwd of an empty input tree raised IndexError; jacrev of an empty / None output
    # raised vmap's "pass axis_size=" (a vmap the user never called)
    x = np.arange(3.0)
    for jac in (fg.jacfwd, fg.jacrev):
        assert jac(lambda t: x * 2)(()) == ()
        assert jac(lambda a: ())(x) == ()
        assert jac(lambda a: None)(x) is None
        assert jac(lambda t, a: {"u": a * 2, "v": None}, argnums=(0,))((), x) == {
            "u": ((),), "v": None}
        assert jac(lambda t: (x, "aux"), has_aux=True)(()) == ((), "aux")
