"""fungrad.extend: a primitive defined with its helpers works under every transform and in
the checker's terms (values, derivatives to second order, vmap, jit)."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.core.ir import ShapedArray
from fungrad.core.primitive import Primitive, registered_primitives, _REGISTRY
from fungrad.extend import elementwise_primitive, elementwise_batch, linear_jvp
from fungrad.lax.elementwise import mul, sub
from fungrad.test_util import check_grads


@pytest.fixture(scope="module")
def cube():
    p = elementwise_primitive("test_cube", lambda x: x ** 3, [lambda x, y: mul(mul(x, x), 3.0)])
    yield p
    del _REGISTRY["test_cube"]


@pytest.fixture(scope="module")
def scaled_diff():
    """x - 2y: an elementwise binary primitive, made linear (transpose rule by hand)."""
    p = elementwise_primitive("test_scaled_diff", lambda x, y: x - 2 * y,
                              [lambda x, y, z: 1.0, lambda x, y, z: -2.0])
    yield p
    del _REGISTRY["test_scaled_diff"]


def test_an_elementwise_primitive_gets_every_rule(cube):
    x = np.array([0.5, -1.0, 2.0])
    f = lambda x: fnp.sum(fnp.sin(cube.bind(x)))  # noqa: E731
    np.testing.assert_allclose(cube.bind(x), x ** 3)
    check_grads(f, (x,), order=2)
    np.testing.assert_allclose(fg.grad(f)(x), np.cos(x ** 3) * 3 * x ** 2)
    np.testing.assert_allclose(fg.jit(cube.bind)(x), x ** 3)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(x), fg.grad(f)(x))
    xs = np.random.default_rng(0).standard_normal((4, 3))
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(xs), np.stack([fg.grad(f)(r) for r in xs]))
    assert "test_cube" in str(fg.make_ir(cube.bind)(x))


def test_a_binary_elementwise_primitive(scaled_diff):
    x, y = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    f = lambda x, y: fnp.sum(scaled_diff.bind(x, y) ** 2)  # noqa: E731
    check_grads(f, (x, y), order=2)
    np.testing.assert_allclose(fg.vmap(scaled_diff.bind, in_axes=(0, None))(np.ones((3, 2)), y),
                               np.ones((3, 2)) - 2 * y)


def test_a_linear_primitive_with_a_transpose():
    p = Primitive("test_reverse")
    p.impl = lambda x: x[::-1].copy()
    p.abstract_eval = lambda x: ShapedArray(x.shape, x.dtype)
    p.jvp = linear_jvp(p)
    p.transpose = lambda ct, x: [p.bind(ct)]
    p.batch = lambda vals, dims, axis_size: (np.flip(vals[0], 1 - dims[0]), dims[0])
    try:
        x = np.array([1.0, 2.0, 4.0])
        w = np.array([1.0, 10.0, 100.0])
        np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(p.bind(x) * w))(x), w[::-1])
        check_grads(lambda x: fnp.sum(fnp.sin(p.bind(x)) * w), (x,), order=2)
        np.testing.assert_allclose(fg.jit(p.bind)(x), x[::-1])
    finally:
        del _REGISTRY["test_reverse"]


def test_user_primitives_are_not_fungrads(cube):
    assert cube not in registered_primitives()
    assert cube.module == __name__


def test_a_primitive_made_by_exec_code_is_not_fungrads():
    """Code run by exec() or doctest may have no __name__ in its globals."""
    try:
        exec("import fungrad as fg\n"
             "p = fg.extend.elementwise_primitive('test_exec_made', lambda x: x, [None])", {})
        assert _REGISTRY["test_exec_made"].module == "__main__"
        assert _REGISTRY["test_exec_made"] not in registered_primitives()
    finally:
        _REGISTRY.pop("test_exec_made", None)


def test_elementwise_batch_is_the_rule_fungrad_uses():
    from fungrad.lax.elementwise import sin_p
    assert sin_p.batch.__qualname__ == elementwise_batch(sin_p).__qualname__
    assert sub(3.0, 1.0) == 2.0
