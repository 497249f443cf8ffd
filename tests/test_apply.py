"""fnp.apply_along_axis / apply_over_axes / vectorize: NumPy's results, on plain and traced
values, excluded arguments, and errors that name the problem."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_apply_along_axis_matches_numpy_with_extra_arguments(axis):
    x = np.arange(12.0).reshape(3, 4) + 1

    def f(v, p, scale=1.0):
        return scale * v ** p / fnp.sum(v)
    want = np.apply_along_axis(f, axis, x, 2, scale=3.0)
    np.testing.assert_allclose(fnp.apply_along_axis(f, axis, x, 2, scale=3.0), want)
    np.testing.assert_allclose(
        fg.jit(lambda x: fnp.apply_along_axis(f, axis, x, 2, scale=3.0))(x), want)


def test_apply_along_axis_rejects_a_bad_axis():
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        fg.jit(lambda x: fnp.apply_along_axis(fnp.sum, 2, x))(np.ones((2, 2)))


def test_apply_over_axes_needs_a_function_that_keeps_or_drops_the_axis():
    with pytest.raises(ValueError, match="must keep them or drop axis 0"):
        fg.jit(lambda x: fnp.apply_over_axes(lambda a, ax: fnp.sum(a), x, [0]))(np.ones((2, 2)))


def test_vectorize_excluded_arguments_and_gradient():
    def f(a, power, *, offset):
        return (a + offset) ** power
    v = fnp.vectorize(f, excluded={1, "offset"})
    x = np.linspace(0.5, 1.5, 6).reshape(2, 3)
    np.testing.assert_allclose(v(x, 3, offset=1.0), (x + 1.0) ** 3)
    g = fg.grad(lambda x: fnp.sum(v(x, 3, offset=1.0)))(x)
    np.testing.assert_allclose(g, 3 * (x + 1.0) ** 2)


def test_vectorize_signature_errors():
    with pytest.raises(ValueError, match="is not of the form"):
        fnp.vectorize(lambda a: a, signature="(n->()")
    dot = fnp.vectorize(lambda a, b: fnp.sum(a * b), signature="(n),(n)->()")
    with pytest.raises(TypeError, match="has 2 input"):
        dot(np.ones(3))
    with pytest.raises(ValueError, match="fewer dimensions than its core"):
        dot(np.ones(()), np.ones(3))


def test_asarray_chkfinite_checks_concrete_values_and_names_checkify_inside_jit():
    from fungrad.errors import ConcretizationError
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(fnp.asarray_chkfinite(x) ** 2))(x),
                               2 * x)
    with pytest.raises(ValueError, match="infs or NaNs"):
        fg.grad(lambda x: fnp.sum(fnp.asarray_chkfinite(x * np.inf)))(x)
    with pytest.raises(ConcretizationError, match="fg.checkify.checkify"):
        fg.jit(fnp.asarray_chkfinite)(x)


def test_ravel_multi_index_raise_mode_names_the_other_modes_inside_jit():
    from fungrad.errors import ConcretizationError
    i, j = np.array([0, 3]), np.array([1, 1])
    with pytest.raises(ValueError, match="invalid entry"):
        fnp.ravel_multi_index((i, j), (3, 4))
    with pytest.raises(ConcretizationError, match="mode='wrap' or mode='clip'"):
        fg.jit(lambda i, j: fnp.ravel_multi_index((i, j), (3, 4)))(i, j)
    np.testing.assert_array_equal(
        fg.jit(lambda i, j: fnp.ravel_multi_index((i, j), (3, 4), mode="wrap"))(i, j), [1, 1])


def test_unravel_index_clamps_inside_jit_like_jax():
    got = fg.jit(lambda k: fnp.unravel_index(k, (3, 4)))(np.array([-1, 12]))
    np.testing.assert_array_equal(np.stack(got), [[0, 2], [0, 3]])
