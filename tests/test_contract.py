"""Contractions on traced values (fungrad/numpy/_contract.py): NumPy's dtypes for small
integers and booleans (the sum stays in the operands' dtype and wraps), the gufuncs' errors."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    else:  # (exact: integers wrap as NumPy's do)
        np.testing.assert_array_equal(got, want)


def agree(f, nf, *args):
    """f eagerly, under jit and under vmap (over a leading axis of 2) gives NumPy's value,
    dtype and shape."""
    want = np.asarray(nf(*args))
    same(f(*args), want)
    same(fg.jit(f)(*args), want)
    same(fg.vmap(f)(*[np.stack([a, a]) for a in args]), np.stack([want, want]))


SMALL = [(np.int8([100, 100, 100]), np.int8([1, 1, 1])),
         (np.array([True, True]), np.uint8([200, 100])),
         (np.array([True, True, False]), np.array([True, True, True])),
         (np.int16([300, 300, 300]), np.int8([100, 100, 100]))]


@pytest.mark.parametrize("a,b", SMALL, ids=["int8", "bool-uint8", "bool", "int16-int8"])
def test_vecdot_keeps_the_operands_dtype(a, b):
    agree(fnp.linalg.vecdot, np.linalg.vecdot, a, b)
    agree(fnp.vecdot, np.vecdot, a, b)
    for name in ("matmul", "dot", "inner", "vdot"):
        agree(getattr(fnp, name), getattr(np, name), a, b)
    agree(lambda x, y: fnp.tensordot(x, y, 1), lambda x, y: np.tensordot(x, y, 1), a, b)


def test_vecdot_axis_and_derivatives():
    r = np.random.default_rng(0)
    a, b = r.normal(size=(3, 2)), r.normal(size=(4, 3, 2)) + 1j
    agree(lambda x, y: fnp.linalg.vecdot(x, y, axis=0),
          lambda x, y: np.linalg.vecdot(x, y, axis=-2), a, b[0])
    np.testing.assert_allclose(fg.jit(lambda x, y: fnp.linalg.vecdot(x, y, axis=-2))(a, b),
                               np.linalg.vecdot(a, b, axis=-2))
    from fungrad.test_util import check_grads
    check_grads(lambda x, y: fnp.linalg.vecdot(x, y, axis=0), (a, a + 1), order=2)
    with pytest.raises(ValueError, match="out of bounds for x2 of shape"):
        fg.jit(lambda x, y: fnp.linalg.vecdot(x, y, axis=1))(a, b[0, :, 0])


@pytest.mark.parametrize("sub,args", [
    ("i->", (np.array([True, True]),)),
    ("ii", (np.array([[True, False], [True, True]]),)),
    ("ij->", (np.array([[True, False], [True, True]]),)),
    ("ij,jk", (np.array([[True, False], [True, True]]),) * 2),
    ("i->", (np.int8([100, 100, 100]),)),
    ("ii", (np.int8([[100, 1], [1, 100]]),)),
    ("i,i", (np.int8([100, 100, 100]), np.int8([1, 1, 1]))),
    ("ij,j->", (np.int8([[100, 100], [100, 100]]), np.array([True, True]))),
    ("ij,jk,kl", (np.uint8([[200, 100], [1, 2]]),) * 3),
])
def test_einsum_sums_in_the_operands_dtype(sub, args):
    agree(lambda *xs: fnp.einsum(sub, *xs), lambda *xs: np.einsum(sub, *xs), *args)
    if len(args) == 3:
        agree(lambda *xs: fnp.einsum(sub, *xs, optimize=True),
              lambda *xs: np.einsum(sub, *xs, optimize=True), *args)


def test_matvec_vecmat_need_a_matrix_operand():
    m, v = np.int8([[100, 100], [100, 100]]), np.int8([1, 1])
    agree(fnp.matvec, np.matvec, m, v)
    agree(fnp.vecmat, np.vecmat, v + 1j, m)
    for f, args, name in [(fnp.matvec, (np.ones(3), np.ones(3)), r"x1 \(the matrix\)"),
                          (fnp.matvec, (np.ones((3, 3)), np.ones(())), "x2"),
                          (fnp.vecmat, (np.ones(3), np.ones(3)), r"x2 \(the matrix\)")]:
        with pytest.raises(ValueError):
            getattr(np, f.__name__)(*args)
        with pytest.raises(ValueError, match=name + r".*got shape \((3,)?\)"):
            fg.jit(f)(*args)
