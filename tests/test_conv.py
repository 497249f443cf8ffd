"""fg.lax.conv_general_dilated against an independent direct-loop NumPy reference (and
scipy.signal.correlate): strides, (negative) padding, 'SAME'/'VALID', lhs and rhs dilation,
feature groups, 1D/2D/3D, layouts; both impl algorithms (im2col and col2im); gradients."""
import itertools

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import conv, conv_general_dilated
from fungrad.lax import convolution as C


def reference_conv(x, w, strides, pads, ld, rd, groups):
    """Canonical layouts (N, C, *S) and (O, I, *K): the definition, one output at a time."""
    n_, c_ = x.shape[:2]
    o_, i_ = w.shape[:2]
    ks = w.shape[2:]
    dil = [(n - 1) * d + 1 for n, d in zip(x.shape[2:], ld)]
    padded = [d + lo + hi for d, (lo, hi) in zip(dil, pads)]

    def xval(b, c, pos):  # value of the dilated, padded input at `pos` (zero outside)
        src = []
        for p, (lo, _), d, n in zip(pos, pads, ld, x.shape[2:]):
            q = p - lo
            if q < 0 or q % d or q // d >= n:
                return 0.0
            src.append(q // d)
        return x[(b, c) + tuple(src)]
    out_sp = [(p - ((k - 1) * r + 1)) // s + 1 for p, k, r, s in zip(padded, ks, rd, strides)]
    out = np.zeros((n_, o_) + tuple(out_sp))
    og = o_ // groups
    for b, o in itertools.product(range(n_), range(o_)):
        g = o // og
        for pos in itertools.product(*map(range, out_sp)):
            out[(b, o) + pos] = sum(
                w[(o, c) + kk] * xval(b, g * i_ + c, [p * s + k * r for p, s, k, r in
                                                      zip(pos, strides, kk, rd)])
                for c in range(i_) for kk in itertools.product(*map(range, ks)))
    return out


# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, groups)
CONFIGS = [
    ((2, 3, 5, 4), (4, 3, 3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1), 1),
    ((2, 4, 7, 6), (6, 2, 3, 2), (2, 1), [(1, 2), (0, 1)], (1, 1), (1, 2), 2),
    ((1, 2, 5, 5), (3, 2, 2, 3), (1, 2), [(0, 0), (2, -1)], (2, 1), (1, 1), 1),
    ((2, 1, 9), (2, 1, 3), (3,), [(1, 1)], (1,), (2,), 1),
    ((1, 2, 4, 3, 3), (2, 2, 2, 2, 1), (1, 2, 1), [(1, 0), (0, 1), (0, 0)], (1, 1, 2),
     (2, 1, 1), 1),
    ((1, 6, 5), (6, 1, 3), (1,), [(2, 2)], (1,), (1,), 6),  # depthwise
    ((2, 6, 3, 3), (1, 6, 3, 3), (1, 1), [(2, 2), (2, 2)], (1, 1), (1, 1), 1),  # col2im path
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_matches_direct_loop_reference(cfg):
    xs, ws, s, p, ld, rd, g = cfg
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    got = conv_general_dilated(x, w, s, p, ld, rd, feature_group_count=g)
    np.testing.assert_allclose(got, reference_conv(x, w, s, p, ld, rd, g), atol=1e-12)


@pytest.mark.parametrize("algorithm", ["gather", "scatter"])
@pytest.mark.parametrize("cfg", [c for c in CONFIGS if c[2] == (1,) * len(c[2])])
def test_both_algorithms_match_reference(cfg, algorithm):
    """The impl picks im2col (gather) or col2im (scatter) by cost; each must be right on
    every stride-1 case, whichever the impl would pick there."""
    xs, ws, s, p, ld, rd, g = cfg
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    want = reference_conv(x, w, s, p, ld, rd, g)
    if algorithm == "gather":
        got = C._gather_conv(x, w, s, p, ld, rd, g)
    else:
        got = C._scatter_conv(x, w, p, ld, rd, g, want.shape[2:])
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), want, atol=1e-12)


def test_col2im_is_chosen_for_input_gradients():
    """The input-gradient conv of a LeNet-like layer (many channels in, one out) uses
    col2im: im2col would copy every window of the cotangent."""
    calls = []
    orig = C._scatter_conv
    try:
        C._scatter_conv = lambda *a: calls.append(1) or orig(*a)
        x, w = np.ones((2, 1, 8, 8)), np.ones((4, 1, 3, 3))
        fg.grad(lambda x: fnp.sum(conv(x, w, (1, 1), "VALID")))(x)
    finally:
        C._scatter_conv = orig
    assert calls


def test_scipy_correlate():
    scipy_signal = pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(2)
    x, w = rng.normal(size=(1, 1, 7, 6)), rng.normal(size=(1, 1, 3, 2))
    for mode, pad in (("valid", "VALID"), ("full", [(2, 2), (1, 1)])):
        want = scipy_signal.correlate(x[0, 0], w[0, 0], mode=mode)
        np.testing.assert_allclose(conv_general_dilated(x, w, (1, 1), pad)[0, 0], want,
                                   atol=1e-12)


def test_same_padding_and_string_dimension_numbers():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 7, 5))  # NCHW
    w = rng.normal(size=(4, 3, 3, 2))  # OIHW
    want = conv_general_dilated(x, w, (2, 2), "SAME")
    assert want.shape == (2, 4, 4, 3)  # ceil(7/2), ceil(5/2)
    # SAME: total pad (out-1)*s + k - n, low half first (k=3, n=7: 2 -> (1, 1); k=2, n=5: 1 -> (0, 1))
    np.testing.assert_allclose(want, reference_conv(x, w, (2, 2), [(1, 1), (0, 1)], (1, 1),
                                                    (1, 1), 1), atol=1e-12)
    got = conv_general_dilated(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), (2, 2), "SAME",
                               dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), atol=1e-12)
    got = conv_general_dilated(x, w.transpose(2, 3, 1, 0), (2, 2), "SAME",
                               dimension_numbers=("NCHW", "HWIO", "NHWC"))
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), atol=1e-12)
    assert conv(x, w, (1, 1), "VALID").shape == (2, 4, 5, 4)


@pytest.mark.parametrize("cfg", CONFIGS[:4] + CONFIGS[5:])
def test_gradients(cfg):
    xs, ws, s, p, ld, rd, g = cfg
    rng = np.random.default_rng(4)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    fg.test_util.check_grads(
        lambda a, b: conv_general_dilated(a, b, s, p, ld, rd, feature_group_count=g), (x, w),
        order=2)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 2)])
def test_vmap_matches_loop_with_groups(in_axes):
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=(2, 4, 5, 4)), rng.normal(size=(6, 2, 2, 2))

    def f(a, b):
        return conv_general_dilated(a, b, (1, 2), [(1, 0), (0, 1)], feature_group_count=2)
    xb = np.stack([x + i for i in range(3)], in_axes[0]) if in_axes[0] is not None else x
    wb = np.stack([w * (i + 1) for i in range(3)], in_axes[1]) if in_axes[1] is not None else w
    got = fg.vmap(f, in_axes=in_axes)(xb, wb)
    want = np.stack([f(np.take(xb, i, in_axes[0]) if in_axes[0] is not None else x,
                       np.take(wb, i, in_axes[1]) if in_axes[1] is not None else w)
                     for i in range(3)])
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_float32_and_jit():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 3, 6, 6)).astype(np.float32)
    w = rng.normal(size=(4, 3, 3, 3)).astype(np.float32)
    f = fg.jit(lambda x, w: conv(x, w, (1, 1), "SAME"))
    y = f(x, w)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, conv(x.astype(float), w.astype(float), (1, 1), "SAME"),
                               rtol=1e-5, atol=1e-5)


def test_errors_name_the_shapes():
    with pytest.raises(ValueError, match="feature_group_count"):
        conv_general_dilated(np.ones((1, 3, 4, 4)), np.ones((2, 2, 2, 2)), (1, 1), "VALID")
    with pytest.raises(ValueError, match="padding"):
        conv_general_dilated(np.ones((1, 1, 4, 4)), np.ones((1, 1, 2, 2)), (1, 1), "FULL")
    with pytest.raises(ValueError, match="window_strides"):
        conv_general_dilated(np.ones((1, 1, 4, 4)), np.ones((1, 1, 2, 2)), (1,), "VALID")


# ----------------------------------------------------------------------------- reduce_window
def reference_reduce_window(x, init, op, wd, strides, pads, bd, wdil):
    """Holes of base dilation and pads hold `init`; each window reduced from `init`."""
    dil_shape = [(n - 1) * d + 1 for n, d in zip(x.shape, bd)]
    xd = np.full(dil_shape, init, float)
    xd[tuple(slice(None, None, d) for d in bd)] = x
    xp = np.full([n + lo + hi for n, (lo, hi) in zip(dil_shape, pads)], init, float)
    xp[tuple(slice(lo, lo + n) for n, (lo, _) in zip(dil_shape, pads))] = xd
    out_shape = [(p - ((k - 1) * r + 1)) // s + 1
                 for p, k, r, s in zip(xp.shape, wd, wdil, strides)]
    out = np.empty(out_shape)
    for pos in itertools.product(*map(range, out_shape)):
        acc = init
        for k in itertools.product(*map(range, wd)):
            v = xp[tuple(p * s + kk * r for p, s, kk, r in zip(pos, strides, k, wdil))]
            acc = op(acc, v)
        out[pos] = acc
    return out


WINDOW_CONFIGS = [  # (shape, window, strides, padding, base_dilation, window_dilation)
    ((2, 3, 6, 5), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None, None),
    ((2, 6, 5), (1, 3, 3), (1, 2, 1), "SAME", None, None),
    ((7,), (3,), (2,), [(1, 2)], (2,), (1,)),
    ((4, 5), (2, 2), (1, 1), [(0, 1), (1, 0)], None, (2, 1)),
]


@pytest.mark.parametrize("computation", ["add", "max", "min"])
@pytest.mark.parametrize("cfg", WINDOW_CONFIGS)
def test_reduce_window_matches_reference(cfg, computation):
    shape, wd, strides, padding, bd, wdil = cfg
    x = np.random.default_rng(7).normal(size=shape)
    init, op = {"add": (0.0, np.add), "max": (-np.inf, np.maximum),
                "min": (np.inf, np.minimum)}[computation]
    got = fg.lax.reduce_window(x, init, computation, wd, strides, padding, bd, wdil)
    pads = C._padding_pairs(padding, shape, wd, strides, bd or (1,) * len(shape),
                            wdil or (1,) * len(shape))
    want = reference_reduce_window(x, init, op, wd, strides, pads, bd or (1,) * len(shape),
                                   wdil or (1,) * len(shape))
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_reduce_window_non_identity_init_and_average_pool():
    x = np.random.default_rng(8).normal(size=(3, 4))
    got = fg.lax.reduce_window(x, 1.5, fnp.add, (2, 2), (1, 1), [(1, 0), (0, 1)])
    want = reference_reduce_window(x, 1.5, np.add, (2, 2), (1, 1), [(1, 0), (0, 1)], (1, 1),
                                   (1, 1))
    np.testing.assert_allclose(got, want, atol=1e-12)
    got = fg.lax.reduce_window(x, 0.5, "max", (2, 2), (1, 1), "VALID")
    np.testing.assert_allclose(got, np.maximum(
        reference_reduce_window(x, -np.inf, np.maximum, (2, 2), (1, 1), [(0, 0)] * 2, (1, 1),
                                (1, 1)), 0.5))
    avg = fg.lax.reduce_window(x, 0.0, "add", (2, 2), (2, 2)) / 4
    np.testing.assert_allclose(avg, x[:2, :4].reshape(1, 2, 2, 2).mean(axis=(1, 3)))


@pytest.mark.parametrize("computation", ["add", "max"])
def test_reduce_window_gradients_vmap_jit(computation):
    x = np.random.default_rng(9).normal(size=(2, 2, 5, 4))
    init = 0.0 if computation == "add" else -np.inf

    def pool(x):
        return fg.lax.reduce_window(x, init, computation, (1, 1, 2, 2), (1, 1, 2, 1), "SAME")
    fg.test_util.check_grads(pool, (x,), order=2)
    def pool_example(x):  # pool's window without its second dim
        return fg.lax.reduce_window(x, init, computation, (1, 2, 2), (1, 2, 1), "SAME")
    np.testing.assert_allclose(fg.vmap(pool_example, in_axes=1, out_axes=1)(x), pool(x))
    np.testing.assert_allclose(fg.jit(pool)(x), pool(x))


def test_reduce_window_errors():
    with pytest.raises(ValueError, match="computation"):
        fg.lax.reduce_window(np.ones(4), 1.0, "mul", (2,))
    with pytest.raises(ValueError, match="one entry per"):
        fg.lax.reduce_window(np.ones((4, 4)), 0.0, "add", (2,))
