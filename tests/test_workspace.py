"""Reused memory for primitive implementations' temporaries (lax/workspace.py): the same
buffer comes back per thread, the cache stays bounded, and no result of a primitive that uses
workspaces shares memory with one (a second call must not change the first call's result).
A large select under jit writes into a buffer of the plan, so a ReLU network's step does
not page-fault fresh memory every call."""
import threading

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import convolution as C
from fungrad.lax import elementwise as E
from fungrad.lax import workspace as W


def test_workspace_is_reused_per_tag_shape_and_dtype():
    a = W.workspace("test a", (3, 4), np.float32)
    assert a.shape == (3, 4) and a.dtype == np.float32 and a.flags.c_contiguous
    assert W.workspace("test a", (3, 4), np.float32) is a
    assert W.workspace("test b", (3, 4), np.float32) is not a      # another tag
    assert W.workspace("test a", (4, 3), np.float32) is not a      # another shape
    assert W.workspace("test a", (3, 4), np.float64) is not a      # another dtype


def test_workspaces_are_per_thread():
    mine = W.workspace("test thread", (8,), np.float64)
    theirs = []
    t = threading.Thread(target=lambda: theirs.append(W.workspace("test thread", (8,), np.float64)))
    t.start()
    t.join()
    assert theirs[0] is not mine and not np.shares_memory(theirs[0], mine)


def test_the_cache_is_bounded_least_recently_used_first(monkeypatch):
    W.clear()
    monkeypatch.setattr(W, "MAX_BYTES", 3 * 800)
    first = W.workspace("lru 0", (100,), np.float64)       # 800 bytes each
    second = W.workspace("lru 1", (100,), np.float64)
    W.workspace("lru 0", (100,), np.float64)                # 0 is now the most recent
    W.workspace("lru 2", (100,), np.float64)
    W.workspace("lru 3", (100,), np.float64)                # over the bound: 1 goes
    assert W.workspace("lru 0", (100,), np.float64) is first
    assert W.workspace("lru 1", (100,), np.float64) is not second
    assert W._local.nbytes <= 3 * 800
    huge = W.workspace("lru huge", (1000,), np.float64)     # larger than the bound: not kept
    assert W.workspace("lru huge", (1000,), np.float64) is not huge
    W.clear()
    assert W._local.nbytes == 0


def _reference_conv(x, w, stride, padding):
    """Direct cross-correlation, NCHW / OIHW, explicit (lo, hi) padding."""
    x = np.pad(x, [(0, 0), (0, 0)] + list(padding))
    kh, kw = w.shape[2:]
    oh = (x.shape[2] - kh) // stride + 1
    ow = (x.shape[3] - kw) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            out += np.einsum("nchw,oc->nohw", win, w[:, :, i, j])
    return out


@pytest.mark.parametrize("path, x_shape, w_shape, stride, padding", [
    ("_dft_conv", (32, 32, 12, 12), (64, 32, 5, 5), 1, ((0, 0), (0, 0))),
    ("_dft_conv", (32, 64, 8, 8), (32, 64, 5, 5), 1, ((4, 4), (4, 4))),
    ("_gather_conv", (3, 2, 9, 9), (4, 2, 3, 3), 2, ((1, 1), (1, 1))),
    ("_scatter_conv", (2, 8, 3, 3), (2, 8, 3, 3), 1, ((2, 2), (2, 2))),
])
def test_conv_results_never_share_its_workspaces(monkeypatch, path, x_shape, w_shape, stride,
                                                 padding):
    """Each conv path computes through workspaces; the result of one call stays as it was
    after further calls with the same shapes (eager and jit), and matches a direct sum."""
    calls = []
    original = getattr(C, path)
    monkeypatch.setattr(C, path, lambda *a, **k: calls.append(path) or original(*a, **k))
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=x_shape).astype(np.float32) for _ in range(3)]
    w = rng.normal(size=w_shape).astype(np.float32)
    conv = lambda x: fg.lax.conv_general_dilated(x, w, (stride, stride), padding)  # noqa: E731
    for f in (conv, fg.jit(conv)):
        outs = [f(x) for x in xs]
        for x, out in zip(xs, outs):
            np.testing.assert_allclose(out, _reference_conv(x, w, stride, padding),
                                       rtol=1e-4, atol=1e-4)
        assert not any(np.shares_memory(a, b) for k, a in enumerate(outs) for b in outs[k + 1:])
    assert calls and set(calls) == {path}


def test_bitwise_select_into_a_buffer_and_in_place_is_exact():
    n = E._BITWISE_SELECT_MIN_SIZE
    rng = np.random.default_rng(0)
    a = rng.normal(size=n).astype(np.float32)
    a[:4] = [np.nan, -0.0, np.inf, -np.inf]
    b = rng.normal(size=n).astype(np.float32)
    pred = rng.random(n) < 0.5
    for other in (b, 0.0):
        want = np.where(pred, a, other)
        out = np.empty_like(a)
        assert E._bitwise_select(pred, a, other, out=out) is not None
        assert out.tobytes() == want.tobytes()
        inplace = a.copy()
        E._bitwise_select(pred, inplace, other, out=inplace)
        assert inplace.tobytes() == want.tobytes()


def test_a_large_select_under_jit_writes_into_the_plans_buffer():
    x = np.random.default_rng(0).normal(size=(64, 512)).astype(np.float32)

    def f(x):
        h = fnp.where(x > 0, x, 0.0)   # a temporary: its memory is kept between calls
        return fnp.sum(h * h)
    lowered = fg.jit(f).lower(x)
    select = [name for name, v in lowered.call.compiled.fn.__globals__.items()
              if v is E._bitwise_select]
    assert len(select) == 1
    line = next(s for s in lowered.source.splitlines() if f"{select[0]}(" in s)
    assert "out=_s[" in line
    want = np.sum(np.where(x > 0, x, 0) ** 2, dtype=np.float32)
    for _ in range(2):
        np.testing.assert_allclose(fg.jit(f)(x), want, rtol=1e-5)


# --------------------------------------------------------------------------- recycled outputs
def _big_step():
    """A jitted function whose large output (64 KiB and up) is allocated by an operation that
    takes `out=`: jit may put it in memory an earlier call returned."""
    f = fg.jit(lambda p, g: p - 0.5 * g)
    p = np.arange(32768, dtype=np.float64)
    g = np.ones_like(p)
    assert "_recycled(" in f.lower(p, g).source
    return f, p, g


def test_an_output_the_caller_dropped_is_written_again():
    f, p, g = _big_step()
    first = f(p, g)
    address = first.ctypes.data
    del first
    again = f(p, g)
    assert again.ctypes.data == address
    np.testing.assert_array_equal(again, p - 0.5)
    np.testing.assert_array_equal(p, np.arange(32768.0))   # the inputs are never written


def test_outputs_the_caller_holds_are_never_reused():
    f, p, g = _big_step()
    held = [f(p + k, g) for k in range(4)]
    for k, out in enumerate(held):
        np.testing.assert_array_equal(out, p + k - 0.5)
    assert not any(np.shares_memory(a, b) for k, a in enumerate(held) for b in held[k + 1:])


@pytest.mark.parametrize("hold", ["view", "list", "dict"])
def test_an_output_reachable_through_a_view_or_container_is_not_reused(hold):
    f, p, g = _big_step()
    if hold == "view":
        kept = f(p, g)[10:20]          # the array itself is dropped, its view is not
    elif hold == "list":
        kept = [f(p, g)]
    else:
        kept = {0: f(p, g)}
    snapshot = np.array(kept if hold == "view" else kept[0], copy=True)
    for k in range(4):
        f(p + 100 * (k + 1), g)
    now = kept if hold == "view" else kept[0]
    np.testing.assert_array_equal(now, snapshot)


def test_a_loop_feeding_outputs_back_cycles_through_a_few_buffers():
    f, p, g = _big_step()
    addresses = set()
    x = p
    for k in range(8):
        x = f(x, g)
        addresses.add(x.ctypes.data)
    np.testing.assert_array_equal(x, p - 4.0)
    assert len(addresses) <= 3
