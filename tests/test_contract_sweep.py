"""The contractions (einsum, einsum_path, dot, vdot, inner, outer, matmul, tensordot, kron,
vecdot, matvec/vecmat, fnp.linalg's vecdot/matmul/tensordot/outer/multi_dot/cross, cross,
trace, diagonal) swept on traced values (`fg.jit`, `fg.vmap`, `fg.grad`) against NumPy 2.x
for values, result dtypes (bool, ints, floats, complex, Python scalars), empty dimensions
and errors, and against JAX and central finite differences for derivatives (first and
second order, complex). The sweep found: tensordot wrapping out-of-range axes (a value
where NumPy raises), Python scalars promoting weakly in the non-ufunc contractions (NumPy's
dot/inner/outer/tensordot/einsum convert them with asarray), einsum's optimized order
failing on an operand with a repeated index, einsum's missing dtype=/casting=/order=/out=,
its '...' rule and explicit paths, float16 vecdot rounding, linalg.cross's and
multi_dot's shape rules. References are NumPy at test time; no JAX."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


def same(got, want, tol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


def raises_as_numpy(f, nf, args, match):
    """NumPy raises; fungrad under jit raises an exception NumPy's type catches, whose
    message matches `match`."""
    with pytest.raises(Exception) as np_err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nf(*args)
    with pytest.raises(np_err.type, match=match):
        fg.jit(f)(*args)


RNG = np.random.default_rng(0)
A23, B3, B32 = RNG.normal(size=(2, 3)), RNG.normal(size=3), RNG.normal(size=(3, 2))


# --------------------------------------------------------------------------- tensordot axes
@pytest.mark.parametrize("axes,sa,sb,match", [
    ((-1, 1), (2, 3), (3,), r"axis 1 of axes is out of bounds for y of shape \(3,\)"),
    (([0], [1]), (2, 2), (2,), r"axis 1 .* for y of shape \(2,\)"),
    (([3], [0]), (2, 3, 4), (4, 3, 2), r"axis 3 .* for x of shape \(2, 3, 4\)"),
    (([0, 1], [1, 0]), (), (), r"axis 0 .* for x of shape \(\)"),
    ((-1, 0), (), (3,), r"for x of shape \(\)"),
    (1, (), (), r"axes=1 exceeds the dimensions of shapes \(\) and \(\)"),
    (3, (2, 3), (3, 2), r"axes=3 exceeds"),
])
def test_tensordot_out_of_range_axes_raise_as_numpy(axes, sa, sb, match):
    # (before: axes wrapped modulo the rank, so (-1, 1) on (2, 3) and (3,) returned a value;
    # a 0-d operand gave ZeroDivisionError; too many axes a ValueError NumPy does not raise)
    a, b = np.ones(sa), np.ones(sb)
    raises_as_numpy(lambda x, y: fnp.tensordot(x, y, axes),
                    lambda x, y: np.tensordot(x, y, axes), (a, b), match)
    raises_as_numpy(lambda x, y: fnp.linalg.tensordot(x, y, axes=axes),
                    lambda x, y: np.linalg.tensordot(x, y, axes=axes), (a, b), match)


def test_tensordot_negative_and_pair_axes():
    a, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(4, 3, 2))
    for axes in [((-1, -2), (0, 1)), ([2, 1], [0, 1]), (np.array([2]), np.array([0])), 0, -1]:
        same(fg.jit(lambda x, y: fnp.tensordot(x, y, axes))(a, b), np.tensordot(a, b, axes))


# --------------------------------------------------------------------------- Python scalars
F32, C64, I8 = np.float32([1.5, 2.0, 3.0]), np.complex64([1 + 1j, 2, 3j]), np.int8([1, 2, 3])

STRONG = [
    ("dot", lambda s, x: fnp.dot(s, x), lambda s, x: np.dot(s, x)),
    ("dot_r", lambda s, x: fnp.dot(x, s), lambda s, x: np.dot(x, s)),
    ("inner", lambda s, x: fnp.inner(x, s), lambda s, x: np.inner(x, s)),
    ("outer", lambda s, x: fnp.outer(s, x), lambda s, x: np.outer(s, x)),
    ("tensordot", lambda s, x: fnp.tensordot(s, x, 0), lambda s, x: np.tensordot(s, x, 0)),
    ("einsum", lambda s, x: fnp.einsum(",i", s, x), lambda s, x: np.einsum(",i", s, x)),
    ("einsum_r", lambda s, x: fnp.einsum("i,->i", x, s), lambda s, x: np.einsum("i,->i", x, s)),
]


@pytest.mark.parametrize("name,f,nf", STRONG, ids=[c[0] for c in STRONG])
@pytest.mark.parametrize("s", [3, 2.5, 1 - 2j, True], ids=["int", "float", "complex", "bool"])
@pytest.mark.parametrize("x", [F32, C64, I8], ids=["f32", "c64", "i8"])
def test_python_scalars_promote_as_numpy_arrays(name, f, nf, s, x):
    # NumPy's dot/inner/outer/tensordot/einsum (not ufuncs) take a Python scalar as an
    # int64/float64/complex128 array: np.dot(2.5, float32) is float64 (before: float32)
    want = nf(s, x)
    same(fg.jit(lambda x: f(s, x))(x), want, 1e-6)     # the scalar closed over
    same(fg.jit(f)(s, x), want, 1e-6)                  # the scalar a (weak) traced argument
    same(fg.vmap(lambda x: f(s, x))(np.stack([x, x])), np.stack([want, want]), 1e-6)


def test_matmul_and_vecdot_keep_weak_scalars():
    # (the ufuncs: NEP 50, unchanged)
    same(fg.jit(lambda x: fnp.vecdot(x, x) * 2.5)(F32), np.vecdot(F32, F32) * 2.5, 1e-6)
    same(fg.jit(lambda x: fnp.multiply(fnp.matmul(x, x), 2.5))(F32),
         np.multiply(np.matmul(F32, F32), 2.5), 1e-6)


# --------------------------------------------------------------------------- einsum
@pytest.mark.parametrize("sub,shapes", [
    ("i,j,jii", [(2,), (3,), (3, 2, 2)]),
    ("kjj,k,jii->ik", [(1, 2, 2), (1,), (2, 1, 1)]),
    ("jkk,kij,kj->i", [(2, 3, 3), (3, 3, 2), (3, 2)]),
    ("kik,kjk,ikj->ji", [(3, 2, 3), (3, 2, 3), (2, 3, 2)]),
])
@pytest.mark.parametrize("optimize", [True, "greedy", "optimal"])
def test_einsum_optimized_order_with_repeated_indices(sub, shapes, optimize):
    # (before: a contraction step took 'jii' as output letters 'ii' and failed in transpose)
    args = [RNG.normal(size=s) for s in shapes]
    want = np.einsum(sub, *args, optimize=optimize)

    def f(*xs):
        return fnp.einsum(sub, *xs, optimize=optimize)
    same(fg.jit(f)(*args), want)
    # its gradient is the plain (left-to-right) contraction's
    g = fg.grad(lambda *xs: fnp.sum(f(*xs)), argnums=tuple(range(len(args))))(*args)
    g0 = fg.grad(lambda *xs: fnp.sum(fnp.einsum(sub, *xs)),
                 argnums=tuple(range(len(args))))(*args)
    for p, q in zip(g, g0):
        same(p, q)


def test_einsum_explicit_output_without_ellipsis():
    x = RNG.normal(size=(2, 3))
    for sub in ["...->", "i...->i", "...i->i"]:
        # NumPy's c_einsum (optimize=False) raises; its optimizing path sums the axes
        raises_as_numpy(lambda x: fnp.einsum(sub, x), lambda x: np.einsum(sub, x), (x,),
                        r"no '\.\.\.' ellipsis provided.*write '->\.\.\.'")
        same(fg.jit(lambda x: fnp.einsum(sub, x, optimize=True))(x),
             np.einsum(sub, x, optimize=True))
    same(fg.jit(lambda x: fnp.einsum("ij...->", x))(x), np.einsum("ij...->", x))


@pytest.mark.parametrize("kw", [dict(dtype=np.float64), dict(dtype="complex128"),
                                dict(dtype=np.int32, casting="unsafe"),
                                dict(dtype=np.float16, casting="same_kind"),
                                dict(dtype=np.float32, casting="no"), dict(order="C"),
                                dict(casting="unsafe")])
def test_einsum_dtype_casting_order(kw):
    a, b = np.float32(A23), np.float32(B32)
    want = np.einsum("ij,jk", a, b, **kw)
    same(fnp.einsum("ij,jk", a, b, **kw), want)     # (before: TypeError, unexpected keyword)
    same(fg.jit(lambda a, b: fnp.einsum("ij,jk", a, b, **kw))(a, b), want, 1e-3)


def test_einsum_dtype_errors_and_out():
    a, b = np.float32(A23), np.float32(B32)
    for kw, err, match in [(dict(dtype=np.int32), TypeError,
                            r"operand 0 of dtype float32 cannot be cast to dtype=int32 "
                            r"according to the rule 'safe'; pass casting='unsafe'"),
                           (dict(dtype=np.complex64, casting="no"), TypeError, "rule 'no'"),
                           (dict(casting="bogus"), ValueError, "casting must be one of"),
                           (dict(order="X"), ValueError, "order must be one of")]:
        with pytest.raises(err):
            np.einsum("ij,jk", a, b, **kw)
        with pytest.raises(err, match=match):
            fg.jit(lambda a, b: fnp.einsum("ij,jk", a, b, **kw))(a, b)
    # casting applies to the promoted dtype too: float32 with float64 under 'no'
    raises_as_numpy(lambda a, b: fnp.einsum("ij,jk", a, b, casting="no"),
                    lambda a, b: np.einsum("ij,jk", a, b, casting="no"), (a, np.float64(b)),
                    "operand 0 of dtype float32 cannot be cast to dtype=float64")
    # out= works on concrete operands (NumPy's), and is refused, named, on traced ones
    out = np.zeros((2, 2), np.float32)
    assert fnp.einsum("ij,jk", a, b, out=out) is out
    same(out, np.einsum("ij,jk", a, b))
    with pytest.raises(TypeError, match=r"out= is not supported on traced values.*"
                                        r"y = fnp\.einsum"):
        fg.jit(lambda a: fnp.einsum("ij,jk", a, b, out=out))(a)
    same(fg.grad(lambda a: fnp.sum(fnp.einsum("ij,jk", a, b, dtype=np.float64)))(a),
         np.broadcast_to(np.float32(b).sum(1), (2, 3)).astype(np.float32), 1e-6)


def test_einsum_explicit_path():
    x = RNG.normal(size=3)
    # an explicit path is followed (and checked) for any number of operands, as NumPy's
    same(fg.jit(lambda a, b: fnp.einsum("i,i", a, b, optimize=["einsum_path", (0, 1)]))(x, x),
         np.einsum("i,i", x, x, optimize=["einsum_path", (0, 1)]))
    for args, path, match in [((x, x), ["einsum_path", (0, 2), (0, 1)], "names an operand"),
                              ((x, x, x), ["einsum_path", (0, 3)], "names an operand"),
                              ((x, x, x), ["einsum_path", (0, 1)], "1 more operands")]:
        sub = ",".join("i" * len(args))
        raises_as_numpy(lambda *xs: fnp.einsum(sub, *xs, optimize=path),
                        lambda *xs: np.einsum(sub, *xs, optimize=path), args, match)
    a, b, c = np.ones((2, 10)), np.ones((10, 10)), np.ones((10, 2))
    path = fnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")[0]
    same(fg.jit(lambda a, b, c: fnp.einsum("ij,jk,kl->il", a, b, c, optimize=path))(a, b, c),
         np.einsum("ij,jk,kl->il", a, b, c))


@pytest.mark.parametrize("sub,shapes", [
    ("ii->i", [(3, 3)]), ("iij->j", [(2, 2, 3)]), ("...ii->...i", [(4, 3, 3)]),
    ("...i,...i->...", [(2, 3), (1, 3)]), ("i...,i...->...", [(3, 1), (3, 4)]),
    ("ij,jk->ik", [(2, 0), (0, 4)]), ("ii->", [(0, 0)]), ("ij,j", [(2, 1), (3,)]),
    ("ab,cd,ef->", [(1, 2), (2, 1), (1, 1)]),
])
@pytest.mark.parametrize("dt", ["int8", "bool", "float32", "complex128"])
def test_einsum_values_and_vmap(sub, shapes, dt):
    args = [(RNG.normal(size=s) * 3).astype(dt) if dt != "bool" else RNG.random(s) < .5
            for s in shapes]
    want = np.einsum(sub, *args)
    tol = 1e-5 if dt == "float32" else 1e-12

    def f(*xs):
        return fnp.einsum(sub, *xs)
    same(fg.jit(f)(*args), want, tol)
    stacked = [np.stack([a, a], axis=-1) for a in args]
    same(fg.vmap(f, in_axes=tuple(a.ndim for a in args))(*stacked), np.stack([want] * 2), tol)


# --------------------------------------------------------------------------- vecdot float16
def test_vecdot_float16_rounds_once_as_numpy():
    # NumPy's float16 vecdot multiplies and sums in float32 and rounds once (before: each
    # product rounded to float16, one ulp off)
    a = np.float16([[8.15625, -10.21875, 1.669921875],
                    [-2.26953125, -1.8095703125, -0.85986328125]])
    b = np.float16([-8.078125, -0.93017578125, -3.4609375])   # (23.0, where before 22.98)
    for f, nf in [(fnp.vecdot, np.vecdot), (fnp.linalg.vecdot, np.linalg.vecdot)]:
        same(fg.jit(f)(a, b), nf(a, b), 0)
        same(fg.jit(f)(a, np.uint8([3, 1, 2])), nf(a, np.uint8([3, 1, 2])), 0)


# --------------------------------------------------------------------------- linalg wrappers
def test_linalg_cross_axis_out_of_bounds():
    # (NumPy raises IndexError; before: a ValueError about 3-vectors, or a bare IndexError)
    raises_as_numpy(fnp.linalg.cross, np.linalg.cross, (np.ones(0), np.ones(())),
                    r"axis -1 is out of bounds for x2 of shape \(\)")
    raises_as_numpy(lambda a, b: fnp.linalg.cross(a, b, axis=1),
                    lambda a, b: np.linalg.cross(a, b, axis=1), (np.ones(3), np.ones(3)),
                    r"axis 1 is out of bounds for x1 of shape \(3,\)")


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((2, 3), ()), ((2, 2, 3), (4, 3, 2)),
                                   ((2, 3, 4), (4, 5)), ((3,), (3,))])
def test_multi_dot_of_two_arrays_is_dot(sa, sb):
    # NumPy's multi_dot of two arrays is np.dot (before: matmul, which refuses 0-d and
    # broadcasts batch dims)
    a, b = RNG.normal(size=sa), RNG.normal(size=sb)
    same(fg.jit(lambda a, b: fnp.linalg.multi_dot([a, b]))(a, b), np.linalg.multi_dot([a, b]))


@pytest.mark.parametrize("shapes", [[(2, 3, 4), (4, 5), (5,)], [(2, 3), (3, 4), ()]])
def test_multi_dot_chain_needs_matrices(shapes):
    args = [np.ones(s) for s in shapes]
    raises_as_numpy(lambda *xs: fnp.linalg.multi_dot(list(xs)),
                    lambda *xs: np.linalg.multi_dot(list(xs)), args,
                    r"-dimensional array given \(arrays\[\d\] of shape .*must be two-dimensional")


def test_multi_dot_chain_values_and_grad():
    a, b, c = RNG.normal(size=3), RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    same(fg.jit(lambda *xs: fnp.linalg.multi_dot(list(xs)))(a, b, c),
         np.linalg.multi_dot([a, b, c]))
    from fungrad.test_util import check_grads
    check_grads(lambda a, b: fnp.linalg.multi_dot([a, b, c]), (a, b), order=2)


def test_traced_vecdot_of_a_0d_operand_is_a_value_error():
    # it was a bare IndexError (tuple index out of range); NumPy raises ValueError
    with pytest.raises(ValueError, match=r"vecdot: x1 needs at least 1 dimension"):
        fg.jit(lambda x: fnp.vecdot(x, x))(np.float64(2.0))
