"""fg.lax.associative_scan: prefix combinations in O(log n) whole-array calls, equal to a
sequential loop for every length, axis and direction, and differentiable / batchable /
jittable through the primitives it is built from."""
import doctest

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import associative as A
from fungrad.test_util import check_grads

scan = fg.lax.associative_scan


@pytest.mark.parametrize("n", range(0, 12))
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_sum_product_max_equal_numpy(n, reverse):
    x = np.random.default_rng(n).uniform(0.5, 1.5, (n, 3))
    flip = (lambda a: a[::-1]) if reverse else (lambda a: a)
    for fn, ref in ((fnp.add, np.cumsum), (fnp.multiply, np.cumprod),
                    (fnp.maximum, np.maximum.accumulate)):
        np.testing.assert_allclose(scan(fn, x, reverse=reverse), flip(ref(flip(x), axis=0)),
                                   rtol=1e-13)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_any_axis(axis):
    x = np.random.default_rng(0).normal(size=(4, 7, 5))
    np.testing.assert_allclose(scan(fnp.add, x, axis=axis), np.cumsum(x, axis=axis),
                               rtol=1e-12, atol=1e-12)


def linear_recurrence(a, b, reverse=False):
    """h_t = a_t h_{t-1} + b_t from h_{-1} = 0, as a loop (the reference)."""
    h, out = np.zeros_like(b[0]), []
    order = range(len(a))[::-1] if reverse else range(len(a))
    for t in order:
        h = a[t] * h + b[t]
        out.append(h)
    return np.array(out[::-1] if reverse else out)


def compose(first, second):
    """Two affine maps h -> a h + b applied in turn: associative, not commutative."""
    (a1, b1), (a2, b2) = first, second
    return a1 * a2, a2 * b1 + b2


@pytest.mark.parametrize("n", [1, 2, 7, 16, 33])
def test_pytree_elems_and_a_non_commutative_function(n):
    rng = np.random.default_rng(n)
    a, b = rng.uniform(-1, 1, (n, 2)), rng.normal(size=(n, 2))
    np.testing.assert_allclose(scan(compose, (a, b))[1], linear_recurrence(a, b), rtol=1e-12)


def test_matrix_products_in_order():
    mats = np.random.default_rng(1).normal(size=(9, 3, 3))
    got = scan(lambda x, y: fnp.matmul(x, y), mats)
    want = [mats[0]]
    for m in mats[1:]:
        want.append(want[-1] @ m)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-10, atol=1e-10)


def test_gradients_vmap_and_jit():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(-1, 1, 11), rng.normal(size=11)
    f = lambda a, b: fnp.sum(scan(compose, (a, b))[1] ** 2)  # noqa: E731
    check_grads(f, (a, b), order=2, modes=("fwd", "rev"))
    batch_a, batch_b = rng.uniform(-1, 1, (4, 11)), rng.normal(size=(4, 11))
    batched = fg.vmap(lambda a, b: scan(compose, (a, b))[1])(batch_a, batch_b)
    np.testing.assert_allclose(batched, [linear_recurrence(x, y) for x, y in zip(batch_a, batch_b)],
                               rtol=1e-12)
    jitted = fg.jit(lambda a, b: scan(compose, (a, b), reverse=True)[1])
    np.testing.assert_allclose(jitted(a, b), linear_recurrence(a, b, reverse=True), rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(a, b), fg.grad(f)(a, b), rtol=1e-12)


def test_calls_fn_a_logarithmic_number_of_times():
    calls = []
    scan(lambda x, y: calls.append(1) or x + y, np.ones(1024))
    assert len(calls) <= 2 * 10


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="same length along axis 0"):
        scan(compose, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="out of range"):
        scan(fnp.add, np.ones(3), axis=1)
    with pytest.raises(TypeError, match="structure of elems"):
        scan(lambda x, y: x[0], (np.ones(3), np.ones(3)))
    with pytest.raises(ValueError, match="no arrays"):
        scan(fnp.add, ())


def test_docstring_examples():
    result = doctest.testmod(A, extraglobs={"fg": fg, "np": np, "fnp": fnp})
    assert result.attempted > 0 and result.failed == 0
