"""fg.scipy.signal's fftconvolve, detrend, stft, istft, welch, csd; fg.scipy.fft's DCTs;
fg.scipy.ndimage.map_coordinates; fg.scipy.interpolate.RegularGridInterpolator: values
against SciPy, derivatives against finite differences, jit, vmap, float32."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads

sp = pytest.importorskip("scipy")
import scipy.fft as sfft  # noqa: E402
import scipy.interpolate as sinterp  # noqa: E402
import scipy.ndimage as sndi  # noqa: E402
import scipy.signal as ssig  # noqa: E402

fsig, ffft, fnd, fip = fg.scipy.signal, fg.scipy.fft, fg.scipy.ndimage, fg.scipy.interpolate
RNG = np.random.default_rng(0)


def _close(got, want, tol=1e-10):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


# ----------------------------------------------------------------------------- values
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("sa,sb,axes", [((5,), (3,), None), ((3,), (5,), None),
                                        ((4, 5), (2, 3), None), ((4, 5), (4, 2), [1]),
                                        ((4, 1), (1, 3), [0]), ((4, 5), (2, 3), [0, 1])])
def test_fftconvolve_values(mode, sa, sb, axes):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    _close(fsig.fftconvolve(a, b, mode=mode, axes=axes), ssig.fftconvolve(a, b, mode, axes))


def test_fftconvolve_complex():
    a = RNG.standard_normal(6) + 1j * RNG.standard_normal(6)
    b = RNG.standard_normal(3)
    _close(fsig.fftconvolve(a, b, "same"), ssig.fftconvolve(a, b, "same"))
    _close(fsig.fftconvolve(b, a), ssig.fftconvolve(b, a))


@pytest.mark.parametrize("kind", ["linear", "constant"])
@pytest.mark.parametrize("axis", [0, -1])
def test_detrend_values(kind, axis):
    x = RNG.standard_normal((4, 9))
    _close(fsig.detrend(x, axis=axis, type=kind), ssig.detrend(x, axis=axis, type=kind))
    _close(fsig.detrend(x, bp=[3, 5]), ssig.detrend(x, bp=[3, 5]))


STFT_KWARGS = [dict(nperseg=8), dict(nperseg=7, noverlap=3), dict(nperseg=8, nfft=12),
               dict(nperseg=8, boundary="even"), dict(nperseg=8, boundary="odd", padded=False),
               dict(nperseg=8, boundary="constant"), dict(nperseg=8, boundary=None),
               dict(nperseg=8, detrend="linear", return_onesided=False),
               dict(nperseg=8, window="hamming", fs=3.0), dict(nperseg=8, window=("tukey", 0.3)),
               dict(nperseg=8, window=np.arange(8.0)), dict()]


@pytest.mark.parametrize("kw", STFT_KWARGS)
def test_stft_values(kw):
    x = RNG.standard_normal((2, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(fsig.stft(x, **kw), ssig.stft(x, **kw))
        _close(fsig.stft(x.T, axis=0, **kw), ssig.stft(x.T, axis=0, **kw))


def test_stft_complex_is_two_sided():
    x = RNG.standard_normal(20) + 1j * RNG.standard_normal(20)
    with pytest.warns(UserWarning):
        got = fsig.stft(x, nperseg=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(got, ssig.stft(x, nperseg=8))


WELCH_KWARGS = [dict(), dict(nperseg=8), dict(nperseg=9, noverlap=2, nfft=16),
                dict(nperseg=8, scaling="spectrum"), dict(nperseg=8, detrend="linear"),
                dict(nperseg=8, detrend=False, return_onesided=False),
                dict(nperseg=8, average="median"), dict(nperseg=8, fs=10.0, window="blackman")]


@pytest.mark.parametrize("kw", WELCH_KWARGS)
def test_welch_and_csd_values(kw):
    x, y = RNG.standard_normal((2, 40)), RNG.standard_normal((2, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(fsig.welch(x, **kw), ssig.welch(x, **kw))
        _close(fsig.welch(x.T, axis=0, **kw), ssig.welch(x.T, axis=0, **kw))
        _close(fsig.csd(x, y, **kw), ssig.csd(x, y, **kw))
    _close(fsig.csd(x, y[:, :30], nperseg=8), ssig.csd(x, y[:, :30], nperseg=8))


@pytest.mark.parametrize("kw", [dict(nperseg=8), dict(nperseg=7, noverlap=4),
                                dict(nperseg=8, nfft=12), dict(nperseg=8, window="hamming",
                                                               fs=2.0)])
def test_istft_values_and_round_trip(kw):
    x = RNG.standard_normal((2, 40))
    _, _, z = ssig.stft(x, **kw)
    _close(fsig.istft(z, **kw), ssig.istft(z, **kw))
    zt = np.moveaxis(z, -1, 0)
    _close(fsig.istft(zt, time_axis=0, freq_axis=-1, **kw),
           ssig.istft(zt, time_axis=0, freq_axis=-1, **kw))
    if "nfft" not in kw:
        _, back = fsig.istft(fsig.stft(x, **kw)[2], **kw)
        _close(back[..., :40], x)


def test_istft_two_sided_and_no_boundary():
    _, _, z = ssig.stft(RNG.standard_normal(40), nperseg=8, return_onesided=False)
    _close(fsig.istft(z, input_onesided=False), ssig.istft(z, input_onesided=False))
    _close(fsig.istft(z[:, 1:-1], input_onesided=False, boundary=False),
           ssig.istft(z[:, 1:-1], input_onesided=False, boundary=False))


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_values(name, type, norm):
    for n_in in (2, 3, 5, 8):
        x = RNG.standard_normal((3, n_in))
        for n in (None, 3, 7):
            _close(getattr(ffft, name)(x, type=type, n=n, norm=norm),
                   getattr(sfft, name)(x, type=type, n=n, norm=norm))
    x = RNG.standard_normal((4, 3))
    _close(getattr(ffft, name)(x, type=type, axis=0, norm=norm),
           getattr(sfft, name)(x, type=type, axis=0, norm=norm))


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_dctn_values(name, type):
    x = RNG.standard_normal((3, 4, 5)) + 1j * RNG.standard_normal((3, 4, 5))
    for kw in [{}, {"axes": (0, 2)}, {"s": (3, 6)}, {"s": (2,), "axes": (1,)},
               {"norm": "ortho", "axes": (2, 0)}]:
        _close(getattr(ffft, name)(x, type=type, **kw), getattr(sfft, name)(x, type=type, **kw))


def test_dct_round_trip_and_errors():
    x = RNG.standard_normal(6)
    for t in (1, 2, 3, 4):
        _close(ffft.idct(ffft.dct(x, type=t), type=t), x)
    with pytest.raises(ValueError, match="type"):
        ffft.dct(x, type=5)
    with pytest.raises(ValueError, match="norm"):
        ffft.dct(x, norm="forward")


MODES = ["constant", "nearest", "wrap", "mirror", "reflect"]
SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}  # jax.scipy's semantics


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", MODES)
def test_map_coordinates_values(order, mode):
    img = RNG.standard_normal((5, 6))
    c = RNG.uniform(-3, 9, (2, 40))
    _close(fnd.map_coordinates(img, list(c), order, mode=mode, cval=0.7),
           sndi.map_coordinates(img, c, order=order, mode=SCIPY_MODE.get(mode, mode), cval=0.7))
    ints = np.arange(30).reshape(5, 6)
    got = fnd.map_coordinates(ints, list(c), order, mode=mode)
    assert got.dtype == ints.dtype


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, 3.0])
def test_regular_grid_interpolator_values(method, fill_value):
    pts = (np.array([0.0, 1.0, 2.5, 4.0]), np.array([-1.0, 0.0, 2.0]))
    vals = RNG.standard_normal((4, 3, 2))
    xi = RNG.uniform(-1.5, 4.5, (7, 2))
    f = fip.RegularGridInterpolator(pts, vals, method=method, fill_value=fill_value)
    want = sinterp.RegularGridInterpolator(pts, vals, method=method, bounds_error=False,
                                           fill_value=fill_value)
    _close(f(xi), want(xi))
    _close(f((xi[:, 0], xi[:, 1])), want((xi[:, 0], xi[:, 1])))
    with pytest.raises(NotImplementedError):
        fip.RegularGridInterpolator(pts, vals, bounds_error=True)


# ----------------------------------------------------------------------------- derivatives
def _stft_sum(x):
    z = fsig.stft(x, nperseg=6, noverlap=2, boundary="odd")[2]
    return fnp.sum(fnp.real(z) * 0.3 + fnp.imag(z) ** 2)


DIFF_CASES = {
    "fftconvolve": (lambda a, b: fsig.fftconvolve(a, b, "same"), (5, 3)),
    "detrend": (lambda x: fsig.detrend(x, bp=[2]), (6,)),
    "stft": (_stft_sum, (16,)),
    "istft": (lambda z: fsig.istft(z + 0.5j * z, nperseg=6)[1], ((4, 5),)),
    "welch": (lambda x: fsig.welch(x, nperseg=6, detrend="linear")[1], (16,)),
    "welch_median": (lambda x: fsig.welch(x, nperseg=4, average="median")[1], (16,)),
    "csd": (lambda x, y: fnp.real(fsig.csd(x, y, nperseg=6)[1]) + 2 * fnp.imag(
        fsig.csd(x, y, nperseg=6)[1]), (16, 16)),
    "dct": (lambda x: ffft.dct(x, type=3, n=7, norm="ortho"), (5,)),
    "idctn": (lambda x: ffft.idctn(x, type=1), ((3, 4),)),
    "map_coordinates": (lambda im, c0, c1: fnd.map_coordinates(im, [c0, c1], 1,
                                                               mode="reflect"), (4, 3)),
    "interpolator": (lambda v, x: fip.RegularGridInterpolator(
        (np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0])), v)(x), (3, 2)),
}


def _args(name, shapes):
    if name == "map_coordinates":
        return (RNG.standard_normal((4, 3)), np.array([0.3, 2.6, -0.7, 4.4]),
                np.array([1.2, 0.4, 2.7, -1.8]))
    if name == "interpolator":
        return (RNG.standard_normal((3, 2)), np.array([[0.3, 0.5], [2.2, 1.7]]))
    return tuple(RNG.standard_normal(s) for s in shapes)


@pytest.mark.parametrize("name", sorted(DIFF_CASES))
def test_derivatives_jit_vmap(name):
    fn, shapes = DIFF_CASES[name]
    args = _args(name, shapes)
    check_grads(fn, args, order=2, modes=("fwd", "rev"))
    want = fn(*args)
    np.testing.assert_allclose(fg.jit(fn)(*args), want, rtol=1e-12, atol=1e-12)
    # vmap over a batch of the first argument against a loop
    batch = np.stack([args[0], args[0] * 0.5 + 0.1])
    got = fg.vmap(lambda a: fn(a, *args[1:]))(batch)
    for i in range(2):
        np.testing.assert_allclose(got[i], fn(batch[i], *args[1:]), rtol=1e-12, atol=1e-12)


def test_grads_of_known_values():
    # d/dc of linear interpolation is the difference of neighbours
    img = np.arange(12.0).reshape(3, 4)
    g = fg.grad(lambda c: fnd.map_coordinates(img, [c, 0.5], order=1))(1.25)
    np.testing.assert_allclose(g, 4.0)
    # the DCT is linear: its gradient is a row of the matrix
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(fg.grad(lambda x: ffft.dct(x)[1])(x),
                               sfft.dct(np.eye(3), axis=0)[1])


# ----------------------------------------------------------------------------- float32
def test_float32_stays_float32():
    x = RNG.standard_normal((2, 24)).astype(np.float32)
    f, t, z = fsig.stft(x, nperseg=8)
    assert (f.dtype, t.dtype, z.dtype) == (np.float32, np.float32, np.complex64)
    assert fsig.welch(x, nperseg=8)[1].dtype == np.float32
    assert fsig.csd(x, x, nperseg=8)[1].dtype == np.complex64
    assert fsig.istft(z)[1].dtype == np.float32
    assert fsig.detrend(x).dtype == np.float32
    assert fsig.fftconvolve(x, x[:, :3]).dtype == np.float32
    for fn in (ffft.dct, ffft.idct, ffft.dctn, ffft.idctn):
        assert fn(x).dtype == np.float32
    assert fnd.map_coordinates(x, [np.float32([0.5]), np.float32([1.5])], 1).dtype == np.float32
    g = fg.grad(lambda x: fnp.sum(fsig.welch(x, nperseg=8)[1]))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(fsig.welch(x, nperseg=8)[1],
                               ssig.welch(x.astype(np.float64), nperseg=8)[1], rtol=1e-4,
                               atol=1e-5)


def test_import_needs_no_scipy():
    import subprocess
    import sys
    code = ("import sys, fungrad as fg; fg.scipy.fft.dct([1.0, 2.0]); "
            "fg.scipy.signal.welch([1.0, 2.0, 3.0, 4.0]); fg.scipy.ndimage; fg.scipy.interpolate;"
            " assert not any(m == 'scipy' or m.startswith('scipy.') for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
