"""Regressions from a differential sweep of complex derivatives against JAX 0.10.2 (x64).

Every elementwise function, reduction, contraction, fnp.linalg and fnp.fft function and
`.at[]` update on complex operands was compared with JAX: values and dtypes, grad of real
wrappers (Re(sum(f(z) c)), sum |f(z)|^2), holomorphic jvp / vjp / jacfwd / jacrev, second
order, jit and vmap, complex64. Where the two disagreed, central finite differences decided.
The tests below pin what fungrad got wrong; expected values are closed forms or finite
differences (no JAX import).

Where JAX is the one that is wrong or follows another convention (fungrad keeps its answer):
- arccosh' on complex z with Re z < 0 (and on the real axis below 1): JAX's sign is flipped;
  fungrad's 1 / (sqrt(z - 1) sqrt(z + 1)) matches finite differences;
- sign(z) for complex z: JAX's derivative is 0, fungrad's (the turn along the unit circle)
  matches finite differences;
- 0 ** z (Re z > 0), power(0, z) and float_power(z, 0) at z = 0: JAX gives NaN values or
  slopes, fungrad NumPy's values and finite slopes;
- eigh / cholesky of a non-Hermitian input: fungrad differentiates the triangle NumPy reads,
  JAX the Hermitian part; float_power / cov / corrcoef / polyder / vander of complex64 give
  complex128 as NumPy does (JAX keeps complex64).
"""
import math

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp

RNG = np.random.default_rng(20261127)


def _crandn(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _fd_grad(f, z, eps=1e-6):
    """df/dx - i df/dy of a real scalar f of complex z by central differences (fungrad's
    and JAX's gradient convention)."""
    g = np.zeros(z.shape, complex)
    for i in np.ndindex(z.shape):
        for d in (1.0, 1j):
            e = np.zeros(z.shape, complex)
            e[i] = eps * d
            slope = (f(z + e) - f(z - e)) / (2 * eps)
            g[i] += slope if d == 1.0 else -1j * slope
    return g


# ----------------------------------------------------------------------------- inverse functions
INVERSE = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")
# points on each branch cut, both signs of the zero part: the cut runs along the real axis
# (arcsin, arccos, arccosh, arctanh) or the imaginary axis (arctan, arcsinh)
CUTS = {"arcsin": [(2, 0.0), (2, -0.0), (-2, 0.0), (-2, -0.0), (-3, -0.0)],
        "arccos": [(2, 0.0), (2, -0.0), (-2, -0.0), (-3, 0.0)],
        "arccosh": [(-2, 0.0), (-2, -0.0), (-3, -0.0), (0.5, -0.0), (-0.5, 0.0)],
        "arctanh": [(2, 0.0), (-2, -0.0)],
        "arcsinh": [(0.0, 2), (-0.0, 2), (0.0, -2), (-0.0, -2)],
        "arctan": [(0.0, 2), (-0.0, -2)]}


def _fd_along(f, re, im, along_imag, eps=1e-7):
    """f's slope at re + i im along the cut, the zero part kept with its sign."""
    if along_imag:
        hi, lo = complex(re, im + eps), complex(re, im - eps)
    else:
        hi, lo = complex(re + eps, im), complex(re - eps, im)
    return (f(np.array([hi])) - f(np.array([lo])))[0] / (2 * eps) / (1j if along_imag else 1)


def test_inverse_function_slopes_on_their_branch_cuts_take_numpys_side():
    # NumPy's value on a cut is the limit from the side the zero's sign names (arcsin(2 + 0j)
    # = pi/2 + 1.317j, arcsin(2 - 0j) its conjugate); the slope must come from that side too.
    # 1 / sqrt(1 - z*z) lost the sign (1.0 - w adds +0.0): arcsin'(2 + 0j) was -0.577j, not
    # +0.577j; the same for arccos, arcsinh on the imaginary axis, arccosh below -1
    for name, points in CUTS.items():
        f = getattr(fnp, name)
        for re, im in points:
            along_imag = re == 0
            z = np.array([complex(re, im)])
            t = np.array([1j if along_imag else 1 + 0j])
            want = _fd_along(getattr(np, name), re, im, along_imag)
            _, got = fg.jvp(f, (z,), (t,))
            np.testing.assert_allclose(got[0] / t[0], want, rtol=1e-6, err_msg=f"{name}{z}")
            g = fg.grad(f, holomorphic=True)(z[0])
            np.testing.assert_allclose(g, want, rtol=1e-6, err_msg=f"{name}{z}")


def test_inverse_function_slopes_of_large_complex_are_finite():
    # z*z of |z| > 1.3e154 (1.8e19 in complex64) has a NaN real part (inf - inf), which
    # made these slopes NaN where they are ~1/|z|
    z64 = np.array([3e19 + 3e19j, -5e19 + 1e19j], np.complex64)
    z = z64.astype(np.complex128)
    want = {"arcsin": 1 / np.sqrt(1 - z * z), "arccos": -1 / np.sqrt(1 - z * z),
            "arctan": 1 / (1 + z * z), "arcsinh": 1 / np.sqrt(z * z + 1),
            "arccosh": 1 / (np.sqrt(z - 1) * np.sqrt(z + 1)), "arctanh": 1 / (1 - z * z)}
    for name in INVERSE:
        f = getattr(fnp, name)
        for g in (fg.grad(lambda z: fnp.sum(f(z)), holomorphic=True)(z64),
                  fg.jit(fg.vmap(fg.grad(f, holomorphic=True)))(z64)):
            assert g.dtype == np.complex64
            np.testing.assert_allclose(g, want[name], rtol=1e-5, err_msg=name)
        # complex128 past 1e154: against differences of NumPy's values (relative step 1e-4)
        big = complex(1e200, -1e200)
        g = fg.grad(f, holomorphic=True)(np.complex128(big))
        for along_imag in (False, True):
            want_fd = _fd_along(getattr(np, name), big.real, big.imag, along_imag, eps=1e196)
            np.testing.assert_allclose(g, want_fd, rtol=1e-6, err_msg=name)


# ----------------------------------------------------------------------------- sinc
def _sinc_slopes(x):
    """sinc' and sinc'' near 0 by the series sin(y) / y = sum (-y^2)^k / (2k+1)!, y = pi x."""
    y = np.pi * x
    c = [(-1) ** k / math.factorial(2 * k + 1) for k in range(12)]
    d1 = sum(c[k] * 2 * k * y ** (2 * k - 1) for k in range(1, 12))
    d2 = sum(c[k] * 2 * k * (2 * k - 1) * y ** (2 * k - 2) for k in range(1, 12))
    return np.pi * d1, np.pi ** 2 * d2


def test_sinc_derivatives_near_zero():
    # sin(y) / y's derivatives cancel ((y cos y - sin y) / y^2): sinc'' was 0 at
    # 1e-9 + 1e-9j (the series was used at exactly 0 only) and 91% off at x = 1e-8
    d1 = fg.grad(fnp.sinc, holomorphic=True)
    d2 = fg.grad(d1, holomorphic=True)
    for z in (1e-9 + 1e-9j, 1e-6 - 2e-6j, 3e-4j, 0.02 + 0.01j):
        w1, w2 = _sinc_slopes(z)
        np.testing.assert_allclose(d1(np.complex128(z)), w1, rtol=1e-12)
        np.testing.assert_allclose(d2(np.complex128(z)), w2, rtol=1e-12)
    for x in (1e-8, -1e-6, 1e-4):
        w1, w2 = _sinc_slopes(x)
        np.testing.assert_allclose(fg.grad(fnp.sinc)(x), w1, rtol=1e-12)
        np.testing.assert_allclose(fg.grad(fg.grad(fnp.sinc))(x), w2, rtol=1e-12)
    # the values stay NumPy's, bit for bit, in every dtype
    z = (RNG.standard_normal(200) + 1j * RNG.standard_normal(200)) * 0.05
    for a in (z, z.astype(np.complex64), z.real, z.real.astype(np.float32)):
        out = fg.jit(fnp.sinc)(a)
        assert out.dtype == a.dtype
        np.testing.assert_array_equal(out, np.sinc(a))


# ----------------------------------------------------------------------------- abs
def test_abs_slope_of_subnormal_complex_is_the_unit_phase():
    # d|z| = Re(conj(z) t) / |z|: conj(z) / |z| was a complex division, and NumPy's of a
    # subnormal z by |z| + 0j overflows (1e-320 / (1e-320 + 0j) = inf + nan j): NaN slopes
    z = np.array([1e-320 + 0j, 1e-310 + 1e-310j, -3e-320j, 0j, 3 + 4j])
    want = np.array([1.0, (1 - 1j) / np.sqrt(2), 1j, 0.0, 0.6 - 0.8j])
    f = lambda z: fnp.sum(fnp.abs(z))  # noqa: E731
    np.testing.assert_allclose(fg.grad(f)(z), want, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(z), want, rtol=1e-12, atol=1e-300)
    t = np.array([1.0 + 2.0j, 0.5j, 1.0, 1.0, 1j])
    _, dy = fg.jvp(fnp.abs, (z,), (t,))
    assert dy.dtype == np.float64
    np.testing.assert_allclose(dy, np.real(want * t), rtol=1e-12)
    # complex64: subnormal below 1.2e-38
    z32 = np.array([1e-40 + 0j, -1e-40j, 3 + 4j], np.complex64)
    g = fg.grad(f)(z32)
    assert g.dtype == np.complex64
    np.testing.assert_allclose(g, [1.0, 1j, 0.6 - 0.8j], rtol=1e-6)


# ----------------------------------------------------------------------------- angle / arctan2
def test_angle_slope_of_small_complex_is_finite():
    # angle = arctan2(y, x): slopes (-y, x) / (x^2 + y^2); x^2 + y^2 underflowed to 0 below
    # |z| = 1e-19 in complex64 (1.5e-154 in complex128), giving -inf where it is -5e19
    f = lambda z: fnp.sum(fnp.angle(z))  # noqa: E731
    for dt, r in ((np.complex64, 1e-20), (np.complex128, 1e-170)):
        z = np.array([r + r * 1j, -r + 0j, 3 + 4j], dt)
        want = np.array([(-1 - 1j) / (2 * r), 1j / r, (-4 - 3j) / 25])  # (-y - ix) / |z|^2
        for g in (fg.grad(f)(z), fg.jit(fg.grad(f))(z)):
            assert g.dtype == dt
            np.testing.assert_allclose(g, want, rtol=1e-6)


def test_arctan2_slopes_of_small_float32_operands():
    # x^2 + y^2 = 5e-46 underflows in float32; the slopes (x, -y) / r^2 are +-4e22, 2e22
    y, x = np.float32(1e-23), np.float32(2e-23)
    gy, gx = fg.grad(fnp.arctan2, argnums=(0, 1))(y, x)
    assert gy.dtype == gx.dtype == np.float32
    np.testing.assert_allclose([gy, gx], [4e22, -2e22], rtol=1e-6)
    # a weak Python operand keeps float32, under vmap too
    g = fg.vmap(fg.grad(lambda y: fnp.arctan2(y, 2.0)))(np.ones(2, np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [0.4, 0.4], rtol=1e-6)


# ----------------------------------------------------------------------------- eigh at repeated eigenvalues
def _hermitian_with_spectrum(w, cplx=True):
    q, _ = np.linalg.qr(_crandn(len(w), len(w)) if cplx else RNG.standard_normal((len(w),) * 2))
    a = (q * w) @ q.conj().T
    return (a + a.conj().T) / 2


def _projector_loss(lib, k, c):
    """Re(sum(P c)) for P the projector onto the eigenvectors of the k smallest eigenvalues
    of the Hermitian part of a: smooth wherever the k-th and (k+1)-th eigenvalues differ,
    whether or not the first k are repeated."""
    def loss(a):
        h = (a + lib.conj(a).T) / 2
        _, u = lib.linalg.eigh(h)
        p = u[:, :k] @ lib.conj(u[:, :k]).T
        return lib.sum(lib.real(p * c))
    return loss


def test_eigh_projector_gradient_at_a_repeated_eigenvalue():
    # LAPACK returns a repeated eigenvalue a few ulps apart (Q diag(1, 1, 3) Q^H: gaps
    # ~1e-15), so 1 / (w_j - w_i) was ~1e15 inside the eigenspace and the projector's
    # gradient came out of rounding noise, wrong by ~0.2: such gaps now count as degenerate
    for cplx in (True, False):
        a = _hermitian_with_spectrum([1.0, 1.0, 3.0], cplx)
        c = _crandn(3, 3) if cplx else RNG.standard_normal((3, 3))
        want = _fd_grad(_projector_loss(np, 2, c), a.astype(complex))
        want = want if cplx else want.real
        loss = _projector_loss(fnp, 2, c)
        for g in (fg.grad(loss)(a), fg.jit(fg.grad(loss))(a)):
            np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
    # eigenvalues close but told apart keep their eigenvectors' (large) derivative
    a = _hermitian_with_spectrum([1.0, 1.0 + 1e-4, 3.0])
    c = _crandn(3, 3)
    want = _fd_grad(_projector_loss(np, 1, c), a, eps=1e-9)
    np.testing.assert_allclose(fg.grad(_projector_loss(fnp, 1, c))(a), want, rtol=1e-4)


def test_eigh_of_a_batch_with_a_repeated_eigenvalue_under_vmap():
    a = np.stack([_hermitian_with_spectrum([-1.0, -1.0, 2.0]),
                  _hermitian_with_spectrum([0.5, 1.5, 4.0])])
    c = _crandn(3, 3)
    loss = _projector_loss(fnp, 2, c)
    got = fg.vmap(fg.grad(loss))(a)
    for k in range(2):
        np.testing.assert_allclose(got[k], _fd_grad(_projector_loss(np, 2, c), a[k]),
                                   rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------- svd at a zero singular value
def _top_left_projector(lib, k, c):
    def loss(a):
        u, _, _ = lib.linalg.svd(a, full_matrices=False)
        return lib.sum(lib.real(u[:, :k] @ lib.conj(u[:, :k]).T * c))
    return loss


def _truncation(lib, k, c):
    def loss(a):
        u, s, vh = lib.linalg.svd(a, full_matrices=False)
        return lib.sum(lib.real((u[:, :k] * s[:k]) @ vh[:k] * c))
    return loss


def test_svd_gradient_of_a_complex_matrix_with_a_zero_singular_value_is_finite():
    # the phase term i Im(u_i^H dA v_i) / s_i of U's tangent was 0 / 0 at s_i == 0 (a zero
    # row or column): every tangent and cotangent became NaN, even for functions that
    # do not read that singular triplet (JAX's answer there: the same finite values)
    for shape, zero in (((3, 3), (1, slice(None))), ((4, 3), (slice(None), 2)),
                        ((3, 4), (0, slice(None)))):
        a = _crandn(*shape)
        a[zero] = 0
        c = _crandn(shape[0], shape[0])
        for make in (_top_left_projector, _truncation):
            cc = c if make is _top_left_projector else _crandn(*shape)
            want = _fd_grad(make(np, 2, cc), a)
            loss = make(fnp, 2, cc)
            for g in (fg.grad(loss)(a), fg.jit(fg.grad(loss))(a)):
                np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
