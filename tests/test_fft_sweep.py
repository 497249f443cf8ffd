"""fungrad.numpy.fft on traced values against NumPy where a differential sweep found them
apart: NumPy 2's `s` entries of -1 (and None), repeated axes (NumPy transforms such an axis
once per mention), out-of-bounds axes (NumPy's AxisError is a ValueError and an IndexError),
fftshift's axes, and fftfreq's `n` checks."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
Z = X + 1j * RNG.standard_normal((3, 4))


def _numpy(name, x, **kw):
    with warnings.catch_warnings():  # (NumPy 2 deprecates None in `s`, but obeys it)
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(np.fft, name)(x, **kw)


def _assert_traced_matches_numpy(name, x, **kw):
    want = _numpy(name, x, **kw)
    got = fg.jit(lambda a: getattr(fnp.fft, name)(a, **kw))(x)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,s,axes", [
    ("fftn", (-1, 6), (0, 1)),
    ("ifft2", (2, -1), (0, 1)),
    ("rfftn", (-1, 5), (1, 0)),
    # the halved axis too keeps the input's length (not 2 * (m - 1), irfftn's default)
    ("irfftn", (-1, -1), (0, 1)),
    ("irfft2", (5, -1), (1, 0)),
])
def test_s_entry_minus_one_keeps_the_input_length(name, s, axes):
    # NumPy 2: s[i] == -1 uses the whole input along axes[i] (no padding or truncation)
    x = X if name.startswith("rfft") else Z
    _assert_traced_matches_numpy(name, x, s=s, axes=axes)


def test_one_axis_n_minus_one_stays_an_error():
    # only `s` has the -1 reading: fft(n=-1) is an invalid length in NumPy too
    with pytest.raises(ValueError, match="data points"):
        fg.jit(lambda a: fnp.fft.fft(a, n=-1))(Z)


@pytest.mark.parametrize("name,s,axes", [
    ("fftn", (3, 5), (1, 0)),
    ("irfftn", (None, None), (0, 1)),
    ("irfftn", (2, None), (1, 0)),
])
def test_s_entry_none_takes_the_one_axis_default(name, s, axes):
    _assert_traced_matches_numpy(name, Z, s=s, axes=axes)


@pytest.mark.parametrize("name,kw", [
    ("fftn", {"axes": (0, 0)}),
    ("fftn", {"s": (2, 5, 3), "axes": (0, 1, 0)}),
    ("ifft2", {"s": (2, 6), "axes": (-1, -1)}),
    ("rfftn", {"s": (3, 2, 5), "axes": (1, 0, 1)}),
    ("rfft2", {"axes": (0, 0)}),
    ("irfftn", {"axes": (1, 0, 1)}),
    ("irfft2", {"s": (5, 7), "axes": (1, 1)}),
])
def test_repeated_axes_transform_once_per_mention(name, kw):
    x = X if name.startswith("rfft") else Z
    _assert_traced_matches_numpy(name, x, **kw)
    check_grads(lambda a: getattr(fnp.fft, name)(a, **kw), (x,), order=1,
                modes=("fwd", "rev"))


def test_repeated_axes_with_a_none_length_are_refused():
    # NumPy reads that None as the length the earlier transform of the axis left
    with pytest.raises(ValueError, match="repeated axes"):
        fg.jit(lambda a: fnp.fft.irfftn(a, s=(5, None), axes=(1, 1)))(Z)


def test_s_longer_than_the_array_is_out_of_bounds():
    # the default axes are the last len(s) counted from the end, so the extra entry names
    # axis -3, out of bounds, not a repeat of axis 1 (which would now be transformed twice)
    for name in ("fftn", "rfftn", "irfftn"):
        x = X if name == "rfftn" else Z
        with pytest.raises(IndexError):
            _numpy(name, x, s=(2, 3, 4))
        with pytest.raises(IndexError, match="out of bounds"):
            fg.jit(lambda a: getattr(fnp.fft, name)(a, s=(2, 3, 4)))(x)


@pytest.mark.parametrize("name,kw", [("fft2", {}), ("rfft2", {}), ("irfftn", {"axes": (0, 1)}),
                                     ("fft", {"axis": 1}), ("rfft", {"axis": -2})])
def test_out_of_bounds_axes_raise_numpys_axis_error(name, kw):
    # NumPy raises an AxisError for one axis and an IndexError for fft2's; AxisError is both
    x = X[0] if name.startswith("rfft") else Z[0]
    with pytest.raises(IndexError):
        _numpy(name, x, **kw)
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        fg.jit(lambda a: getattr(fnp.fft, name)(a, **kw))(x)


@pytest.mark.parametrize("name", ["rfftn", "irfftn"])
def test_real_transforms_over_no_axes_raise_clearly(name):
    x = X if name == "rfftn" else Z
    with pytest.raises(IndexError):
        _numpy(name, x, axes=())
    with pytest.raises(IndexError, match="at least one axis"):
        fg.jit(lambda a: getattr(fnp.fft, name)(a, axes=()))(x)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shift_refuses_out_of_bounds_and_float_axes(name):
    # a wrapped axis (5 % 2) would silently shift axis 1 of a 2-D array
    f = getattr(fnp.fft, name)
    for axes in (5, (0, 2), -3):
        with pytest.raises(IndexError):
            getattr(np.fft, name)(X, axes)
        with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
            fg.jit(lambda a: f(a, axes))(X)
    with pytest.raises(TypeError):
        fg.jit(lambda a: f(a, 1.0))(X)
    np.testing.assert_array_equal(fg.jit(lambda a: f(a, (-1, 0, -1)))(X),
                                  getattr(np.fft, name)(X, (-1, 0, -1)))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_check_n_on_a_traced_d(name):
    f = getattr(fnp.fft, name)
    with pytest.raises(ValueError, match="integer"):
        getattr(np.fft, name)(4.0, 0.5)
    with pytest.raises(ValueError, match="integer"):
        fg.jit(lambda d: f(4.0, d))(0.5)
    np.testing.assert_allclose(fg.jit(lambda d: f(np.int32(5), d))(0.5),
                               getattr(np.fft, name)(np.int32(5), 0.5), rtol=1e-15)


def test_fftfreq_refuses_a_negative_n_on_a_traced_d():
    with pytest.raises(ValueError, match="negative"):
        np.fft.fftfreq(-1, 0.5)
    with pytest.raises(ValueError, match="negative"):
        fg.jit(lambda d: fnp.fft.fftfreq(-1, d))(0.5)
    # (rfftfreq's negative n is NumPy's empty result)
    assert fg.jit(lambda d: fnp.fft.rfftfreq(-1, d))(0.5).shape == np.fft.rfftfreq(-1, 0.5).shape
