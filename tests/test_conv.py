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
    # (XLA reads no padding: the init is added once per window, not once per pad too)
    want = reference_reduce_window(x, 0.0, np.add, (2, 2), (1, 1), [(1, 0), (0, 1)], (1, 1),
                                   (1, 1)) + 1.5
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


def test_convolution_docstring_examples():
    import doctest
    result = doctest.testmod(C, extraglobs={"fg": fg, "np": np})
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- conv_transpose
def reference_conv_transpose(x, w, strides, pads, rd):
    """Canonical (N, C, *S) input, (I, O, *K) kernel (no flip): every input element adds
    x * w[c, :, k] at output position lo + i*s - k*rd (where that lies in the output)."""
    n_, c_ = x.shape[:2]
    o_, ks = w.shape[1], w.shape[2:]
    out_sp = [(n - 1) * s + 1 + lo + hi - (k - 1) * r
              for n, s, (lo, hi), k, r in zip(x.shape[2:], strides, pads, ks, rd)]
    out = np.zeros((n_, o_) + tuple(out_sp))
    for b, c in itertools.product(range(n_), range(c_)):
        for i in itertools.product(*map(range, x.shape[2:])):
            for k in itertools.product(*map(range, ks)):
                j = tuple(lo + ii * s - kk * r for (lo, _), ii, s, kk, r in
                          zip(pads, i, strides, k, rd))
                if all(0 <= jj < m for jj, m in zip(j, out_sp)):
                    out[(b, slice(None)) + j] += x[(b, c) + i] * w[(c, slice(None)) + k]
    return out


# (input NCHW-like, kernel (I, O, *K), strides, padding, rhs_dilation, pads JAX uses)
TRANSPOSE_CONFIGS = [
    ((2, 3, 4, 3), (3, 2, 3, 2), (2, 1), "VALID", (1, 1), [(2, 2), (1, 1)]),
    ((1, 2, 3, 4), (2, 3, 3, 3), (2, 3), "SAME", (1, 1), [(2, 1), (2, 2)]),
    ((2, 1, 5), (1, 2, 2), (3,), "SAME", (1,), [(1, 2)]),
    ((1, 2, 4), (2, 1, 2), (2,), "VALID", (2,), [(2, 2)]),
    ((1, 2, 3, 3), (2, 2, 2, 2), (2, 2), [(0, 1), (1, 0)], (1, 1), [(0, 1), (1, 0)]),
]


def _to_layout(x, w, nd):
    """Canonical arrays -> the NHWC / HWIO layouts conv_transpose assumes by default."""
    return np.moveaxis(x, 1, -1), np.moveaxis(w, (0, 1), (-2, -1))


@pytest.mark.parametrize("cfg", TRANSPOSE_CONFIGS)
def test_conv_transpose_matches_scatter_loop_reference(cfg):
    xs, ws, s, padding, rd, pads = cfg
    rng = np.random.default_rng(10)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    want = reference_conv_transpose(x, w, s, pads, rd)
    xl, wl = _to_layout(x, w, len(s))
    got = fg.lax.conv_transpose(xl, wl, s, padding, rhs_dilation=rd)
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), want, atol=1e-12)
    # explicit layouts, channels first
    spatial = "HWD"[:len(s)]
    dn = ("NC" + spatial, "IO" + spatial, "NC" + spatial)
    got = fg.lax.conv_transpose(x, w, s, padding, rd, dimension_numbers=dn)
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("n,k,s", [(5, 3, 2), (4, 2, 2), (3, 2, 3), (6, 5, 1), (2, 1, 4)])
def test_conv_transpose_output_sizes(n, k, s):
    x, w = np.ones((1, n, 1)), np.ones((k, 1, 1))
    assert fg.lax.conv_transpose(x, w, (s,), "SAME").shape == (1, n * s, 1)
    assert fg.lax.conv_transpose(x, w, (s,), "VALID").shape == (1, n * s + max(k - s, 0), 1)
    args = C.conv_transpose_args(x.shape, w.shape, (s,), "VALID")
    assert C.conv_general_shape(x.shape, w.shape, **args) == (1, n * s + max(k - s, 0), 1)


def test_conv_transpose_with_transpose_kernel_is_the_conv_gradient():
    """transpose_kernel=True flips the kernel and swaps its in/out axes, which makes
    conv_transpose the input gradient (VJP) of the strided conv with that kernel."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(2, 7, 9, 3))                        # NHWC; (7-3) % 2 == 0, (9-3) % 3 == 0
    w = rng.normal(size=(3, 3, 3, 4))                        # HWIO
    conv_fn = lambda x: conv_general_dilated(x, w, (2, 3), "VALID",  # noqa: E731
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y, vjp = fg.vjp(conv_fn, x)
    ct = rng.normal(size=y.shape)
    got = fg.lax.conv_transpose(ct, w, (2, 3), "VALID", transpose_kernel=True)
    np.testing.assert_allclose(got, vjp(ct)[0], atol=1e-12)


def test_conv_transpose_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(12)
    for xs, ws, s, padding, rd, _ in TRANSPOSE_CONFIGS:
        x, w = _to_layout(rng.normal(size=xs), rng.normal(size=ws), len(s))
        for tk in (False, True):
            if tk and x.shape[-1] != w.shape[-1]:
                continue  # a swapped kernel needs as many outputs as inputs here
            want = jax.lax.conv_transpose(x, w, s, padding, rhs_dilation=rd,
                                          transpose_kernel=tk)
            got = fg.lax.conv_transpose(x, w, s, padding, rhs_dilation=rd, transpose_kernel=tk)
            np.testing.assert_allclose(got, np.asarray(want), atol=1e-10)


def test_conv_transpose_gradients_jit_and_errors():
    rng = np.random.default_rng(13)
    x, w = rng.normal(size=(1, 3, 2, 2)), rng.normal(size=(2, 2, 3, 2))  # O = x channels

    def f(x, w):
        return fg.lax.conv_transpose(x, w, (2, 1), "SAME", transpose_kernel=True)
    fg.test_util.check_grads(f, (x, w), order=2)
    np.testing.assert_allclose(fg.jit(f)(x, w), f(x, w), atol=1e-12)
    with pytest.raises(ValueError, match="padding 'FULL'"):
        fg.lax.conv_transpose(x, w, (1, 1), "FULL")
    with pytest.raises(ValueError, match="same rank"):
        fg.lax.conv_transpose(x, w[0], (1, 1), "SAME")
    with pytest.raises(ValueError, match="dimension_numbers"):
        fg.lax.conv_transpose(np.ones((1,) * 6), np.ones((1,) * 6), (1,) * 4, "SAME")
    with pytest.raises(ValueError, match="strides"):
        fg.lax.conv_transpose(x, w, (1,), "SAME")


# ----------------------------------------------------------------------------- tiled pooling
def _general_path(monkeypatch):
    monkeypatch.setattr(C, "_tiles", lambda *a: False)


@pytest.mark.parametrize("computation", ["add", "max", "min"])
@pytest.mark.parametrize("shape,wd", [((2, 6, 4, 3), (1, 2, 2, 1)), ((7, 5), (2, 3)),
                                      ((2, 9), (1, 3))])
def test_tiled_reduce_window_matches_general_path(computation, shape, wd, monkeypatch):
    """stride == window, no padding (tails dropped): the reshape fast path gives the general
    path's values and gradients, ties included (integer-valued input has many)."""
    x = np.random.default_rng(14).integers(-2, 3, size=shape).astype(float)
    init = {"add": 0.0, "max": -np.inf, "min": np.inf}[computation]

    def f(x):
        return fg.lax.reduce_window(x, init, computation, wd, wd, "VALID")
    ct = np.random.default_rng(15).normal(size=f(x).shape)
    fast = f(x), fg.vjp(f, x)[1](ct)[0], fg.jit(f)(x)
    _general_path(monkeypatch)
    slow = f(x), fg.vjp(f, x)[1](ct)[0]
    np.testing.assert_allclose(fast[0], slow[0])
    np.testing.assert_allclose(fast[1], slow[1], atol=1e-12)
    np.testing.assert_allclose(fast[2], slow[0])


def test_tiled_reduce_window_is_taken_and_keeps_transforms(monkeypatch):
    calls = []
    orig = C._reduce_tiles
    monkeypatch.setattr(C, "_reduce_tiles", lambda *a: calls.append(1) or orig(*a))
    x = np.random.default_rng(16).normal(size=(3, 4, 4, 2))

    def pool(x):  # 2x2 stride-2 max pooling, NHWC, with a non-identity init
        return fg.lax.reduce_window(x, 0.25, "max", (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
    want = np.maximum(x.reshape(3, 2, 2, 2, 2, 2).max(axis=(2, 4)), 0.25)
    np.testing.assert_allclose(pool(x), want)
    assert calls
    fg.test_util.check_grads(pool, (x,), order=2)
    np.testing.assert_allclose(fg.vmap(pool)(np.stack([x, 2 * x])), np.stack([want, pool(2 * x)]))
    ones = np.ones((1, 4, 4, 1))  # all tied: each window's cotangent is split in four
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(pool(x)))(ones), ones / 4)


# ------------------------------------------------------------- DFT path (stride-1 convs)
# (lhs shape, rhs shape, padding): stride 1, no dilation, one group, pads in [0, k - 1]
DFT_CONFIGS = [
    ((2, 3, 5, 4), (4, 3, 3, 3), [(1, 1), (1, 1)]),
    ((2, 6, 3, 3), (1, 6, 3, 3), [(2, 2), (2, 2)]),  # full: every kernel offset
    ((2, 3, 6), (2, 3, 4), [(3, 0)]),  # 1-D, one-sided
    ((1, 2, 4, 3, 5), (3, 2, 2, 3, 2), [(1, 0), (0, 2), (1, 1)]),  # 3-D
    ((2, 3, 6, 7), (4, 3, 6, 7), [(0, 0), (0, 0)]),  # kernel as big as the input
    ((2, 2, 4, 5), (3, 2, 5, 4), [(4, 1), (0, 3)]),  # even and odd transform lengths
]


@pytest.mark.parametrize("cfg", DFT_CONFIGS)
def test_dft_path_matches_reference(cfg):
    """The frequency-domain path, forced on small shapes (its cost model would pick im2col
    there), against the direct loop at float64 tolerance, in NCHW and NHWC memory."""
    xs, ws, p = cfg
    nd = len(xs) - 2
    rng = np.random.default_rng(7)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    want = reference_conv(x, w, (1,) * nd, p, (1,) * nd, (1,) * nd, 1)
    got = C._dft_conv(x, w, p, want.shape[2:])
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), want, atol=1e-10)
    x_last = np.moveaxis(np.moveaxis(x, 1, -1).copy(), -1, 1)  # channels-last memory
    w_last = np.moveaxis(np.moveaxis(w, (0, 1), (-1, -2)).copy(), (-1, -2), (0, 1))
    got = C._dft_conv(x_last, w_last, p, want.shape[2:])
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), want, atol=1e-10)


# LeNet's conv2 in NCHW/OIHW: forward, input gradient (full padding), kernel gradient
LENET_CONV2 = [((64, 32, 12, 12), (64, 32, 5, 5), ((0, 0), (0, 0))),
               ((64, 64, 8, 8), (32, 64, 5, 5), ((4, 4), (4, 4))),
               ((32, 64, 12, 12), (64, 64, 8, 8), ((0, 0), (0, 0)))]


def _pick_dft(xs, ws, p, dtype=np.float32, strides=(1, 1)):
    x, w = np.zeros(xs, dtype), np.zeros(ws, dtype)
    out = [n + lo + hi - k + 1 for n, (lo, hi), k in zip(xs[2:], p, ws[2:])]
    return C._use_dft(x, w, strides, p, (1, 1), (1, 1), 1, out)


def test_dft_path_is_chosen_by_cost():
    """It takes LeNet's conv2 (all three convs: ~0.7x im2col's multiply-adds), not conv1
    (one input channel: the inverse transforms would dominate) nor small or unsupported
    convs."""
    assert all(_pick_dft(*cfg) for cfg in LENET_CONV2)
    assert not _pick_dft((64, 1, 28, 28), (32, 1, 5, 5), ((0, 0), (0, 0)))  # conv1
    assert not _pick_dft((1, 64, 28, 28), (32, 64, 24, 24), ((0, 0), (0, 0)))  # its dw
    assert not _pick_dft((2, 3, 5, 4), (4, 3, 3, 3), ((1, 1), (1, 1)))
    assert not _pick_dft(*LENET_CONV2[0], dtype=np.float16)
    assert not _pick_dft(*LENET_CONV2[0], strides=(2, 1))
    assert not _pick_dft((64, 64, 8, 8), (32, 64, 5, 5), ((5, 4), (4, 4)))  # pad > k - 1


def test_dft_path_float32_accuracy_and_gradients(monkeypatch):
    """On a conv it picks (float32): within ~1e-6 of a float64 im2col, and the whole
    value-and-gradient (whose transposed convs also qualify) agrees with the im2col path."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=(32, 12, 12, 32)).astype(np.float32)  # NHWC
    w = rng.normal(size=(5, 5, 32, 64)).astype(np.float32)  # HWIO
    dn = ("NHWC", "HWIO", "NHWC")
    calls = []
    orig = C._dft_conv
    monkeypatch.setattr(C, "_dft_conv", lambda *a: calls.append(1) or orig(*a))
    got = conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=dn)
    assert calls and got.dtype == np.float32
    want = conv_general_dilated(x.astype(np.float64), w.astype(np.float64), (1, 1), "VALID",
                                dimension_numbers=dn)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()

    def loss(x, w):
        return fnp.sum(fnp.tanh(conv_general_dilated(x, w, (1, 1), "VALID",
                                                     dimension_numbers=dn)))
    grads = fg.jit(fg.grad(loss, argnums=(0, 1)))(x, w)
    assert len(calls) >= 4  # forward, then the forward, dx and dw convs of the gradient
    monkeypatch.setattr(C, "_use_dft", lambda *a: False)
    im2col = fg.jit(fg.grad(loss, argnums=(0, 1)))(x, w)
    for g, h in zip(grads, im2col):
        np.testing.assert_allclose(g, h, rtol=1e-4, atol=1e-4 * np.abs(h).max())


# ------------------------------------------------------------------ fuzzing regressions
def test_negative_padding_crossing_the_other_end():
    """XLA pads both ends at once: a crop larger than the input eats the other end's
    padding (n=2, pads (-3, 5): 4 zeros; n=5, pads (3, -6): 2 positions), so the impl's
    shape matches the aval's and the values the definition's."""
    rng = np.random.default_rng(11)
    for n, pads in [(2, (-3, 5)), (5, (3, -6)), (3, (-5, 4)), (0, (3, -1))]:
        x, w = rng.normal(size=(2, 1, n)), rng.normal(size=(2, 1, 1))
        got = conv_general_dilated(x, w, (1,), [pads])
        assert got.shape == (2, 2, max(n + sum(pads), 0))
        xp = np.pad(x, ((0, 0), (0, 0), (max(pads[0], 0), max(pads[1], 0))))
        xp = xp[:, :, max(-pads[0], 0):xp.shape[2] - max(-pads[1], 0)]
        np.testing.assert_allclose(got, np.einsum("ncs,oc->nos", xp, w[:, :, 0]))
        jitted = fg.jit(lambda a, b: conv_general_dilated(a, b, (1,), [pads]))(x, w)
        np.testing.assert_allclose(jitted, got)


def test_empty_input_with_padding_gives_zeros():
    """A 0-length spatial input padded to a positive length (and lhs-dilated) reads only
    padding: zeros of the aval's shape, not a broadcast error."""
    x, w = np.ones((2, 2, 0)), np.ones((1, 2, 2))
    got = conv_general_dilated(x, w, (1,), [(2, 3)], lhs_dilation=(2,), rhs_dilation=(2,))
    assert got.shape == (2, 1, 3) and not got.any()
    g = fg.grad(lambda w: fnp.sum(conv_general_dilated(x, w, (1,), [(2, 3)])))(w)
    assert g.shape == w.shape and not g.any()


def test_reduce_window_same_padding_ignores_base_dilation():
    """JAX computes a string padding from the operand's own shape (not base-dilated):
    n=4, window 3, stride 2, base dilation 2 -> pads (0, 1), outputs [3, 5, 7]."""
    x = np.arange(1.0, 5.0)
    got = fg.lax.reduce_window(x, 0.0, "add", (3,), (2,), "SAME", (2,))
    np.testing.assert_array_equal(got, [3.0, 5.0, 7.0])


def test_reduce_window_with_infinities_is_not_nan():
    """The windows are gathered by slicing, not by a product with a one-hot kernel (whose
    inf * 0 made every window holding an infinity nan)."""
    x = np.full((1, 2, 2, 1), -np.inf)
    for pad in ("SAME", "VALID"):
        got = fg.lax.reduce_window(x, -np.inf, "max", (1, 2, 2, 1), (1, 1, 1, 1), pad)
        assert np.all(got == -np.inf)
    x = np.zeros((3, 3))
    x[1, 1] = np.inf
    x[0, 0] = -np.inf
    mx = fg.lax.reduce_window(x, -np.inf, "max", (2, 2), (1, 1), "VALID")
    np.testing.assert_array_equal(mx, [[np.inf] * 2] * 2)
    mn = fg.lax.reduce_window(x, np.inf, "min", (2, 2), (1, 1), "VALID")
    np.testing.assert_array_equal(mn, [[-np.inf, 0.0], [0.0, 0.0]])
    sm = fg.jit(lambda a: fg.lax.reduce_window(a, 0.0, "add", (2, 2), (1, 1), "VALID"))(
        np.where(np.isinf(x) & (x < 0), 0.0, x))
    np.testing.assert_array_equal(sm, [[np.inf] * 2] * 2)
    # finite parts of the gradient are unaffected by an infinity elsewhere
    y = np.arange(9.0).reshape(3, 3)
    y[0, 0] = -np.inf
    g = fg.grad(lambda a: fnp.sum(fg.lax.reduce_window(a, -np.inf, "max", (2, 2), (1, 1),
                                                       "VALID")))(y)
    np.testing.assert_array_equal(g, [[0, 0, 0], [0, 1, 1], [0, 1, 1]])
