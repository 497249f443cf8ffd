"""fg.eval_shape / fg.ShapeDtypeStruct (jax.eval_shape's contract: output shapes and dtypes
by abstract tracing, nothing computed), and the small JAX-compatible helpers fg.jacobian,
fg.device_get and fg.block_until_ready."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


def test_eval_shape_computes_nothing_and_takes_structs():
    calls = []

    def f(x, w):
        calls.append(type(x).__name__)
        return {"y": fnp.tanh(x @ w), "n": fnp.sum(x, axis=0)}
    big = fg.ShapeDtypeStruct((10 ** 9, 3), np.float32)   # 12 GB if it were allocated
    out = fg.eval_shape(f, big, np.ones((3, 4), np.float32))
    assert out == {"y": fg.ShapeDtypeStruct((10 ** 9, 4), np.float32),
                   "n": fg.ShapeDtypeStruct((3,), np.float32)}
    assert calls == ["StagingTracer"]


def test_eval_shape_keeps_weak_types_kwargs_and_pytrees():
    out = fg.eval_shape(lambda x, *, s: (x * s, s), np.ones(2, np.float32), s=2.0)
    assert out[0] == fg.ShapeDtypeStruct((2,), np.float32)
    assert out[1] == fg.ShapeDtypeStruct((), np.float64, weak_type=True)
    assert repr(out[1]) == "ShapeDtypeStruct(shape=(), dtype=float64, weak_type=True)"
    init, _ = fg.nn.serial(fg.nn.Dense(10), fg.nn.Relu)
    shapes = fg.eval_shape(lambda k: init(k, (5, 3))[1], fg.random.key(0))
    assert [s.shape for s in fg.tree.tree_leaves(shapes)] == [(3, 10), (10,)]


def test_eval_shape_agrees_with_running_under_transforms():
    f = lambda x: fg.grad(lambda v: fnp.sum(fnp.sin(v) ** 2))(x).astype(np.float32)
    x = np.linspace(0, 1, 6).reshape(2, 3)
    s = fg.eval_shape(fg.vmap(f), x)
    assert (s.shape, s.dtype) == (f(x).shape, np.float32)
    # inside another transform (its tracers stand in as abstract values)
    g = fg.grad(lambda x: fnp.sum(x) * fg.eval_shape(fnp.outer, x, x).shape[0])(np.ones(3))
    np.testing.assert_array_equal(g, [3.0, 3.0, 3.0])


def test_shape_dtype_struct_is_an_abstract_argument_elsewhere():
    s = fg.ShapeDtypeStruct([2, 3], "float32")
    assert (s.shape, s.dtype, s.ndim, s.size) == ((2, 3), np.float32, 2, 6)
    assert hash(s) == hash(fg.ShapeDtypeStruct((2, 3), np.float32))
    assert "f32[2,3]" in str(fg.make_ir(lambda x: x * 2)(s))
    assert "np.multiply" in fg.jit(lambda x: x * 2).lower(s).source


def test_eval_shape_rejects_non_array_arguments_with_the_fix():
    with pytest.raises(TypeError, match=r"argument leaf 0 is str .*functools.partial"):
        fg.eval_shape(lambda name, x: x, "relu", 1.0)


def test_jacobian_is_jacrev_and_host_helpers_pass_numpy_through():
    assert fg.jacobian is fg.jacrev
    np.testing.assert_array_equal(fg.jacobian(fnp.sin)(np.zeros(2)), np.eye(2))
    tree = {"w": np.ones(2), "n": 3}
    assert fg.device_get(tree)["w"] is tree["w"] and fg.device_get(tree)["n"] == 3
    assert fg.block_until_ready(tree) is tree
