"""fungrad.numpy.fft beyond the registry specs: NumPy parity over the keyword arguments
(norm modes, n / s padding and truncation, odd real lengths), dtypes, vmap over other axes,
gradients against finite differences and errors."""
import itertools

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))
Z = X + 1j * RNG.standard_normal((3, 5))
NORMS = [None, "backward", "ortho", "forward"]


def _traced(f):
    """f evaluated under jit (traced, every primitive staged)."""
    return fg.jit(f)


@pytest.mark.parametrize("name,n,norm", itertools.product(
    ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"], [None, 1, 4, 5, 8], NORMS))
def test_one_axis_matches_numpy(name, n, norm):
    x = X if name in ("rfft", "ihfft") else Z
    for axis in (-1, 0):
        f = getattr(fnp.fft, name)
        want = getattr(np.fft, name)(x, n, axis, norm)
        got = _traced(lambda a: f(a, n, axis, norm))(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,s,axes,norm", [
    (name, s, axes, norm)
    for name in ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
    for s, axes in [(None, None), ((2, 7), (0, 1)), ((3,), (1,)), ((4, 3), (1, 0)), (None, (0,))]
    for norm in NORMS])
def test_n_dimensional_matches_numpy(name, s, axes, norm):
    x = X if name.startswith("rfft") else Z
    if name.endswith("2") and axes is not None and len(axes) != 2:
        return
    kw = {"s": s, "norm": norm}
    if axes is not None:
        kw["axes"] = axes
    want = getattr(np.fft, name)(x, **kw)
    got = _traced(lambda a: getattr(fnp.fft, name)(a, **kw))(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64,
                                   np.int32, np.bool_])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2",
                                  "irfftn"])
def test_dtypes_match_numpy(name, dtype):
    """Single precision stays single (NumPy 2): float32 / complex64 give complex64."""
    x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    if name in ("rfft", "ihfft") and x.dtype.kind == "c":
        return
    want = getattr(np.fft, name)(x)
    got = fg.make_ir(getattr(fnp.fft, name))(x).graph.outvars[0].aval
    assert (got.shape, got.dtype) == (want.shape, want.dtype)


@pytest.mark.parametrize("n", [4, 5, 7])
def test_irfft_odd_lengths_and_round_trip(n):
    x = RNG.standard_normal((2, n))
    back = fg.jit(lambda a: fnp.fft.irfft(fnp.fft.rfft(a), n=n))(x)
    np.testing.assert_allclose(back, x, atol=1e-12)
    check_grads(lambda a: fnp.fft.irfft(fnp.fft.rfft(a) * 1.5, n=n), (x,), order=2)


def test_grad_of_power_spectrum_matches_finite_differences():
    x = RNG.standard_normal(6)

    def power(a):
        return fnp.sum(fnp.abs(fnp.fft.rfft(a)) ** 2)
    g = fg.grad(power)(x)
    eps = 1e-6
    fd = np.array([(power(x + eps * e) - power(x - eps * e)) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)
    check_grads(power, (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "irfftn", "fftshift"])
@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_over_other_axes(name, in_axis):
    x = RNG.standard_normal((3, 4, 5))
    if name.startswith("irfft"):
        x = x + 1j * RNG.standard_normal(x.shape)
    kw = {"axes": (0, 1)} if name in ("fftn", "irfftn") else {} if name == "fftshift" else \
        {"axis": 0}
    f = getattr(fnp.fft, name)
    got = fg.vmap(lambda a: f(a, **kw), in_axes=in_axis)(x)
    want = np.stack([getattr(np.fft, name)(np.take(x, i, in_axis), **kw)
                     for i in range(x.shape[in_axis])])
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_complex_transposes_under_real_pairing():
    """<vjp(ct), t> == <ct, jvp(t)> with Re(sum(a * b)) for c2c, r2c and c2r."""
    for f, x in [(lambda a: fnp.fft.ifft(a, 7, norm="ortho"), Z),
                 (lambda a: fnp.fft.irfftn(a, s=(3, 7)), Z),
                 (lambda a: fnp.fft.rfftn(a, s=(2, 6), norm="forward"), X)]:
        t = RNG.standard_normal(x.shape) + (1j * RNG.standard_normal(x.shape)
                                            if x.dtype.kind == "c" else 0)
        out, t_out = fg.jvp(f, (x,), (t,))
        ct = RNG.standard_normal(out.shape) + (1j * RNG.standard_normal(out.shape)
                                               if out.dtype.kind == "c" else 0)
        ct_in, = fg.vjp(f, x)[1](ct)
        np.testing.assert_allclose(np.real(np.sum(ct_in * t)), np.real(np.sum(ct * t_out)),
                                   rtol=1e-10)


def test_fftfreq_is_differentiable_in_d():
    for f, np_f in [(fnp.fft.fftfreq, np.fft.fftfreq), (fnp.fft.rfftfreq, np.fft.rfftfreq)]:
        np.testing.assert_allclose(fg.jit(lambda d: f(7, d))(0.3), np_f(7, 0.3), rtol=1e-15)
        g = fg.grad(lambda d: fnp.sum(f(7, d) ** 2))(0.3)
        np.testing.assert_allclose(g, -2 * np.sum(np_f(7, 1.0) ** 2) / 0.3 ** 3, rtol=1e-10)


def test_errors():
    with pytest.raises(ValueError, match="norm"):
        fg.jit(lambda a: fnp.fft.fft(a, norm="bogus"))(Z)
    with pytest.raises(TypeError, match="real"):
        fg.jit(fnp.fft.rfft)(Z)
    with pytest.raises(ValueError, match="at least 1"):
        fg.jit(lambda a: fnp.fft.fft(a, n=0))(Z)
    with pytest.raises(TypeError, match="out="):
        fg.jit(lambda a: fnp.fft.rfft(a, out=np.empty(3, complex)))(X[0])
    out = np.empty(3, complex)
    assert fnp.fft.rfft(X[0, :4], out=out) is out
    with pytest.raises(ValueError, match="out of bounds"):
        fg.jit(lambda a: fnp.fft.fft(a, axis=2))(Z)


def test_matches_jax():
    jnp = pytest.importorskip("jax.numpy")
    import jax
    jax.config.update("jax_enable_x64", True)
    x = RNG.standard_normal(7)

    def power(a, m):
        return m.sum(m.abs(m.fft.rfft(a, n=9, norm="ortho")) ** 2 * m.arange(5.0))
    np.testing.assert_allclose(fg.grad(lambda a: power(a, fnp))(x),
                               jax.grad(lambda a: power(a, jnp))(x), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32])
def test_transform_over_no_axes_keeps_the_input(dtype):
    # NumPy's fftn / ifftn over no axes (axes=(), or a 0-d input) return `a` in its own dtype
    x = np.ones((2, 3), dtype)
    for f in (fnp.fft.fftn, fnp.fft.ifftn):
        got = fg.jit(lambda a: f(a, axes=()))(x)
        assert got.dtype == dtype and got.shape == (2, 3)
        assert fg.jit(f)(x[0, 0]).dtype == dtype
