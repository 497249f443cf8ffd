"""Issue 8: concrete conversions, ndarray methods and operators on traced values, and error
messages that name the fix (and only APIs that exist)."""
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError, NonScalarOutputError

X = np.array([0.5, -1.5, 2.0])


def test_var_method_under_jit():
    # StagingTracer's graph variable used to be called `var`, shadowing x.var()
    np.testing.assert_allclose(fg.jit(lambda a: a.var())(X), X.var())
    np.testing.assert_allclose(fg.jit(lambda a: a.var(ddof=1, keepdims=True))(X),
                               X.var(ddof=1, keepdims=True))
    np.testing.assert_allclose(fg.make_ir(lambda a: a.std())(X)(X), X.std())


# ------------------------------------------------------------------ 1.2 concrete conversions
CUTTING = {
    "float": lambda x: x * float(x),
    "int": lambda x: x * int(x),
    "complex": lambda x: x * complex(x).real,
    "math.sin": math.sin,
    "np.float64": lambda x: x * np.float64(x),
    "item": lambda x: x * x.item(),
    "tolist": lambda x: x * x.tolist(),
    "np.asarray": lambda x: np.asarray(x) * x,
}


@pytest.mark.parametrize("name", sorted(CUTTING))
def test_conversion_of_a_differentiated_value_raises_eagerly(name):
    # used to return the wrong derivative: fg.grad(lambda x: x * float(x))(3.0) gave 3.0
    with pytest.raises(ConcretizationError, match=r"differentiated.*fg.stop_gradient"):
        fg.grad(CUTTING[name])(3.0)
    with pytest.raises(ConcretizationError):
        fg.jvp(CUTTING[name], (3.0,), (1.0,))


@pytest.mark.parametrize("name", sorted(CUTTING))
def test_conversion_raises_under_jit_alike(name):
    with pytest.raises(ConcretizationError, match=r"fnp.where.*static_argnums"):
        fg.jit(CUTTING[name])(3.0)
    with pytest.raises(ConcretizationError, match=r"batched value.*fnp.where"):
        fg.vmap(CUTTING[name])(np.array([3.0, 4.0]))


def test_issue_examples():
    with pytest.raises(ConcretizationError, match=r"float\(x\)"):
        fg.grad(lambda x: x * float(x))(3.0)
    with pytest.raises(ConcretizationError, match=r"math"):
        fg.grad(math.sin)(1.0)
    # the fixes the message names work
    assert fg.grad(lambda x: x * float(fg.stop_gradient(x)))(3.0) == 3.0
    assert fg.grad(fnp.sin)(1.0) == pytest.approx(math.cos(1.0))


def test_bool_of_a_concrete_value_works_under_grad():
    def f(x):
        if x > 0:
            return x * x
        return -x
    assert fg.grad(f)(3.0) == 6.0
    assert fg.grad(f)(-3.0) == -1.0
    assert fg.grad(fg.grad(f))(3.0) == 2.0
    assert fg.jvp(f, (2.0,), (1.0,))[1] == 4.0
    # a non-differentiated integer input stays a plain value: int() of it is fine
    assert fg.grad(lambda x, n: x * int(n), argnums=0)(2.0, 3) == 3.0
    with pytest.raises(ConcretizationError, match=r"bool\(x\).*jit"):
        fg.jit(f)(1.0)
    with pytest.raises(ConcretizationError, match=r"bool\(x\).*batched"):
        fg.vmap(f)(np.ones(2))


# ------------------------------------------------------------------ messages
@pytest.mark.parametrize("out, pattern", [
    (lambda x: (x, x), r"returned a tuple of 2 value\(s\) \(f64\[\], f64\[\].*has_aux=True"),
    (lambda x: [x, x * 2, x], r"returned a list of 3 value\(s\)"),
    (lambda x: {"a": x}, r"returned a dict of 1 value"),
    (lambda x: x * np.ones(3), r"returned f64\[3\]"),
    (lambda x: (x > 0), r"returned bool\[\]"),
])
def test_grad_of_a_non_scalar_output(out, pattern):
    # a tuple output used to say 'cannot be converted to a NumPy array'
    with pytest.raises(NonScalarOutputError, match=pattern) as e:
        fg.grad(out)(1.0)
    assert ".sum()" in str(e.value) and "fg.vjp or fg.jacrev" in str(e.value)


def test_unsupported_numpy_function_is_named_with_its_module():
    with pytest.raises(TypeError, match=r"np\.linalg\.norm is not supported") as e:
        fg.grad(lambda a: np.linalg.norm(a))(np.ones(3))
    assert "numpy.norm" not in str(e.value)
    with pytest.raises(TypeError, match=r"np\.add\.reduce is not supported"):
        fg.grad(lambda a: np.add.reduce(a))(np.ones(3))
