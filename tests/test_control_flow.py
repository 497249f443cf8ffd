"""fg.lax.cond / fg.lax.switch: values vs NumPy, derivatives vs finite differences, vmap
with batched predicates/indices vs a loop, jit vs eager (the taken branch only runs),
nesting, closures over traced values, and errors that name the branch."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError
from fungrad.test_util import check_grads

L = fg.lax
RNG = np.random.default_rng(0)
X = RNG.standard_normal(4)
Y = RNG.standard_normal(4)


def f_cond(x, y):
    return L.cond(fnp.sum(x) > 0, lambda x, y: fnp.sin(x) * y, lambda x, y: x * x - y, x, y)


def np_cond(x, y):
    return np.sin(x) * y if x.sum() > 0 else x * x - y


BRANCHES = [lambda x: fnp.sin(x), lambda x: x * x * x, lambda x: fnp.exp(x) * 0.5]
NP_BRANCHES = [np.sin, lambda x: x ** 3, lambda x: np.exp(x) * 0.5]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_values_and_derivatives(sign):
    x = sign * np.abs(X)
    np.testing.assert_allclose(f_cond(x, Y), np_cond(x, Y))
    np.testing.assert_allclose(fg.jit(f_cond)(x, Y), np_cond(x, Y))
    check_grads(f_cond, (x, Y), order=2)
    check_grads(fg.jit(f_cond), (x, Y), order=1)


@pytest.mark.parametrize("i", [-3, 0, 1, 2, 7])  # out of range: clamped
def test_switch_values_derivatives_and_clamping(i):
    k = min(max(i, 0), 2)
    np.testing.assert_allclose(L.switch(i, BRANCHES, X), NP_BRANCHES[k](X))
    jf = fg.jit(lambda i, x: L.switch(i, BRANCHES, x))
    np.testing.assert_allclose(jf(i, X), NP_BRANCHES[k](X))
    check_grads(lambda x: L.switch(i, BRANCHES, x), (X,), order=2)


def test_only_the_taken_branch_runs_eagerly_and_under_jit():
    # the untaken branch divides by zero, which raises under errstate if it runs
    def f(p, x):
        return L.cond(p, lambda x: x + 1.0, lambda x: x / 0.0, x)
    jf = fg.jit(f)
    with np.errstate(divide="raise"):
        for g in (f, jf):
            np.testing.assert_allclose(g(True, X), X + 1.0)
            with pytest.raises(FloatingPointError):  # (the probe works)
                g(False, X)
    src = jf.lower(True, X).source
    assert "branches0[" in src and "if" not in src.split("\n", 1)[1]  # an index, not both


def test_pytree_operands_outputs_and_python_scalar_outputs():
    def f(p, tree):
        return L.cond(p, lambda t: {"a": t[0] * 2.0, "b": 1.0},
                      lambda t: {"a": t[1], "b": t[0].sum()}, tree)
    x32 = X.astype(np.float32)
    out = f(True, (x32, x32 + 1))
    assert out["a"].dtype == np.float32 and out["b"].dtype == np.float32  # weak 1.0
    np.testing.assert_allclose(out["b"], 1.0)
    np.testing.assert_allclose(f(False, (x32, x32 + 1))["b"], x32.sum(), rtol=1e-6)


def test_grad_of_closed_over_value():
    # the branches close over w, a value being differentiated: it becomes a cond operand
    def loss(w, x):
        return L.cond(x.sum() > 0, lambda x: fnp.sum(fnp.sin(w * x)),
                      lambda x: fnp.sum(w * w * x), x)
    for x in (np.abs(X), -np.abs(X)):
        check_grads(lambda w: loss(w, x), (np.array(0.7),), order=2)
        check_grads(lambda w: fg.jit(loss)(w, x), (np.array(0.7),), order=1)


@pytest.mark.parametrize("pred_batched", [True, False])
def test_vmap_matches_loop(pred_batched):
    xs = RNG.standard_normal((5, 4))
    ys = RNG.standard_normal((5, 4))
    if not pred_batched:
        xs[:, 0] = 10.0  # one branch for all examples

    def f(x, y):
        return f_cond(x, y)
    got = fg.vmap(f)(xs, ys)
    np.testing.assert_allclose(got, np.stack([np_cond(x, y) for x, y in zip(xs, ys)]))
    got = fg.vmap(f, in_axes=(0, None))(xs, Y)
    np.testing.assert_allclose(got, np.stack([np_cond(x, Y) for x in xs]))
    got = fg.jit(fg.vmap(fg.grad(lambda x, y: f(x, y).sum())))(xs, ys)
    want = np.stack([fg.grad(lambda x: f(x, y).sum())(x) for x, y in zip(xs, ys)])
    np.testing.assert_allclose(got, want)


def test_vmap_switch_batched_index_and_unbatched_operand():
    idx = np.array([0, 2, 1, 5, -1])
    got = fg.vmap(lambda i: L.switch(i, BRANCHES, X))(idx)
    want = np.stack([NP_BRANCHES[min(max(i, 0), 2)](X) for i in idx])
    np.testing.assert_allclose(got, want)


def test_vmap_branch_batched_in_one_branch_only():
    # the output varies over the batch in one branch only: it is batched in both
    xs = RNG.standard_normal((3, 4))
    got = fg.vmap(lambda x: L.cond(True, lambda x: x, lambda x: Y, x))(xs)
    np.testing.assert_allclose(got, xs)
    got = fg.vmap(lambda x: L.cond(False, lambda x: x, lambda x: Y, x))(xs)
    np.testing.assert_allclose(got, np.stack([Y] * 3))


def nested(x):
    def outer_true(x):
        return L.cond(x[0] > 0, lambda x: fnp.sin(x) * 3.0, lambda x: x * x, x)
    return L.cond(x.sum() > -1.0, outer_true, lambda x: -x, x)


def np_nested(x):
    if x.sum() > -1.0:
        return np.sin(x) * 3.0 if x[0] > 0 else x * x
    return -x


def test_nested_cond():
    for x in (np.array([1.0, 0.5]), np.array([-0.5, 0.6]), np.array([-3.0, 0.1])):
        np.testing.assert_allclose(nested(x), np_nested(x))
        np.testing.assert_allclose(fg.jit(nested)(x), np_nested(x))
        check_grads(nested, (x,), order=2)
        check_grads(fg.jit(nested), (x,), order=1)
        np.testing.assert_allclose(fg.jit(fg.grad(lambda x: nested(x).sum()))(x),
                                   fg.grad(lambda x: nested(x).sum())(x))


def test_cond_inside_vmap_inside_grad():
    xs = np.array([[1.0, 0.5], [-0.5, 0.6], [-3.0, 0.1]])

    def loss(w):
        return fnp.sum(fg.vmap(lambda x: nested(x * w))(xs))
    check_grads(loss, (np.array(1.3),), order=2)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(np.array(1.3)),
                               fg.grad(loss)(np.array(1.3)))


def test_linearize_and_vjp_reuse():
    out, f_jvp = fg.linearize(f_cond, X, Y)
    np.testing.assert_allclose(out, np_cond(X, Y))
    t = fg.jvp(f_cond, (X, Y), (np.ones(4), np.zeros(4)))[1]
    np.testing.assert_allclose(f_jvp(np.ones(4), np.zeros(4)), t)
    _, f_vjp = fg.vjp(f_cond, X, Y)
    a, b = f_vjp(np.ones(4)), f_vjp(np.ones(4))
    np.testing.assert_allclose(a[0], b[0])


def test_ir_holds_one_cond_equation_with_its_branches():
    ir = fg.make_ir(f_cond)(X, Y)
    assert [e.prim.name for e in ir.graph.eqns].count("cond") == 1
    assert "branch 1" in str(ir)


def test_branch_output_errors_name_the_branch():
    with pytest.raises(TypeError, match=r"output 0 is f64\[\] in false_fn and f64\[2\] in "
                                        r"true_fn.*shapes differ"):
        L.cond(True, lambda: np.ones(2), lambda: np.array(1.0))
    with pytest.raises(TypeError, match=r"pytree structure.*false_fn returns.*true_fn returns"):
        L.cond(True, lambda x: (x, x), lambda x: x, X)
    with pytest.raises(TypeError, match=r"branches\[0\].*branches\[2\].*dtypes differ"):
        L.switch(0, [lambda x: x, lambda x: x, lambda x: x.astype(np.float32)], X)
    with pytest.raises(TypeError, match=r"pred must be a scalar.*fnp.where.*fg.vmap"):
        L.cond(X > 0, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="index must be an integer"):
        L.switch(1.0, BRANCHES, X)
    with pytest.raises(TypeError, match="true_fn must be callable"):
        L.cond(True, 3.0, lambda: 1.0)


def test_python_branching_errors_name_cond_and_select_n():
    def f(x):
        return x if x.sum() > 0 else -x
    with pytest.raises(ConcretizationError, match=r"fg.lax.cond.*fg.lax.select_n.*"
                                                  r"static_argnums"):
        fg.jit(f)(X)
    with pytest.raises(ConcretizationError, match=r"fnp.where.*fg.lax.select_n.*fg.lax.cond"):
        fg.vmap(f)(np.stack([X, -X]))


def test_python_scalar_branch_that_does_not_fit_the_other_dtype_raises():
    # a weak 1.5 takes an f32 branch's dtype, but was silently truncated to an int branch's 1
    assert fg.lax.cond(False, lambda: np.float32(1), lambda: 1.5).dtype == np.float32
    for run in (lambda f: f(False), lambda f: fg.jit(f)(False)):
        with pytest.raises(TypeError, match="the dtypes differ"):
            run(lambda p: fg.lax.cond(p, lambda: np.int64(1), lambda: 1.5))
    with pytest.raises(TypeError, match="the dtypes differ"):
        fg.jit(lambda i: fg.lax.switch(i, [lambda: np.int64(1), lambda: 1.5]))(1)
