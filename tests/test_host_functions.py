"""NumPy's own printing / I/O / dtype-query functions re-exported by fungrad.numpy: the same
objects as NumPy's, working on concrete values (under grad of concrete inputs too), and a
clear ConcretizationError for abstract values inside jit."""
import io

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError
from fungrad.numpy._host import HOST_FUNCTIONS


@pytest.mark.parametrize("name", HOST_FUNCTIONS)
def test_is_numpys_own(name):
    assert getattr(fnp, name) is getattr(np, name)


def test_save_and_print_a_concrete_value_under_grad():
    buf = io.BytesIO()

    def f(x):
        y = fnp.sin(x)
        fnp.save(buf, y)  # the primal value is concrete under grad
        assert fnp.array2string(y) == np.array2string(np.sin(x))
        return fnp.sum(y)
    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(fg.grad(f)(x), np.cos(x))
    buf.seek(0)
    np.testing.assert_array_equal(fnp.load(buf), np.sin(x))


def test_abstract_value_inside_jit_names_the_fix():
    with pytest.raises(ConcretizationError, match="concrete value"):
        fg.jit(lambda x: fnp.array2string(x))(np.ones(2))
