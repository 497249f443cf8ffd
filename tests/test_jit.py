"""jit: caching, static arguments, errors, composition with every transform, the passes,
the buffer plan, generated code and its tracebacks."""
import gc
import traceback
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.compiler.passes import dce, optimize
from fungrad.core.ir import Eqn, Graph, Literal, ShapedArray, Var
from fungrad.lax import elementwise as E

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3))
W = rng.standard_normal((3, 2))


def mlp_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = fnp.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    z = z - fnp.max(z, axis=-1, keepdims=True)
    return -fnp.mean(fnp.sum(y * (z - fnp.log(fnp.sum(fnp.exp(z), axis=-1, keepdims=True))),
                             axis=-1))


PARAMS = [(rng.standard_normal((3, 5)), rng.standard_normal(5)),
          (rng.standard_normal((5, 4)), rng.standard_normal(4))]
XS = rng.standard_normal((6, 3))
YS = np.eye(4)[rng.integers(0, 4, 6)]


def assert_trees_close(a, b, tol=1e-12):
    la, lb = fg.tree.tree_leaves(a), fg.tree.tree_leaves(b)
    assert fg.tree.tree_structure(a) == fg.tree.tree_structure(b)
    for u, v in zip(la, lb):
        u, v = np.asarray(u), np.asarray(v)
        assert u.shape == v.shape and u.dtype == v.dtype, (u.shape, u.dtype, v.shape, v.dtype)
        np.testing.assert_allclose(u, v, rtol=tol, atol=tol)


# ----------------------------------------------------------------------------- caching
def test_traced_once_per_signature():
    count = []

    def f(x, y):
        count.append(1)
        return fnp.sin(x) @ y

    jf = fg.jit(f)
    for _ in range(3):
        np.testing.assert_array_equal(jf(X, W), np.sin(X) @ W)
    assert len(count) == 1
    jf(X.astype(np.float32), W.astype(np.float32))  # new dtypes: one more trace
    jf(X[:2], W)  # new shape: one more
    jf(X, W)
    assert len(count) == 3
    assert jf.cache_info() == (3, 3, 3)
    jf.clear_cache()
    jf(X, W)
    assert len(count) == 4


def test_pytree_arguments_outputs_and_kwargs():
    def f(p, x, scale=1.0):
        return {"loss": mlp_loss(p, x, YS) * scale, "h": [fnp.tanh(x)]}

    jf = fg.jit(f)
    assert_trees_close(jf(PARAMS, XS), f(PARAMS, XS))
    assert_trees_close(jf(PARAMS, XS, scale=np.array(2.0)), f(PARAMS, XS, scale=2.0))


def test_python_scalar_arguments_are_traced_not_static():
    count = []

    def f(x, s):
        count.append(1)
        return x * s

    jf = fg.jit(f)
    np.testing.assert_array_equal(jf(X, 2.0), X * 2.0)
    np.testing.assert_array_equal(jf(X, 3.0), X * 3.0)
    assert len(count) == 1


def test_python_scalar_arguments_are_weak_like_in_eager_numpy():
    x = X.astype(np.float32)

    def f(x, lr):
        return x * lr, x / (1.0 + 0.5 * lr), x - lr ** 2, fnp.maximum(x, lr), lr * 2.0

    for got, want in zip(fg.jit(f)(x, 0.1), f(x, 0.1)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    step = fg.jit(lambda w, lr: w - lr * fg.grad(lambda w: fnp.sum(w ** 2))(w))
    assert step(x, 0.1).dtype == np.float32
    assert fg.jit(lambda n, k: n * k)(np.arange(3, dtype=np.int8), 3).dtype == np.int8


def test_python_int_arguments_keep_their_value_against_small_integer_arrays():
    # a traced Python int compares by value (np.int8(127) < 300), arithmetic with one out of
    # the array's range raises NumPy's OverflowError, clip moves it into the range; it used
    # to wrap into the array's dtype silently (300 -> 44 as int8)
    i8, u8, u64 = np.int8([0, 127]), np.uint8([0, 255]), np.uint64([0, 5, 2 ** 63 + 5])
    for f, a, n in [(lambda a, n: a > n, i8, 300), (lambda a, n: n <= a, i8, -300),
                    (fnp.equal, u8, -1), (lambda a, n: a == n, u8, 256),
                    (fnp.not_equal, u8, 255), (fnp.less_equal, u64, -3),
                    (lambda a, n: n >= a, u64, -3), (fnp.greater, u64, 4)]:
        got, want = fg.jit(f)(a, n), f(a, n)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    for f in (lambda a, n: a + n, fnp.maximum, fnp.bitwise_and):
        with pytest.raises(OverflowError, match="out of bounds for uint8"):
            f(u8, -1)
        with pytest.raises(OverflowError, match="out of bounds for uint8"):
            fg.jit(f)(u8, -1)
    for lo, hi in [(-1, 3), (0, 300), (7, 3)]:
        got, want = fg.jit(fnp.clip)(u8, lo, hi), np.clip(u8, lo, hi)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_closed_over_arrays_are_constants():
    jf = fg.jit(lambda x: x @ W)
    np.testing.assert_array_equal(jf(X), X @ W)
    assert "c0" in str(jf.lower(X).ir_before)


def test_static_argnums_and_argnames():
    count = []

    def f(x, n, mode="sum"):
        count.append(1)
        y = x
        for _ in range(n):  # Python control flow on a static value
            y = fnp.sin(y)
        return fnp.sum(y) if mode == "sum" else fnp.max(y)

    jf = fg.jit(f, static_argnums=1, static_argnames="mode")
    np.testing.assert_allclose(jf(X, 2), np.sum(np.sin(np.sin(X))), rtol=1e-14)
    jf(X, 2)
    np.testing.assert_allclose(jf(X, 2, mode="max"), np.max(np.sin(np.sin(X))), rtol=1e-14)
    jf(X, 3)
    assert len(count) == 3


def test_static_arguments_by_position_or_by_name():
    # static_argnums and static_argnames are mapped to each other through the signature
    def f(x, n, mode="sum"):
        y = x
        for _ in range(n):
            y = fnp.sin(y)
        return fnp.sum(y) if mode == "sum" else fnp.max(y)

    want_max, want_sum = np.max(np.sin(np.sin(X))), np.sum(np.sin(np.sin(np.sin(X))))
    for jf in (fg.jit(f, static_argnames=("n", "mode")), fg.jit(f, static_argnums=(1, 2))):
        for call in (lambda: jf(X, 2, "max"), lambda: jf(X, n=2, mode="max"),
                     lambda: jf(X, 2, mode="max")):
            np.testing.assert_allclose(call(), want_max, rtol=1e-14)
        np.testing.assert_allclose(jf(X, n=3), want_sum, rtol=1e-14)  # mode's default
    kw = fg.jit(lambda x, **opts: x * opts["k"], static_argnames="k")  # any name with **kw
    np.testing.assert_array_equal(kw(X, k=2), X * 2)
    np.testing.assert_array_equal(fg.jit(lambda *xs: xs[0] * xs[2], static_argnums=2)(X, X, 3),
                                  X * 3)


def test_unknown_static_arguments_are_errors_at_jit_time():
    def f(x, n, *, mode="sum"):
        return x

    with pytest.raises(ValueError, match=r"static_argnames contains 'modes'.*f.*"
                                         r"\['x', 'n', 'mode'\]"):
        fg.jit(f, static_argnames=("n", "modes"))
    with pytest.raises(ValueError, match=r"static_argnums contains 2.*2 positional.*'x', 'n'"):
        fg.jit(f, static_argnums=2)


def test_unhashable_static_argument_names_it_and_the_fix():
    jf = fg.jit(lambda x, sizes: x * len(sizes), static_argnums=1)
    with pytest.raises(TypeError, match=r"static argument 1 must be hashable.*list.*tuple"):
        jf(X, [1, 2])


def test_non_array_argument_names_static_argnums():
    with pytest.raises(TypeError, match=r"holds a str .*static_argnums"):
        fg.jit(lambda x, mode: x)(X, "relu")
    np.testing.assert_array_equal(fg.jit(lambda x, mode: x * 2.0, static_argnums=1)(X, "relu"),
                                  X * 2.0)


def test_traced_boolean_mask_names_the_fix():
    with pytest.raises(IndexError, match=r"data-dependent shape; use fnp.where"):
        fg.jit(lambda x: x[x > 0])(X)


def test_edge_signatures():
    assert fg.jit(lambda x: None)(X) is None
    same = fg.jit(lambda x: x)(X)  # an input returned is a copy (API: outputs are fresh)
    assert same is not X and not np.shares_memory(same, X) and same.flags.writeable
    assert fg.jit(lambda x: 3.0)(X).dtype == np.float64
    assert fg.jit(lambda x: fnp.sum(x))(np.zeros((0, 3))) == 0.0
    np.testing.assert_array_equal(fg.jit(lambda i: i * 2 + 1)(np.arange(3)), [1, 3, 5])
    np.testing.assert_array_equal(fg.jit(lambda x, *, y: x + y)(X, y=X), 2 * X)


def test_branching_on_a_traced_value_names_the_fix():
    def f(x):
        if fnp.sum(x) > 0:
            return x
        return -x

    with pytest.raises(TypeError, match=r"fnp.where.*static_argnums"):
        fg.jit(f)(X)


def test_retrace_warning_fires_once_at_the_users_call():
    def retraced_fn(x, y):
        return fnp.sum(x) + fnp.sum(y)
    jf = fg.jit(retraced_fn)
    fg.config.update("jit_retrace_warning", 2)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for n in range(1, 8):
                jf(np.ones(3), np.ones(n))  # the line the warning must point at
        ours = [w for w in caught if "retraced_fn" in str(w.message)]
        assert len(ours) == 1
        assert ours[0].filename == __file__
        assert "argument 1 (leaf 0) changed from f64[2] to f64[3]" in str(ours[0].message)
    finally:
        fg.config.update("jit_retrace_warning", 10)


def _linecache_entries(fname):
    import linecache
    return [k for k in list(linecache.cache) if k.startswith("<fungrad.jit") and f"{fname} " in k]


def test_cache_is_lru_bounded_and_frees_generated_code():
    def lru_bounded_fn(x):
        return fnp.tanh(x) * 2.0
    fg.config.update("jit_cache_size", 3)
    fg.config.update("jit_retrace_warning", None)
    try:
        jf = fg.jit(lru_bounded_fn)
        for n in range(1, 11):
            jf(np.ones(n))
        info = jf.cache_info()
        assert (info.misses, info.size, info.maxsize) == (10, 3, 3)
        assert len(_linecache_entries("lru_bounded_fn")) == 3
        jf(np.ones(8))  # a hit makes 8 the most recently used ...
        jf(np.ones(11))  # ... so this miss evicts 9, not 8
        jf(np.ones(8))
        assert jf.cache_info()[:2] == (2, 11)
        jf(np.ones(9))
        assert jf.cache_info()[:2] == (2, 12)
        jf.clear_cache()
        assert _linecache_entries("lru_bounded_fn") == []
        jf(np.ones(2))
        fg.grad(lambda x: fnp.sum(jf(x)))(np.ones(2))  # derived code (the reverse split)
        assert len(_linecache_entries("lru_bounded_fn")) == 2
        del jf
        gc.collect()
        assert _linecache_entries("lru_bounded_fn") == []
    finally:
        fg.config.update("jit_cache_size", 64)
        fg.config.update("jit_retrace_warning", 10)
    with pytest.raises(ValueError, match="jit_cache_size must be an int >= 1 or None"):
        fg.config.update("jit_cache_size", 0)
    fg.config.update("jit_cache_size", None)  # no limit
    try:
        jf = fg.jit(lru_bounded_fn)
        for n in range(1, 6):
            jf(np.ones(n))
        assert jf.cache_info().size == 5 and jf.cache_info().maxsize is None
    finally:
        fg.config.update("jit_cache_size", 64)


def test_retrace_warning_names_the_changed_argument():
    jf = fg.jit(lambda x, y: fnp.sum(x) + fnp.sum(y))
    fg.config.update("jit_retrace_warning", 2)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for n in range(1, 5):
                jf(np.ones(3), np.ones(n))
        msgs = [str(w.message) for w in caught]
        assert msgs and "argument 1 (leaf 0) changed from f64[2] to f64[3]" in msgs[0]
    finally:
        fg.config.update("jit_retrace_warning", 10)
    with pytest.raises(KeyError, match="unknown option"):
        fg.config.update("no_such_option", 1)


# ----------------------------------------------------------------------------- composition
def test_grad_of_jit_and_jit_of_grad():
    g = fg.grad(mlp_loss)(PARAMS, XS, YS)
    assert_trees_close(fg.grad(fg.jit(mlp_loss))(PARAMS, XS, YS), g)
    assert_trees_close(fg.jit(fg.grad(mlp_loss))(PARAMS, XS, YS), g)
    assert_trees_close(fg.jit(fg.grad(fg.jit(mlp_loss)))(PARAMS, XS, YS), g)
    vg = fg.jit(fg.value_and_grad(mlp_loss))(PARAMS, XS, YS)
    assert_trees_close(vg, fg.value_and_grad(mlp_loss)(PARAMS, XS, YS))


COMPOSITES = {
    "mlp": (lambda w, x: fnp.sum(fnp.tanh(x @ w) ** 2), (W, X)),
    "softmax xent": (lambda w, x: -fnp.sum(fnp.log(fnp.exp(x @ w) / fnp.sum(
        fnp.exp(x @ w), axis=1, keepdims=True))[:, 0]), (W, X)),
    "indexing and shapes": (lambda w, x: fnp.sum(fnp.concatenate(
        [x[::-1, :2] @ w[:2], fnp.transpose(w)[:, 1:2].T * x[:, 1:2]], axis=1) ** 3), (W, X)),
    "reductions": (lambda w, x: fnp.max(fnp.abs(x) @ w) + fnp.prod(w[0] + 2.0)
                   - fnp.var(x), (W, X)),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_jit_of_grad_and_vmap_match_eager(name):
    f, (w, x) = COMPOSITES[name]
    assert_trees_close(fg.jit(f)(w, x), f(w, x))
    assert_trees_close(fg.jit(fg.grad(f))(w, x), fg.grad(f)(w, x))
    assert_trees_close(fg.grad(fg.jit(f))(w, x), fg.grad(f)(w, x))
    per_ex = fg.vmap(fg.grad(f), in_axes=(None, 0))
    xs = np.stack([x, x * 0.5, x + 0.1])
    assert_trees_close(fg.jit(per_ex)(w, xs), per_ex(w, xs))
    assert_trees_close(fg.jit(fg.vmap(f, in_axes=(None, 0)))(w, xs),
                       fg.vmap(f, in_axes=(None, 0))(w, xs))


def test_make_ir_can_show_the_optimized_ir():
    f = lambda x: fnp.transpose(fnp.transpose(x)) * 1.0
    assert len(fg.make_ir(f)(X).graph.eqns) == 3
    assert str(fg.make_ir(f, optimize=True)(X)).count("=") == 0


def test_the_gradient_seed_of_ones_is_not_multiplied():
    """grad seeds the backward pass with a constant 1.0 array; x * ones is x."""
    src = fg.jit(fg.grad(lambda x: (3.0 * x + 2.0) ** 2)).lower(1.0).source
    assert src.count("np.multiply") == 3, src  # 3x, the square's 2c, the chain's 3
    assert fg.jit(fg.grad(lambda x: (3.0 * x + 2.0) ** 2))(1.0) == 30.0


def test_higher_order_through_jit():
    f = lambda x: fnp.sum(fnp.sin(x) ** 3)
    x = X[0]
    want = fg.hessian(f)(x)
    assert_trees_close(fg.hessian(fg.jit(f))(x), want, 1e-10)
    assert_trees_close(fg.jit(fg.hessian(f))(x), want, 1e-10)
    assert_trees_close(fg.grad(fg.grad(fg.jit(lambda s: fnp.sin(s) * s)))(0.3),
                       fg.grad(fg.grad(lambda s: fnp.sin(s) * s))(0.3))


def test_vmap_and_jit_compose_both_ways():
    per_ex = fg.vmap(fg.grad(mlp_loss), in_axes=(None, 0, 0))
    want = per_ex(PARAMS, XS, YS)
    assert_trees_close(fg.jit(per_ex)(PARAMS, XS, YS), want)
    assert_trees_close(fg.vmap(fg.jit(fg.grad(mlp_loss)), in_axes=(None, 0, 0))(PARAMS, XS, YS),
                       want)
    f = lambda x, w: fnp.tanh(x @ w)
    assert_trees_close(fg.vmap(fg.jit(f), in_axes=(1, None), out_axes=1)(XS[None], W),
                       fg.vmap(f, in_axes=(1, None), out_axes=1)(XS[None], W))


def test_jvp_linearize_vjp_of_jit():
    f = lambda x: fnp.sin(x) * fnp.exp(x)
    jf = fg.jit(f)
    t = np.ones_like(X)
    assert_trees_close(fg.jvp(jf, (X,), (t,)), fg.jvp(f, (X,), (t,)))
    assert_trees_close(fg.jit(lambda x, t: fg.jvp(f, (x,), (t,)))(X, t), fg.jvp(f, (X,), (t,)))
    assert_trees_close(fg.linearize(jf, X)[1](t), fg.linearize(f, X)[1](t))
    assert_trees_close(fg.vjp(jf, X)[1](t), fg.vjp(f, X)[1](t))
    assert_trees_close(fg.jacfwd(jf)(X[0]), fg.jacrev(f)(X[0]))


def test_jit_closing_over_an_outer_tracer():
    # the inner jit captures x, a value of the outer grad: it becomes an operand of jit_call
    f = lambda x: x * fg.jit(lambda y: fnp.sin(x * y))(2.0)
    assert_trees_close(fg.grad(f)(0.7), np.asarray(np.sin(1.4) + 0.7 * 2 * np.cos(1.4)))


def test_nested_jit_is_one_call_in_the_outer_code():
    inner = fg.jit(lambda x: fnp.tanh(x) * 2.0)
    outer = fg.jit(lambda x: inner(x) + inner(x * 3.0))
    np.testing.assert_allclose(outer(X), np.tanh(X) * 2 + np.tanh(X * 3) * 2, rtol=1e-14)
    assert "jitted" in outer.lower(X).source


def _nested_model():
    """A jitted model that calls a jitted layer twice (the same compiled call)."""
    layer = fg.jit(lambda w, x: fnp.tanh(x @ w) + 0.1 * x)
    model = fg.jit(lambda w, x: fnp.sum(layer(w, layer(w, x)) ** 2))
    eager = lambda w, x: fnp.sum((lambda h: fnp.tanh(h @ w) + 0.1 * h)(
        fnp.tanh(x @ w) + 0.1 * x) ** 2)
    return model, eager


def test_reverse_mode_through_nested_jit():
    # the JVP of a nested jit is one jit_call taking primals and tangents; partial
    # evaluation used to put it whole in the linear part (KeyError in codegen)
    sq = lambda x: x * x
    assert_trees_close(fg.grad(fg.jit(fg.jit(sq)))(3.0), np.asarray(6.0))
    model, eager = _nested_model()
    w, x = np.linspace(-0.5, 0.5, 9).reshape(3, 3), X[0]
    assert_trees_close(fg.grad(model, argnums=(0, 1))(w, x),
                       fg.grad(eager, argnums=(0, 1))(w, x))
    y, f_vjp = fg.vjp(model, w, x)
    want_y, want_vjp = fg.vjp(eager, w, x)
    assert_trees_close(y, want_y)
    assert_trees_close(f_vjp(np.float64(1.5)), want_vjp(np.float64(1.5)))
    assert_trees_close(fg.linearize(model, w, x)[1](w, x), fg.linearize(eager, w, x)[1](w, x))
    assert_trees_close(fg.jacrev(model, argnums=1)(w, x), fg.jacrev(eager, argnums=1)(w, x))
    assert_trees_close(fg.hessian(model, argnums=1)(w, x), fg.hessian(eager, argnums=1)(w, x),
                       1e-10)
    assert_trees_close(fg.jit(fg.grad(model))(w, x), fg.grad(eager)(w, x))


def test_reverse_mode_through_jit_of_grad_of_jit():
    f = lambda x: fnp.sin(x) * x
    nested = fg.grad(fg.jit(fg.grad(fg.jit(fg.grad(f)))))
    assert_trees_close(nested(0.7), fg.grad(fg.grad(fg.grad(f)))(0.7), 1e-12)
    nested = fg.grad(fg.jit(fg.grad(fg.jit(fg.jit(lambda x: fnp.sum(fnp.exp(x) * x))))),
                     argnums=0)
    eager = fg.grad(fg.grad(lambda x: fnp.sum(fnp.exp(x) * x)))
    assert_trees_close(fg.vmap(nested)(X[:, 0]),
                       fg.vmap(eager)(X[:, 0]))


def test_reverse_mode_through_jit_names_an_unsplittable_primitive():
    # a (hypothetical higher-order) primitive whose JVP is one equation with both primal
    # and tangent results cannot be split into a compiled primal part and a linear part
    from fungrad.core.primitive import Primitive
    both_p = Primitive("sq_and_tangent", multiple_results=True)
    both_p.impl = lambda x, t: [x * x, 2 * x * t]
    both_p.abstract_eval = lambda x, t: [x, t]
    sq_p = Primitive("sq")
    sq_p.impl = lambda x: x * x
    sq_p.abstract_eval = lambda x: x
    sq_p.jvp = lambda primals, tangents: tuple(both_p.bind(primals[0], tangents[0]))
    with pytest.raises(NotImplementedError, match=r"jit\(<lambda>\).*sq_and_tangent.*fg.jvp"):
        fg.grad(fg.jit(lambda x: sq_p.bind(x)))(3.0)


# ----------------------------------------------------------------------------- memory safety
def test_inputs_never_written_unless_donated():
    x = X.copy()
    f = lambda x: fnp.exp(fnp.sin(x) * 2.0) + 1.0
    out = fg.jit(f)(x)
    np.testing.assert_array_equal(x, X)
    src = fg.jit(f, donate_argnums=0).lower(x).source
    assert "out=a" in src  # the donated input's buffer is reused
    np.testing.assert_allclose(fg.jit(f, donate_argnums=0)(x.copy()), out, rtol=1e-15)


def test_outputs_do_not_share_memory_across_calls():
    jf = fg.jit(lambda x: fnp.tanh(x) * 2.0)
    a, b = jf(X), jf(X)
    assert not np.shares_memory(a, b)
    a[...] = 0
    np.testing.assert_allclose(jf(X), np.tanh(X) * 2.0)
    jc = fg.jit(lambda x: W * 2.0)  # a folded constant output is copied for the caller
    c = jc(X)
    c[...] = 0
    np.testing.assert_array_equal(jc(X), W * 2.0)


def test_buffer_plan_reuses_dead_temporaries():
    src = fg.jit(lambda x: fnp.sum(fnp.exp(fnp.tanh(x) * 2.0) - x)).lower(X).source
    # the first temporary (in scratch memory kept between calls) is reused in place
    assert "np.tanh(a, out=_s[0])" in src and "out=b" in src
    assert "out=a" not in src  # never the user's input


def _temporaries(x):
    return fnp.sum(fnp.tanh(x) * fnp.sin(x), axis=0) * 2.0, fnp.cos(x) * 3.0


def _temporaries_numpy(x):
    return np.sum(np.tanh(x) * np.sin(x), axis=0) * 2.0, np.cos(x) * 3.0


def test_scratch_buffers_are_reused_across_calls_but_never_returned():
    jf = fg.jit(_temporaries)
    assert "out=_s[" in jf.lower(X).source  # temporaries live in memory kept between calls
    a, b = jf(X)
    a0, b0 = a.copy(), b.copy()
    for k in range(3):  # later calls reuse the scratch memory: earlier outputs stay intact
        c, d = jf(X + k)
        want = _temporaries_numpy(X + k)
        np.testing.assert_allclose(c, want[0], rtol=1e-14)
        np.testing.assert_allclose(d, want[1], rtol=1e-15)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
    assert not np.shares_memory(a, c) and not np.shares_memory(a, b)


def test_scratch_buffers_are_per_call_across_threads():
    import threading
    jf = fg.jit(_temporaries)
    base = np.random.default_rng(1).standard_normal((256, 256))  # NumPy releases the GIL
    jf(base)
    errors = []

    def work(k):
        x = base + k
        want = _temporaries_numpy(x)
        for _ in range(50):
            got = jf(x)
            if not all(np.allclose(g, w, rtol=1e-14) for g, w in zip(got, want)):
                errors.append(k)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_donated_state_update_writes_the_donated_buffer():
    # Adam's moment update (1 - b1) * g + b1 * m: the output goes into m's donated memory
    # and the temporary (1 - b1) * g into scratch memory, so the call allocates nothing
    f = fg.jit(lambda m, g: 0.1 * g + 0.9 * m, donate_argnums=0)
    m, g = X.copy(), W.T.copy()[:, :3].repeat(2, axis=0)[:4]
    g0 = g.copy()
    src = f.lower(m, g).source
    assert "out=_s[0]" in src and "out=a" in src
    out = f(m, g)
    np.testing.assert_allclose(out, 0.1 * g0 + 0.9 * X, rtol=1e-15)
    assert np.shares_memory(out, m) and not np.shares_memory(out, g)
    np.testing.assert_array_equal(g, g0)  # the argument that is not donated is untouched


def test_donated_outputs_do_not_alias_each_other():
    f = fg.jit(lambda p, m, g: (p - 0.1 * (0.5 * g + 0.5 * m), 0.5 * g + 0.5 * m),
               donate_argnums=(0, 1))
    p, m, g = X.copy(), X + 1.0, X + 2.0
    new_p, new_m = f(p, m, g)
    np.testing.assert_allclose(new_m, 0.5 * (X + 2.0) + 0.5 * (X + 1.0), rtol=1e-15)
    np.testing.assert_allclose(new_p, X - 0.1 * new_m, rtol=1e-15)
    assert not np.shares_memory(new_p, new_m) and not np.shares_memory(new_p, g)
    np.testing.assert_array_equal(g, X + 2.0)


def test_outputs_are_arrays_without_conversion_by_the_caller():
    x = X.copy()
    s, first, const = fg.jit(lambda x: (fnp.sum(x), x[0, 0], 2.0))(x)
    assert all(type(o) is np.ndarray for o in (s, first, const))
    assert first.dtype == x.dtype and const.dtype == np.float64
    first[...] = 7.0  # a 0-d output does not alias the input
    np.testing.assert_array_equal(x, X)


@pytest.mark.parametrize("scalar", [0.1, 3, 1e300])
def test_python_scalars_become_constants_of_the_array_dtype(scalar):
    x = X.astype(np.float32)
    f = lambda x: x * scalar + 1
    jf = fg.jit(f)
    consts = [c for c in jf.lower(x).call.fn.__globals__.values()
              if type(c) is np.ndarray and c.dtype == np.float32 and c.ndim == 0]
    if scalar == 1e300:  # overflows float32: left to NumPy (same result and warning)
        assert len(consts) == 1
        with pytest.warns(RuntimeWarning, match="overflow"):
            np.testing.assert_array_equal(jf(x), f(x))
        return
    assert len(consts) == 2  # the scalar and 1, converted once at compile time
    np.testing.assert_array_equal(jf(x), f(x))
    assert jf(x).dtype == np.float32


# ----------------------------------------------------------------------------- generated code
def test_lower_shows_source_and_both_irs():
    low = fg.jit(fg.grad(mlp_loss)).lower(PARAMS, XS, YS)
    assert low.source.startswith("def jit_grad_mlp_loss_(")
    assert "np.matmul" in low.source and "test_jit.py" in low.source
    assert len(low.ir.graph.eqns) < len(low.ir_before.graph.eqns)


def test_traceback_points_at_generated_line_and_user_line():
    def f(x, idx):
        return fnp.sin(x)[idx]

    jf = fg.jit(f)
    try:
        jf(X, np.array([10]))  # out of bounds at run time, inside the generated code
    except IndexError:
        tb = traceback.format_exc()
    else:
        pytest.fail("no IndexError")
    assert "<fungrad.jit jit_f" in tb
    assert "test_jit.py" in tb and "(f)" in tb  # the comment names the user's line


# ----------------------------------------------------------------------------- passes
def _graph(build):
    x = Var(ShapedArray((3,), np.dtype(np.float64)))
    eqns, outs = build(x)
    return Graph([x], eqns, outs)


def test_dce_drops_unused_equations():
    def build(x):
        a, b = Var(x.aval), Var(x.aval)
        return [Eqn(E.sin_p, [x], {}, [a]), Eqn(E.cos_p, [x], {}, [b])], [b]
    g = dce(_graph(build))
    assert [e.prim.name for e in g.eqns] == ["cos"]


def test_cse_folding_and_algebraic_simplification():
    def build(x):
        a, b, c, d, e = (Var(x.aval) for _ in range(5))
        return [Eqn(E.sin_p, [x], {}, [a]), Eqn(E.sin_p, [x], {}, [b]),  # CSE: b = a
                Eqn(E.mul_p, [b, Literal(1.0)], {}, [c]),                 # c = b
                Eqn(E.add_p, [a, c], {}, [d]),
                Eqn(E.add_p, [d, Literal(np.zeros(3))], {}, [e])], [e]      # e = d
    g = optimize(_graph(build))
    assert [e.prim.name for e in g.eqns] == ["sin", "add"]
    assert g.outvars[0] is g.eqns[-1].outputs[0]


def test_shape_chains_simplify():
    def f(x):
        y = fnp.transpose(fnp.transpose(x))
        return fnp.reshape(fnp.reshape(y, (12,)), (4, 3)) * 1.0
    low = fg.jit(f).lower(X)
    assert low.ir.graph.eqns == [] and "return (a.copy(), )" in low.source  # (a fresh output)


def test_sum_of_broadcast_becomes_a_product():
    low = fg.jit(lambda v: fnp.sum(fnp.broadcast_to(v, (5, 3)), axis=0)).lower(X[0])
    assert [e.prim.name for e in low.ir.graph.eqns] == ["mul"]
    np.testing.assert_allclose(fg.jit(lambda v: fnp.sum(fnp.broadcast_to(v, (5, 3)), axis=0))(
        X[0]), 5 * X[0], rtol=1e-15)


def test_static_values_that_compare_equal_but_differ_in_type_do_not_share_a_trace():
    # 1 == 1.0 == True, with one hash: the cache returned the int trace for 1.0 and True
    f = fg.jit(lambda s: fnp.full(2, s), static_argnums=0)
    assert [f(v).dtype for v in (1, 1.0, True)] == [np.int64, np.float64, np.bool_]
    g = fg.jit(lambda s, a: a * s[0], static_argnums=0)
    assert g((1.0,), np.ones(2, np.int32)).dtype == np.float64
    assert g((1,), np.ones(2, np.int32)).dtype == np.int32
    h = fg.jit(lambda a, s: a + s, static_argnames="s")
    assert h(np.zeros(2, np.int8), s=1).dtype == np.int8
    assert h(np.zeros(2, np.int8), s=1.0).dtype == np.float64
    # -0.0 == 0.0 too, but copysign tells them apart (JAX's cache merges them)
    c = fg.jit(lambda s, x: fnp.copysign(x, s), static_argnums=0)
    assert [c(s, np.ones(1))[0] for s in (0.0, -0.0, (0.0,)[0])] == [1.0, -1.0, 1.0]
    t = fg.jit(lambda s, x: fnp.copysign(x, s[0]), static_argnums=0)
    assert [t((s,), np.ones(1))[0] for s in (0.0, -0.0)] == [1.0, -1.0]


def test_python_int_argument_too_large_for_int64_raises():
    f = fg.jit(lambda a: a + 1)
    assert f(2) == 3
    with pytest.raises(OverflowError, match="too large for int64.*static_argnums"):
        f(2**70)  # (it became an object array)


@pytest.mark.parametrize("zero, negzero", [(0.0, -0.0), (np.float32(0.0), np.float32(-0.0)),
                                           (np.float64(0.0), np.float64(-0.0))])
def test_literal_zeros_of_either_sign_stay_apart(zero, negzero):
    # 0.0 == -0.0 with one hash: CSE and the typed constants merged them, so
    # copysign(x, -0.0) beside copysign(x, 0.0) returned +1 and x * -0.0 gave +0
    x = np.ones(3, np.float32)
    f = fg.jit(lambda x: (fnp.copysign(x, zero), fnp.copysign(x, negzero), x * zero, x * negzero))
    for got, want in zip(f(x), (np.copysign(x, zero), np.copysign(x, negzero), x * zero,
                                x * negzero)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    c = fg.jit(lambda x: (x * complex(0.0, 0.0), x * complex(-0.0, 0.0)))(np.ones(2))
    np.testing.assert_array_equal(np.signbit(c[1].real), [True, True])
    np.testing.assert_array_equal(np.signbit(c[0].real), [False, False])
    g1, g2 = fg.checkpoint(lambda x: x * zero), fg.checkpoint(lambda x: x * negzero)
    for out in (fg.jit(lambda x: (g1(x), g2(x)))(x), fg.vmap(lambda x: (g1(x), g2(x)))(x)):
        np.testing.assert_array_equal(np.signbit(out), [[False] * 3, [True] * 3])


def test_scalar_operands_are_read_only_constants():
    # scalars become 0-d array constants (faster ufunc operands than NumPy scalars): the
    # generated code must not be able to write into them, and dtypes stay NumPy's
    f = fg.jit(lambda x: (x * 0.5 + np.float32(2.0), x * np.float64(3.0)))
    low = f.lower(np.ones(2, np.float32))
    consts = [v for k, v in low.call.fn.__globals__.items()
              if k[:1] == "c" and k[1:].isdigit()]
    assert consts and all(type(c) is np.ndarray and not c.flags.writeable for c in consts)
    a, b = f(np.ones(2, np.float32))
    assert a.dtype == np.float32 and b.dtype == np.float64
    np.testing.assert_array_equal(a, [2.5, 2.5])
