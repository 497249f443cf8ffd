"""Outputs are fresh, writable arrays sharing memory with no input and no other output (eager
and jitted), and donation never gives wrong numbers (API.md, "Arrays and dtypes")."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

X = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


def assert_fresh(outs, ins):
    """Every output is writable, shares memory with no input and no other output, and
    writing into it changes no input and no other output."""
    outs = [o for o in fg.tree.tree_leaves(outs) if isinstance(o, np.ndarray)]
    ins = [x for x in fg.tree.tree_leaves(ins) if isinstance(x, np.ndarray)]
    before = [a.copy() for a in ins + outs]
    for k, o in enumerate(outs):
        assert o.flags.writeable, f"output {k} is read-only"
        for x in ins:
            assert not np.shares_memory(o, x), f"output {k} shares memory with an input"
        for j in range(k):
            assert not np.shares_memory(o, outs[j]), f"outputs {j} and {k} share memory"
    for k, o in enumerate(outs):
        o *= 0.5
        o -= 7.0
        before[len(ins) + k] = o.copy()
        for j, (a, b) in enumerate(zip(ins + outs, before)):
            np.testing.assert_array_equal(a, b, err_msg=f"writing output {k} changed {j}")


def loss(p, data):
    return fnp.sum(p["w"] * data) + fnp.sum(p["b"])


# each: (function, its arguments), run under jit; those that are transforms also eagerly
FUNCTIONS = {
    "identity": (lambda x: x, (X,)),
    "x * 1.0": (lambda x: x * 1.0, (X,)),
    "same output twice": (lambda x: (x, x), (X,)),
    "fresh output twice": (lambda x: (fnp.sin(x),) * 2, (X,)),
    "output and its transpose": (lambda x: (fnp.sin(x), fnp.sin(x).T), (X,)),
    "reshape of an input": (lambda x: fnp.reshape(x, (12,)), (X,)),
    "slice of an input": (lambda x: x[1:], (X,)),
    "stop_gradient": (lambda x: fg.stop_gradient(x), (X,)),
    "broadcast of a sum": (lambda x: fnp.broadcast_to(fnp.sum(x), (3, 4)), (X,)),
    "constant": (lambda x: fnp.ones((3, 4)), (X,)),
    "grad with data": (fg.grad(loss), ({"w": X.copy(), "b": X[0].copy()}, X)),
    "grad of sum": (fg.grad(fnp.sum), (X,)),
    "grads of x + y": (fg.grad(lambda x, y: fnp.sum(x + y), argnums=(0, 1)), (X, X + 1.0)),
    "value_and_grad": (fg.value_and_grad(lambda x: fnp.sum(x)), (X,)),
    "vmap identity": (fg.vmap(lambda x: x), (X,)),
    "vmap unbatched output": (fg.vmap(lambda x, w: (x, w), in_axes=(0, None)), (X, X[0])),
    "vmap broadcast output": (fg.vmap(lambda x, w: w, in_axes=(0, None)), (X, X[0])),
    "jacfwd identity": (fg.jacfwd(lambda x: x), (X[0],)),
    "jacrev identity": (fg.jacrev(lambda x: x), (X[0],)),
    "jacrev of two outputs": (fg.jacrev(lambda x: (x, 2.0 * x)), (X[0],)),
    "hessian": (fg.hessian(lambda x: fnp.sum(x ** 2)), (X[0],)),
}


TRANSFORMS = [name for name in FUNCTIONS
              if name.split()[0] in ("grad", "grads", "value_and_grad", "vmap", "jacfwd",
                                     "jacrev", "hessian")]


@pytest.mark.parametrize("name", TRANSFORMS)
def test_eager_outputs_are_fresh(name):
    f, args = FUNCTIONS[name]
    assert_fresh(f(*args), args)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jit_outputs_are_fresh(name):
    f, args = FUNCTIONS[name]
    jf = fg.jit(f)
    expected = jf(*args)
    assert_fresh(jf(*args), args)
    # the cached code returns fresh arrays again: the writes above changed nothing it keeps
    for a, b in zip(fg.tree.tree_leaves(jf(*args)), fg.tree.tree_leaves(expected)):
        np.testing.assert_array_equal(a, b)


def test_jit_grad_does_not_return_the_data():
    """The issue's example: `g['w'] *= 0.5` must not corrupt the data or the other gradient."""
    p, data = {"w": np.ones(3), "b": np.zeros(2)}, np.arange(3.0)
    g = fg.jit(fg.grad(loss))(p, data)
    g["w"] *= 0.5
    np.testing.assert_array_equal(data, np.arange(3.0))
    np.testing.assert_array_equal(g["b"], np.ones(2))


def test_jit_copies_only_outputs_that_need_it():
    src = fg.jit(lambda x: fnp.sin(x) * 2.0).lower(X).source
    assert ".copy()" not in src and ".view()" not in src  # fresh: returned as computed
    src = fg.jit(lambda x: (fnp.sin(x), fnp.sin(x), x)).lower(X).source
    assert src.count(".copy()") == 2  # the second return of one buffer, and the input


@pytest.mark.parametrize("call", [
    lambda x, t: fg.jvp(lambda x: x, (x,), (t,)),
    lambda x, t: fg.jvp(lambda x: (x, x), (x,), (t,)),
    lambda x, t: fg.vjp(lambda x: x, x)[0],
    lambda x, t: fg.vjp(lambda x: x, x)[1](t),
    lambda x, t: fg.vjp(lambda x: (x, x), x)[1]((t, t)),
    lambda x, t: fg.linearize(lambda x: x, x)[0],
    lambda x, t: fg.linearize(lambda x: x, x)[1](t),
    lambda x, t: fg.linearize(lambda x: (x, x), x)[1](t),
], ids=["jvp", "jvp twice", "vjp out", "vjp_fn", "vjp_fn twice", "linearize out",
        "f_jvp", "f_jvp twice"])
def test_forward_and_reverse_outputs_are_fresh(call):
    x, t = X.copy(), X + 2.0
    assert_fresh(call(x, t), (x, t))


def test_vjp_output_is_not_a_residual_of_vjp_fn():
    """exp's derivative is its output: writing into `y` must not change the later vjp_fn."""
    y, f_vjp = fg.vjp(fnp.exp, X)
    y[...] = 0.0
    np.testing.assert_allclose(f_vjp(np.ones_like(X))[0], np.exp(X), rtol=1e-15)
    y, f_jvp = fg.linearize(fnp.exp, X)
    y[...] = 0.0
    np.testing.assert_allclose(f_jvp(np.ones_like(X)), np.exp(X), rtol=1e-15)


def test_aux_outputs_are_fresh():
    x = X.copy()
    (v, aux), g = fg.value_and_grad(lambda x: (fnp.sum(x), x), has_aux=True)(x)
    assert_fresh((v, aux, g), (x,))
    _, f_vjp, aux = fg.vjp(lambda x: (fnp.sin(x), x), x, has_aux=True)
    assert_fresh(aux, (x,))


# ----------------------------------------------------------------------------- donation
def _sin2(a, b):
    return fnp.sin(a) * 2.0 + b


def test_donated_buffer_is_reused_and_consumed():
    x = X.copy()
    f = fg.jit(lambda x: fnp.sin(x) * 2.0, donate_argnums=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = f(x)
    np.testing.assert_allclose(y, np.sin(X) * 2.0, rtol=1e-15)
    assert np.shares_memory(y, x)  # the output lives in the donated memory
    assert y.flags.writeable and not x.flags.writeable  # x is consumed
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    # the usual loop donates each previous output, silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            y = f(y)
    expected = np.sin(X) * 2.0
    for _ in range(3):
        expected = np.sin(expected) * 2.0
    np.testing.assert_allclose(y, expected, rtol=1e-14)


@pytest.mark.parametrize("second", [lambda x: x, lambda x: x[1:], lambda x: x.T.T],
                         ids=["same array", "a view", "an overlapping view"])
def test_donating_an_array_also_passed_elsewhere_is_skipped(second):
    x = X.copy()
    f = fg.jit(lambda a, b: fnp.sin(a) * 2.0 + fnp.sum(b), donate_argnums=0)
    b = second(x)
    expected = np.sin(X) * 2.0 + np.sum(b)
    with pytest.warns(UserWarning, match=r"donated argument 0 \(f64\[3,4\]\) was not donated: "
                                         r"it shares memory with argument 1"):
        out = f(x, b)
    np.testing.assert_allclose(out, expected, rtol=1e-15)
    np.testing.assert_array_equal(x, X)  # not donated: left as it was, writable
    assert x.flags.writeable


def test_donating_disjoint_slices_of_one_array_is_fine():
    big = np.concatenate([X, X + 1.0])
    f = fg.jit(lambda a, b: fnp.sin(a) * 2.0 + b, donate_argnums=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = f(big[:3], big[3:])
    np.testing.assert_allclose(out, np.sin(X) * 2.0 + X + 1.0, rtol=1e-15)


def test_donating_an_array_again_does_not_change_the_earlier_result():
    x = X.copy()
    f = fg.jit(_sin2, donate_argnums=0)
    y = f(x, X)
    y_value = y.copy()
    with pytest.warns(UserWarning, match="it is read-only"):
        z = f(x, X)  # x was consumed by the first call: not donated again
    np.testing.assert_array_equal(y, y_value)
    np.testing.assert_allclose(z, np.sin(y_value) * 2.0 + X, rtol=1e-15)


def test_donating_a_read_only_array_is_skipped_not_an_error():
    x = X.copy()
    x.flags.writeable = False
    with pytest.warns(UserWarning, match="was not donated: it is read-only"):
        out = fg.jit(_sin2, donate_argnums=0)(x, X)
    np.testing.assert_allclose(out, np.sin(X) * 2.0 + X, rtol=1e-15)
    np.testing.assert_array_equal(x, X)


def test_donating_an_array_the_function_closes_over_is_skipped():
    w = X.copy()
    f = fg.jit(lambda x: fnp.sin(x) * 2.0 + w, donate_argnums=0)
    with pytest.warns(UserWarning, match="closes over"):
        out = f(w)
    np.testing.assert_allclose(out, np.sin(X) * 2.0 + X, rtol=1e-15)
    np.testing.assert_array_equal(w, X)
    np.testing.assert_allclose(f(X.copy()), np.sin(X) * 2.0 + X, rtol=1e-15)


@pytest.mark.parametrize("outer", [
    lambda inner: fg.jit(lambda x: inner(x) + x),
    lambda inner: fg.grad(lambda x: fnp.sum(inner(x))),
    lambda inner: fg.vmap(inner),
], ids=["jit", "grad", "vmap"])
def test_donation_is_ignored_under_an_outer_transform(outer):
    x = X.copy()
    inner = fg.jit(lambda x: fnp.sin(x) * 2.0, donate_argnums=0)
    outer(inner)(x)
    np.testing.assert_array_equal(x, X)
    assert x.flags.writeable


def test_a_read_only_constant_returned_by_the_function_comes_back_writable():
    c = np.ones(3)
    c.flags.writeable = False
    out, _ = fg.jvp(lambda x: (x * 2.0, c), (np.ones(3),), (np.ones(3),))
    assert out[1].flags.writeable and not np.shares_memory(out[1], c)


# ----------------------------------------------------------------------------- recycled outputs
def _recycling(n=20000):
    """A jitted function whose large output is recycled (codegen `_recycled`)."""
    f = fg.jit(lambda x: fnp.exp(x) + 1.0)
    assert "_recycled(" in f.lower(np.zeros(n)).source
    return f, np.zeros(n)


def test_a_recycled_output_is_not_one_that_a_weak_reference_still_reaches():
    import weakref
    f, x = _recycling()
    cache = weakref.WeakValueDictionary()
    cache["y"] = f(x)  # only weakly held: NumPy would free it, never change it
    r = weakref.ref(f(x))
    for _ in range(4):
        f(x + 5.0)
    for y in (cache.get("y"), r()):
        assert y is None or np.all(y == 2.0)


def test_a_dropped_output_made_read_only_is_not_recycled():
    f, x = _recycling()
    y = f(x)
    y.flags.writeable = False  # frozen by the caller (or consumed by donation: next test)
    del y
    for _ in range(3):
        np.testing.assert_array_equal(f(x), 2.0)  # raised "output array is read-only"
    y = f(x)
    fg.jit(lambda w: fnp.sum(w * 2.0), donate_argnums=0)(y)  # consumes y: read-only
    del y
    for _ in range(3):
        np.testing.assert_array_equal(f(x), 2.0)


@pytest.mark.parametrize("change", ["shape", "strides", "dtype"])
def test_a_dropped_output_changed_in_place_is_not_recycled(change):
    f, x = _recycling()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (setting strides)
        y = f(x)
        if change == "shape":
            y.shape = (1, x.size)  # out=y then broadcast: a (1, n) result came back
        elif change == "strides":
            y.strides = (0,)  # a stride-0 result came back
        else:
            y.dtype = np.int64  # a casting error
        del y
    for _ in range(3):
        out = f(x)
        assert out.shape == x.shape and out.dtype == x.dtype and out.strides == (8,)
        np.testing.assert_array_equal(out, 2.0)


# ----------------------------------------------------------------------------- donation, more
def test_a_donated_array_is_consumed_even_when_the_call_raises():
    def boom(v):
        raise RuntimeError("boom")

    def f(w):
        y = fnp.sin(w) * 2.0  # written into w's memory
        fg.debug.callback(boom, y)
        return y + 1.0
    x = X.copy()
    with pytest.raises(RuntimeError, match="boom"):
        fg.jit(f, donate_argnums=0)(x)
    # the memory was written: the array must be marked consumed, not silently changed
    assert not x.flags.writeable or np.array_equal(x, X)


def test_donating_a_self_overlapping_view_is_skipped():
    buf = np.arange(10.0)
    w = np.lib.stride_tricks.as_strided(buf, (5, 5), (8, 8), writeable=True)
    b = np.arange(25.0).reshape(5, 5)
    expected = np.asarray(w) * 2.0 + b
    f = fg.jit(lambda w, b: w * 2.0 + b, donate_argnums=0)
    with pytest.warns(UserWarning, match="it may overlap itself"):
        out = f(w, b)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(buf, np.arange(10.0))
    with warnings.catch_warnings():  # strided views that do not overlap are donated
        warnings.simplefilter("error")
        big = np.ones((10, 10))
        np.testing.assert_array_equal(f(big[::2, ::2], b), 2.0 + b)


def test_eager_transforms_return_closed_over_arrays_as_copies():
    # a constant the function returns as it is came back as the same object, so writing into
    # the result wrote into the user's array (jit always copied it)
    c, x = np.arange(3.0), np.ones(3)
    outs = [fg.jvp(lambda x: (x * 2, c), (x,), (x,))[0][1],
            fg.vjp(lambda x: (x * 2, c), x)[0][1],
            fg.linearize(lambda x: (x * 2, c), x)[0][1],
            fg.value_and_grad(lambda x: (fnp.sum(x), c), has_aux=True)(x)[0][1],
            fg.vmap(lambda x: (x * 2, c), out_axes=(0, None))(np.ones((2, 3)))[1]]
    for out in outs:
        np.testing.assert_array_equal(out, c)
        assert not np.shares_memory(out, c)
        out += 1.0
    np.testing.assert_array_equal(c, np.arange(3.0))
