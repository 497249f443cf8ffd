"""Polynomials and grids/constructors: NumPy parity on traced values over keyword
arguments, and the value-dependent cases (polydiv's trimming, roots) under jit/grad."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError
from fungrad.test_util import check_grads


def traced(f, *args):
    return fg.jvp(f, args, tuple(np.zeros_like(a) for a in args))[0]


def same(got, want):
    got, want = fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


P, Q = np.array([1.0, -2.0, 0.5, 3.0]), np.array([2.0, 1.0])


@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul", "polydiv"])
def test_polynomial_arithmetic(name):
    for a, b in [(P, Q), (Q, P), (np.array([1.0, 3.0, 2.0]), np.array([1.0, 1.0]))]:
        same(traced(getattr(fnp, name), a, b), getattr(np, name)(a, b))


@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_polyder_polyint(m):
    same(traced(lambda p: fnp.polyder(p, m), P), np.polyder(P, m))
    same(traced(lambda p: fnp.polyint(p, m), P), np.polyint(P, m))
    same(traced(lambda p: fnp.polyint(p, m, k=2.0), P), np.polyint(P, m, k=2.0))


def test_polyval_poly_vander():
    x = np.linspace(-1, 1, 5)
    same(traced(fnp.polyval, P, x), np.polyval(P, x))
    same(traced(lambda p: fnp.polyval(p, np.arange(3)), P.astype(np.float32)),
         np.polyval(P.astype(np.float32), np.arange(3)))
    same(traced(fnp.poly, P), np.poly(P))
    # the result dtype is NumPy's, whose sum starts from zeros_like(x): bool stays bool
    for p, x in [([True, False, True], [True, False]), ([1, 2, 3], [True, False]),
                 ([1, 2], np.array([3, 4], np.int8)), (np.array([1, 2], np.uint8), [1.5])]:
        p, x = np.asarray(p), np.asarray(x)
        same(fg.jit(fnp.polyval)(p, x), np.polyval(p, x))
    z = np.array([1 + 1j, 1 - 1j, 2.0])
    same(traced(fnp.poly, z), np.poly(z))  # conjugate pairs: a real result, as in NumPy
    for n in (None, 0, 2, 6):
        for inc in (False, True):
            same(traced(lambda x: fnp.vander(x, n, inc), x), np.vander(x, n, inc))


@pytest.mark.parametrize("deg", [0, 1, 3, 5])
def test_polyfit_matches_numpy(deg):
    x = np.linspace(0, 2, 9)
    y, w = np.sin(x), np.linspace(1, 2, 9)
    y2 = np.stack([y, np.cos(x)], 1)
    same(traced(lambda x, y: fnp.polyfit(x, y, deg), x, y), np.polyfit(x, y, deg))
    same(traced(lambda x, y: fnp.polyfit(x, y, deg, w=w), x, y2), np.polyfit(x, y2, deg, w=w))
    check_grads(lambda x, y: fnp.polyfit(x, y, min(deg, 3)), (x, y), order=2)


def test_polydiv_trimming_and_roots_need_concrete_values():
    with pytest.raises(ConcretizationError, match="trim_leading_zeros=False"):
        fg.jit(fnp.polydiv)(P, Q)
    q, r = fg.jit(lambda u, v: fnp.polydiv(u, v, trim_leading_zeros=False))(P, Q)
    nq, nr = np.polydiv(P, Q)
    np.testing.assert_allclose(q, nq)
    np.testing.assert_allclose(r[-len(nr):], nr)
    assert len(r) == len(P)
    np.testing.assert_allclose(fnp.roots(P), np.roots(P))
    with pytest.raises(ConcretizationError, match="roots"):
        fg.grad(lambda p: fnp.sum(fnp.real(fnp.roots(p))))(P)


@pytest.mark.parametrize("n,m", [(7, 3), (7, 4), (3, 7), (4, 7), (1, 1), (5, 5)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate_match_numpy(n, m, mode):
    rng = np.random.default_rng(n * 10 + m)
    a, v = rng.random(n), rng.random(m)
    same(traced(lambda a, v: fnp.convolve(a, v, mode), a, v), np.convolve(a, v, mode))
    same(traced(lambda a, v: fnp.correlate(a, v, mode), a, v), np.correlate(a, v, mode))
    ac, vc = a + 1j * rng.random(n), v - 2j * rng.random(m)
    same(traced(lambda a, v: fnp.correlate(a, v, mode), ac, vc), np.correlate(ac, vc, mode))
    same(fg.jit(lambda a: fnp.convolve(a, np.array([1, 2]), mode))(np.arange(n)),
         np.convolve(np.arange(n), [1, 2], mode))


def test_grids_and_index_tricks():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    for sparse in (False, True):
        for ind in ("xy", "ij"):
            same(traced(lambda x, y: fnp.meshgrid(x, y, x, sparse=sparse, indexing=ind), x, y),
                 np.meshgrid(x, y, x, sparse=sparse, indexing=ind))
    same(traced(lambda x: fnp.r_[x, 0, y, 1:3], x), np.r_[x, 0, y, 1:3])
    same(traced(lambda x: fnp.r_["0,2,0", x, x], x), np.r_["0,2,0", x, x])
    same(traced(lambda x: fnp.r_["-1,2", x, x], x), np.r_["-1,2", x, x])
    same(traced(lambda x: fnp.c_[x, x, np.ones(3)], x), np.c_[x, x, np.ones(3)])
    same(traced(lambda x: fnp.c_[x.reshape(3, 1), x], x), np.c_[x.reshape(3, 1), x])
    a = np.float64(0.5)
    same(traced(lambda a: fnp.mgrid[a:2:3j, 0:1:2j], a), np.mgrid[a:2:3j, 0:1:2j])
    same(traced(lambda a: fnp.ogrid[a:2:3j, 0:1:2j], a), np.ogrid[a:2:3j, 0:1:2j])
    with pytest.raises(TypeError, match="complex step"):
        traced(lambda a: fnp.mgrid[a:2:0.5], a)
    idx = (np.array([0, 2]), np.array([True, False, True]))
    same(traced(lambda x: fnp.ix_(*idx), x), np.ix_(*idx))
    same(traced(lambda x: fnp.fromfunction(lambda i, j: x[i] * j, (3, 4), dtype=int), x),
         np.fromfunction(lambda i, j: x[i] * j, (3, 4), dtype=int))


def test_geomspace_and_trapezoid():
    x = np.array([1.0, 2.0, 3.0])
    same(traced(lambda x: fnp.geomspace(x, 10 * x, 4), x), np.geomspace(x, 10 * x, 4))
    same(traced(lambda x: fnp.geomspace(-x, -10 * x, 4, endpoint=False, axis=1), x),
         np.geomspace(-x, -10 * x, 4, endpoint=False, axis=1))
    Y = np.random.default_rng(0).random((3, 4))
    same(traced(fnp.trapezoid, Y), np.trapezoid(Y))
    same(traced(lambda Y: fnp.trapezoid(Y, x, axis=0), Y), np.trapezoid(Y, x, axis=0))
    X = Y * 2 + np.arange(4)
    same(traced(lambda Y: fnp.trapezoid(Y, X), Y), np.trapezoid(Y, X))
    same(traced(lambda Y: fnp.trapezoid(Y, dx=0.3, axis=0), Y), np.trapezoid(Y, dx=0.3, axis=0))


@pytest.mark.parametrize("opt", [False, True, "greedy", "optimal", "path"])
def test_einsum_optimize(opt):
    r = np.random.default_rng(0)
    ops = (r.random((2, 3)), r.random((3, 4)), r.random((4, 5)), r.random(5))
    sub = "ij,jk,kl,l->i"
    if opt == "path":
        opt = np.einsum_path(sub, *ops, optimize="optimal")[0]
    f = lambda *xs: fnp.einsum(sub, *xs, optimize=opt)  # noqa: E731
    np.testing.assert_allclose(fg.jit(f)(*ops), np.einsum(sub, *ops))
    check_grads(f, ops, order=1)
    assert fnp.einsum_path(sub, *ops)[0] == np.einsum_path(sub, *ops)[0]


def _agree(f, nf, *args):
    """f eagerly, under jit and under vmap (a leading axis of 2): NumPy's dtype, shape, values."""
    want = np.asarray(nf(*args))
    same(f(*args), want)
    same(fg.jit(f)(*args), want)
    got = np.asarray(fg.vmap(f)(*[np.stack([a, a]) for a in args]))
    assert got.shape == (2,) + want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, np.stack([want, want]), rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore:Polyfit may be poorly conditioned")
def test_polyfit_rank_deficient_fits_match_numpy():
    # boolean x: x**2 == x, a rank-deficient system NumPy's lstsq solves (minimum norm)
    b = np.array([1, 0, 1, 1, 0, 1, 0, 0], bool)
    want = np.polyfit(b, b, 2)
    _agree(lambda a, c: fnp.polyfit(a, c, 2), lambda a, c: np.polyfit(a, c, 2), b, b)
    x, y = b + 0.0, np.linspace(-1, 1, 8)
    _agree(lambda c: fnp.polyfit(x, c, 3), lambda c: np.polyfit(x, c, 3), y)
    full = fg.jit(lambda c: fnp.polyfit(x, c, 3, full=True))(y)
    np.testing.assert_allclose(full[0], np.polyfit(x, y, 3, full=True)[0], atol=1e-12)
    assert int(full[2]) == np.polyfit(x, y, 3, full=True)[2] == 2
    np.testing.assert_allclose(want, [0.5, 0.5, 0.0], atol=1e-12)
    # the rank stays 2 when y moves: derivatives in y
    check_grads(lambda c: fnp.polyfit(x, c, 3), (y,), order=2)


def test_polyfit_float16_y_raises_like_numpy():
    x = np.arange(5.0)
    for xx, yy in [(x, x.astype(np.float16)), (x.astype(np.float16), x.astype(np.float16))]:
        with pytest.raises(TypeError, match="float16"):
            np.polyfit(xx, yy, 2)
        with pytest.raises(TypeError, match="float16 is unsupported"):
            fg.jit(lambda a, c: fnp.polyfit(a, c, 2))(xx, yy)
    # float16 x is NumPy's float64 Vandermonde matrix (with float16's rcond): no error
    _agree(lambda a, c: fnp.polyfit(a, c, 2), lambda a, c: np.polyfit(a, c, 2),
           x.astype(np.float16), np.sin(x))


def test_polymul_trims_leading_zeros_where_the_values_are_known():
    a, b = np.array([1.0, 2.0]), np.array([0.0, 1.0, 3.0])
    want = np.polymul(a, b)  # NumPy makes them poly1d's, dropping b's leading zero
    assert want.shape == (3,)
    # concrete operands (closed over) and traced ones under jvp/grad: NumPy's result
    same(fg.jit(lambda x: fnp.polymul(x, b))(a), want)
    same(traced(fnp.polymul, a, b), want)
    same(fg.jit(lambda x: fnp.polymul(np.zeros(0), x))(a), np.polymul(np.zeros(0), a))
    same(fg.jit(lambda x: fnp.polymul(np.zeros(3), x))(a), np.polymul(np.zeros(3), a))
    x8, tb = np.int8([0, 1]), np.array([True, False])
    same(fg.jit(lambda t: fnp.polymul(x8, t))(tb), np.polymul(x8, tb))
    # the trimmed terms keep their derivative in the terms kept: d/db of sum(result)
    g = fg.grad(lambda y: fnp.sum(fnp.polymul(a, y)))(b)
    np.testing.assert_allclose(g, [a[1], 3.0, 3.0])
    # under jit/vmap the values are unknown: a traced operand keeps its length (the same
    # polynomial, with a leading zero), rather than failing for the common case of none
    got = fg.jit(fnp.polymul)(a, b)
    np.testing.assert_allclose(got, np.concatenate([[0.0], want]))
    _agree(fnp.polymul, np.polymul, a, b[1:])
    check_grads(fnp.polymul, (a, b[1:]), order=2)


def test_traced_vander_refuses_a_negative_n_as_numpy():
    import fungrad as fg
    import fungrad.numpy as fnp
    x = np.arange(4.0)
    with pytest.raises(ValueError, match="negative"):
        np.vander(x, -1)
    with pytest.raises(ValueError, match="negative"):
        fg.jit(lambda x: fnp.vander(x, -1))(x)
